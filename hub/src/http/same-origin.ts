import type { Context } from 'hono';

/**
 * The origin this request was addressed to. Behind a TLS-terminating proxy the scheme and host
 * come from X-Forwarded-* only when DD_SERVER_TRUSTPROXY says proxies are there (http-interface §5.11).
 */
export function serverOrigin(c: Context, trustProxy: number): string {
  const url = new URL(c.req.url);
  if (trustProxy > 0) {
    const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim();
    const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim();
    if (proto === 'http' || proto === 'https') url.protocol = `${proto}:`;
    // Read whole: assigning it to url.host would keep the port this server listens on when the
    // forwarded host has none, and no browser behind the proxy would ever send that origin.
    if (host && URL.canParse(`${url.protocol}//${host}`)) return new URL(`${url.protocol}//${host}`).origin;
  }
  return url.origin;
}

/** True when the request carries no Origin (not a browser) or an Origin equal to the server's. */
export function isSameOrigin(c: Context, trustProxy: number): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined) return true;
  try {
    return new URL(origin).origin === serverOrigin(c, trustProxy);
  } catch {
    return false;
  }
}
