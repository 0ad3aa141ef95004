import type { Context, MiddlewareHandler } from 'hono';
import { CONFIRM_HEADER } from './route-group';

/**
 * Request headers a page on a configured origin may send beyond the CORS-safelisted ones: the
 * credential, the JSON body type, the confirmation header (http-interface §4.1), the event stream's
 * resume point (http-interface §6.1) and a caller-chosen request id.
 */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', CONFIRM_HEADER, 'Last-Event-ID', 'X-Request-Id'];
/** Response headers such a page may read besides the safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'Deprecation',
  'Sunset',
  'Link',
  'Location',
  'Content-Disposition',
  'WWW-Authenticate',
];
/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 600;

export interface CorsOptions {
  /** DD_SERVER_CORS_ORIGINS, as browsers serialise origins; empty turns CORS off. */
  origins: readonly string[];
  /** The methods a path is served with (upper case, HEAD with GET); none when the path is not served. */
  methodsOf: (path: string) => string[];
}

/** Adds Origin to Vary once: a compat request passes this middleware twice (its /api/v1 twin too). */
function addVaryOrigin(headers: Headers): void {
  const present = headers.get('vary');
  if (present && /(^|,)\s*origin\s*(,|$)/i.test(present)) return;
  headers.set('vary', present ? `${present}, Origin` : 'Origin');
}

/** The allow headers on a finished answer; a response with frozen headers is copied first. */
function withAllowOrigin(c: Context, origin: string | undefined): void {
  if (c.res.status === 101) return;
  let headers = c.res.headers;
  try {
    headers.get('vary');
    addVaryOrigin(headers);
  } catch {
    c.res = new Response(c.res.body, c.res);
    headers = c.res.headers;
    addVaryOrigin(headers);
  }
  if (origin === undefined) return;
  headers.set('access-control-allow-origin', origin);
  headers.set('access-control-allow-credentials', 'true');
  headers.set('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '));
}

/**
 * CORS for the origins named in DD_SERVER_CORS_ORIGINS (off when none): a preflight from one of
 * them to a served path (api, compat aliases, the event stream) answers 204 with what it may send;
 * its actual requests carry the allow headers, always the origin itself with credentials, never `*`.
 * Any other origin gets no CORS header at all, so its preflight falls through to the usual 404/405
 * and the browser keeps the page from reading or sending. WebSockets are not CORS: their Origin
 * check stays (http-interface §5.11). See docs/cors.md.
 */
export function cors(options: CorsOptions): MiddlewareHandler {
  const origins = new Set(options.origins);
  return async function corsHeaders(c, next) {
    if (origins.size === 0) return next();
    const requested = c.req.header('origin');
    const origin = requested !== undefined && origins.has(requested) ? requested : undefined;
    const preflight = c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined;
    if (preflight && origin !== undefined) {
      const methods = options.methodsOf(c.req.path);
      if (methods.length > 0) {
        return new Response(null, {
          status: 204,
          headers: {
            'access-control-allow-origin': origin,
            'access-control-allow-credentials': 'true',
            'access-control-allow-methods': methods.join(', '),
            'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
            'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
            vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
          },
        });
      }
    }
    await next();
    withAllowOrigin(c, origin);
  };
}
