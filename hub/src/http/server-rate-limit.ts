import type { Context, MiddlewareHandler } from 'hono';
import type { HubConfig } from '../config/hub-config';
import { HttpError } from './http-error';
import type { HubEnv } from './hub-env';
import { compatRouteOf } from './legacy-api';
import { createRateLimiter, type RateLimitDecision } from './rate-limit';
import type { RegisteredRoute, RouteTable } from './route-table';

/** The window of the server-wide request limit and of the WebSocket upgrade limit (decisions §5, http-interface §8). */
export const REQUEST_LIMIT_WINDOW_MS = 15 * 60_000;
/**
 * Clients counted at most. Beyond it the limiter forgets the oldest windows, so a flood from many
 * addresses costs bounded memory (about 100 bytes a client); a forgotten client starts afresh.
 */
export const MAX_TRACKED_CLIENTS = 10_000;
/**
 * Never counted though they have no limit of their own: liveness probes poll /health from one
 * address all day, and a 429 there would make an orchestrator restart a healthy hub. It is cheap
 * and tells nothing but "ok" and the uptime.
 */
export const UNLIMITED_PATHS: ReadonlySet<string> = new Set(['/health']);
// Answered by the legacy guard: a fixed 410 (not counted), or a compat route, counted here as itself
// and passed on to its /api/v1 twin, which comes back through this middleware and is not counted again.
const UNVERSIONED_API = /^\/api(?:$|\/(?!v1(?:$|\/)))/;
// A runtime that cannot name the caller puts every such caller in one bucket (as the other limits do).
const UNKNOWN_CLIENT = 'unknown';

/** The server-wide request limit: its configured ceiling, the clock, and the routes it exempts. */
export interface ServerRateLimitDeps {
  config: Pick<HubConfig, 'server' | 'compat'>;
  now: () => number;
  /** Every registered route; those with a limit of their own are not counted here. */
  routes: Pick<RouteTable, 'routes'>;
  clientAddress: (c: Context) => string | undefined;
}

/**
 * Whom a per-client limit counts: the signed-in user (all of their sessions together, so signing
 * in again buys no fresh budget), the API key, else the client address.
 */
export function limitIdentity(c: Context<HubEnv>, deps: Pick<ServerRateLimitDeps, 'clientAddress'>): string {
  const principal = c.get('principal');
  if (principal.kind === 'session') return `session:${principal.username}`;
  if (principal.kind === 'api-key') return `api-key:${principal.keyId}`;
  const address = deps.clientAddress(c);
  return address === undefined ? UNKNOWN_CLIENT : `ip:${address}`;
}

/**
 * A route with a limit of its own: a WebSocket route (its upgrades are limited: acceptWebSocket for
 * the log streams, the edge endpoint's own for agents) or one that documents a 429 of its own
 * (sign-in failures, env reveal, the UI stream's connections).
 */
export function hasOwnLimit(route: RegisteredRoute): boolean {
  return route.spec.websocket === true || route.spec.statuses?.[429] !== undefined;
}

/** The 429 of a request limit (http-interface §2.15), with Retry-After in whole seconds. */
export function tooManyRequests(message: string, decision: RateLimitDecision, limit: number): HttpError {
  const windowSeconds = REQUEST_LIMIT_WINDOW_MS / 1000;
  return new HttpError(
    429,
    message,
    { limit, windowSeconds, retryAfterSeconds: decision.retryAfterSeconds },
    { 'Retry-After': String(decision.retryAfterSeconds) },
  );
}

/**
 * The server-wide request limit of decisions §5: DD_SERVER_RATELIMIT_MAX (default 1,000) requests
 * per 15 minutes per client, on every route without a limit of its own. Runs after
 * authentication, so it knows the caller. API keys are left to their own ceiling (rateLimitMax,
 * else the same 1,000, http-interface §8), which api-key-auth counts: counting them here too would charge a
 * key twice.
 */
export function serverRateLimit(deps: ServerRateLimitDeps): MiddlewareHandler<HubEnv> {
  const limit = deps.config.server.requestLimit;
  const limiter = createRateLimiter({
    limit,
    windowMs: REQUEST_LIMIT_WINDOW_MS,
    now: deps.now,
    maxKeys: MAX_TRACKED_CLIENTS,
  });
  // Read on the first request, when every route is registered; only these few are tested per request.
  let ownLimits: RegisteredRoute[] | undefined;
  let unversionedRoutes: Set<string> | undefined;
  const isExempt = (c: Context<HubEnv>): boolean => {
    const path = c.req.path;
    if (UNLIMITED_PATHS.has(path)) return true;
    if (UNVERSIONED_API.test(path)) {
      // The permanent alias /api/auth/status is a route of its own, so it is counted; so is a compat
      // request, even one answered before it reaches its twin (a legacy trigger run without a container).
      unversionedRoutes ??= new Set(
        deps.routes.routes.map((route) => route.fullPath).filter((full) => UNVERSIONED_API.test(full)),
      );
      if (unversionedRoutes.has(path)) return false;
      return compatRouteOf(deps.config.compat.wudCard, c.req.method, path) === undefined;
    }
    ownLimits ??= deps.routes.routes.filter(hasOwnLimit);
    const method = c.req.method === 'HEAD' ? 'get' : c.req.method.toLowerCase();
    const route = ownLimits.find((candidate) => candidate.spec.method === method && candidate.matcher.test(path));
    // A route's own limit runs in its handler (acceptWebSocket for the streams), which a caller
    // without credentials never reaches on a non-public route (its access check answers 401
    // first): such callers are counted here, so their 401s are limited too.
    return route !== undefined && !(route.spec.access !== 'public' && c.get('principal').kind === 'unauthenticated');
  };

  return async function limitRequests(c, next) {
    if (c.get('principal').kind === 'api-key' || c.get('compatTwin') || isExempt(c)) return next();
    const decision = limiter.take(limitIdentity(c, deps));
    if (!decision.allowed)
      throw tooManyRequests(`At most ${limit} requests per 15 minutes from one client`, decision, limit);
    return next();
  };
}
