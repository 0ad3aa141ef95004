import type { Context, MiddlewareHandler } from 'hono';
import { errorBody } from './http-error';
import type { HubEnv } from './hub-env';

const CANONICAL_BASE = '/api/v1';
const PERMANENT_ALIASES = new Set(['/api/auth/status']);

interface CompatRoute {
  method: string;
  pattern: RegExp;
  /** Unwrap the `{data, total, ...}` envelope into the bare array legacy cards expect. */
  reshape: boolean;
}

/**
 * The four routes the Home Assistant wud-card and Homepage's widget call (http-interface §9.2), served
 * only with DD_COMPAT_WUDCARD=true by the /api/v1 handlers themselves, so auth, scopes and
 * limits are identical.
 */
const COMPAT_ROUTES: readonly CompatRoute[] = [
  { method: 'GET', pattern: /^\/api\/containers$/, reshape: true },
  { method: 'GET', pattern: /^\/api\/containers\/[^/]+\/triggers$/, reshape: true },
  { method: 'POST', pattern: /^\/api\/containers\/watch$/, reshape: true },
  { method: 'POST', pattern: /^\/api\/containers\/[^/]+\/triggers\/[^/]+\/[^/]+$/, reshape: false },
];

/** Methods the compat routes serve on an unversioned path (none while DD_COMPAT_WUDCARD is off): for CORS preflights. */
export function compatMethods(path: string, compatWudCard: boolean): string[] {
  if (!compatWudCard) return [];
  return COMPAT_ROUTES.filter((route) => route.pattern.test(path)).map((route) => route.method);
}

function isEnvelope(body: unknown): body is { data: unknown[] } {
  return typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
}

async function serveCompat(
  c: Context<HubEnv>,
  route: CompatRoute,
  dispatch: (request: Request, env: unknown) => Promise<Response>,
) {
  const url = new URL(c.req.url);
  url.pathname = `${CANONICAL_BASE}${url.pathname.slice('/api'.length)}`;
  const response = await dispatch(new Request(url, c.req.raw), c.env);
  if (!route.reshape || response.status !== 200) return response;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  if (!isEnvelope(body)) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body.data), { status: 200, headers });
}

/**
 * Unversioned /api/* answers 410 with a pointer to /api/v1 (http-interface §9.2), including the removed
 * unversioned log stream, which is thereby refused at upgrade (http-interface §9.3).
 */
export function legacyApiGuard(options: {
  compatWudCard: boolean;
  dispatch: (request: Request, env: unknown) => Promise<Response>;
}): MiddlewareHandler<HubEnv> {
  return async function legacyApi(c, next) {
    const path = c.req.path;
    if (path === CANONICAL_BASE || path.startsWith(`${CANONICAL_BASE}/`) || PERMANENT_ALIASES.has(path)) return next();
    if (options.compatWudCard) {
      const route = COMPAT_ROUTES.find(
        (candidate) => candidate.method === c.req.method && candidate.pattern.test(path),
      );
      if (route) return serveCompat(c, route, options.dispatch);
    }
    const replacement = `${CANONICAL_BASE}${path.slice('/api'.length)}`;
    return c.json(
      errorBody(410, 'The unversioned /api/* path was removed. Use /api/v1/* instead.', {
        canonicalBasePath: CANONICAL_BASE,
        replacement,
      }),
      410,
    );
  };
}
