import type { MiddlewareHandler } from 'hono';
import type { HubMetrics } from '../metrics/hub-metrics';
import type { HubEnv } from './hub-env';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface HttpMetricsOptions {
  /**
   * The route template a path names, preferring the one of `method`: an OPTIONS request (a CORS
   * preflight) reaches no route handler, yet asks about one.
   */
  routeOf: (path: string, method: string | undefined) => string | undefined;
}

/**
 * Counts and times every request by route template (never the raw path: bounded labels), once: a
 * compat request is counted under the /api/v1 route that served it, not again as `unmatched`, and
 * a preflight under the route it asks about.
 */
export function httpMetrics(metrics: HubMetrics, options: HttpMetricsOptions): MiddlewareHandler<HubEnv> {
  return async function recordHttpMetrics(c, next) {
    const started = performance.now();
    await next();
    if (c.get('servedByDispatch')) return;
    const method = KNOWN_METHODS.has(c.req.method) ? c.req.method : 'OTHER';
    const asked =
      method === 'OPTIONS' ? options.routeOf(c.req.path, c.req.header('access-control-request-method')) : undefined;
    const route = c.get('route') ?? asked ?? 'unmatched';
    metrics.httpRequests.inc({ method, route, status: String(c.res.status) });
    metrics.httpDuration.observe({ method, route }, (performance.now() - started) / 1000);
  };
}
