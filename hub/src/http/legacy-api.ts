import type { Context, MiddlewareHandler } from 'hono';
import * as v from 'valibot';
import { errorBody } from './http-error';
import type { HubEnv } from './hub-env';
import type { PrincipalRelay } from './principal-relay';

const CANONICAL_BASE = '/api/v1';
const PERMANENT_ALIASES = new Set(['/api/auth/status']);

interface CompatRoute {
  method: string;
  pattern: RegExp;
  /** Unwrap the `{data, total, ...}` envelope into the bare array legacy cards expect. */
  reshape: boolean;
  /** The /api/v1 request that serves it; by default the same path under /api/v1 with the same request. */
  canonical?: (c: Context<HubEnv>, url: URL) => Promise<Request | Response>;
}

/**
 * `GET /api/containers` lists what What's Up Docker lists: the containers it watches. A `dd.watch=false`
 * container is not one of them (What's Up Docker never records it), so Homepage's widget and the card
 * would count it as monitored; an explicit `kind` is left as asked.
 */
async function watchedContainers(c: Context<HubEnv>, url: URL): Promise<Request> {
  if (!url.searchParams.has('kind')) url.searchParams.set('kind', 'watched');
  return new Request(url, c.req.raw);
}

/** Action trigger types: running one of them for a container updates it (updates/action-triggers.ts). */
const ACTION_TYPES = new Set(['docker']);
const ContainerIdSchema = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) });

/**
 * `POST /api/triggers/{type}/{name}` with a container object as its body: how wud-card versions
 * before its per-container trigger route ran a trigger for a container (test/support/fixtures/wud-card). A Docker action trigger updates the container the body
 * names (POST /api/v1/containers/{id}/triggers/docker/{name}); a notification trigger runs with the
 * body as its container (POST /api/v1/triggers/{type}/{name}).
 */
async function legacyTriggerRun(c: Context<HubEnv>, url: URL): Promise<Request | Response> {
  const [, , , , type = '', name = ''] = url.pathname.split('/');
  // Compared as sent: a percent-encoded type is no action trigger (and a malformed one must not throw).
  if (!ACTION_TYPES.has(type)) return new Request(url, c.req.raw);
  const parsed = v.safeParse(ContainerIdSchema, await c.req.json().catch(() => undefined));
  if (!parsed.success) {
    return c.json(errorBody(400, 'The body must be the container to update, with its id'), 400);
  }
  url.pathname = `${CANONICAL_BASE}/containers/${encodeURIComponent(parsed.output.id)}/triggers/${type}/${name}`;
  const headers = new Headers(c.req.raw.headers);
  headers.delete('content-type');
  headers.delete('content-length');
  return new Request(url, { method: 'POST', headers });
}

/**
 * The routes the Home Assistant wud-card and Homepage's widget call (http-interface §9.2), served
 * only with DD_COMPAT_WUDCARD=true by the /api/v1 handlers themselves, so auth, scopes and
 * limits are identical. The fifth, `POST /api/triggers/{type}/{name}`, is what card versions before
 * the per-container trigger route post to (http-interface §9.2, "In this project").
 */
const COMPAT_ROUTES: readonly CompatRoute[] = [
  { method: 'GET', pattern: /^\/api\/containers$/, reshape: true, canonical: watchedContainers },
  { method: 'GET', pattern: /^\/api\/containers\/[^/]+\/triggers$/, reshape: true },
  { method: 'POST', pattern: /^\/api\/containers\/watch$/, reshape: true },
  { method: 'POST', pattern: /^\/api\/containers\/[^/]+\/triggers\/[^/]+\/[^/]+$/, reshape: false },
  { method: 'POST', pattern: /^\/api\/triggers\/[^/]+\/[^/]+$/, reshape: false, canonical: legacyTriggerRun },
];

/** The compatibility route a request is for, when DD_COMPAT_WUDCARD serves them; only these accept HTTP Basic. */
export function compatRouteOf(compatWudCard: boolean, method: string, path: string): CompatRoute | undefined {
  if (!compatWudCard) return undefined;
  return COMPAT_ROUTES.find((candidate) => candidate.method === method && candidate.pattern.test(path));
}

/** Methods the compat routes serve on an unversioned path (none while DD_COMPAT_WUDCARD is off): for CORS preflights. */
export function compatMethods(path: string, compatWudCard: boolean): string[] {
  if (!compatWudCard) return [];
  return COMPAT_ROUTES.filter((route) => route.pattern.test(path)).map((route) => route.method);
}

/** The /api/v1 path a compat path is served by (whatever its method), or undefined when it is none. */
export function compatTwinPath(path: string, compatWudCard: boolean): string | undefined {
  if (compatMethods(path, compatWudCard).length === 0) return undefined;
  return `${CANONICAL_BASE}${path.slice('/api'.length)}`;
}

/**
 * The dispatched request without the client's Accept-Encoding: its answer is reshaped here, so it
 * must be plain JSON; the outer compression middleware encodes what this route finally answers.
 */
function identityEncoded(request: Request): Request {
  if (!request.headers.has('accept-encoding')) return request;
  const headers = new Headers(request.headers);
  headers.delete('accept-encoding');
  return new Request(request, { headers });
}

function isEnvelope(body: unknown): body is { data: unknown[] } {
  return typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
}

async function serveCompat(c: Context<HubEnv>, route: CompatRoute, options: LegacyApiOptions) {
  const url = new URL(c.req.url);
  url.pathname = `${CANONICAL_BASE}${url.pathname.slice('/api'.length)}`;
  const request = route.canonical ? await route.canonical(c, url) : new Request(url, c.req.raw);
  if (request instanceof Response) return request;
  const inner = route.reshape ? identityEncoded(request) : request;
  options.principals.forward(inner, c.get('principal'));
  // The dispatched request goes through the whole chain, metrics included: count it there only.
  c.set('servedByDispatch', true);
  const response = await options.dispatch(inner, c.env);
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

interface LegacyApiOptions {
  compatWudCard: boolean;
  dispatch: (request: Request, env: unknown) => Promise<Response>;
  /** Hands the compatibility request's principal to the /api/v1 request serving it. */
  principals: Pick<PrincipalRelay, 'forward'>;
}

/**
 * Unversioned /api/* answers 410 with a pointer to /api/v1 (http-interface §9.2), including the removed
 * unversioned log stream, which is thereby refused at upgrade (http-interface §9.3).
 */
export function legacyApiGuard(options: LegacyApiOptions): MiddlewareHandler<HubEnv> {
  return async function legacyApi(c, next) {
    const path = c.req.path;
    if (path === CANONICAL_BASE || path.startsWith(`${CANONICAL_BASE}/`) || PERMANENT_ALIASES.has(path)) return next();
    const route = compatRouteOf(options.compatWudCard, c.req.method, path);
    if (route) return serveCompat(c, route, options);
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
