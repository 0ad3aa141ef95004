import * as v from 'valibot';
import type { EnvReader } from '../../../shared/config/env-readers';

/**
 * Why `*` is refused: every answer the hub gives a browser is credentialed (a session cookie or an
 * API key in Authorization), and the Fetch standard forbids `*` with credentials, so a wildcard could
 * only be honoured by echoing every Origin, which would let any page drive the hub.
 */
const NO_WILDCARD =
  'must name each origin: "*" is refused because CORS answers are credentialed (cookies, API keys) and a wildcard would open the hub to every page';

/** One origin as a browser sends it in Origin: scheme, host and port, nothing else. */
function originOf(entry: string): string | undefined {
  if (!URL.canParse(entry)) return undefined;
  const url = new URL(entry);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // WHATWG URLs take `*` as a host character: a pattern such as https://*.example.com would match nothing.
  if (url.hostname.includes('*')) return undefined;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return undefined;
  // A trailing slash is forgiven; a path is not (an origin has none, so it would never match).
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(entry)) return undefined;
  return url.origin;
}

/**
 * DD_SERVER_CORS_ORIGINS: comma-separated exact origins (`https://dash.example.com,http://127.0.0.1:8080`),
 * each normalised as a browser serialises it (lower-case host, default port dropped).
 */
export const envCorsOrigins: EnvReader<string[]> = v.pipe(
  v.string(),
  v.transform((raw) =>
    raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  ),
  v.check((entries) => !entries.includes('*'), NO_WILDCARD),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const origins: string[] = [];
    for (const entry of dataset.value) {
      const origin = originOf(entry);
      if (origin === undefined) {
        addIssue({
          message: `"${entry.slice(0, 80)}" is not an origin: write scheme://host[:port], http or https, with no path, for example https://dash.example.com`,
        });
        return NEVER;
      }
      if (!origins.includes(origin)) origins.push(origin);
    }
    return origins;
  }),
);
