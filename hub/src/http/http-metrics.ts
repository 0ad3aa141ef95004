import type { MiddlewareHandler } from 'hono';
import type { HubMetrics } from '../metrics/hub-metrics';
import type { HubEnv } from './hub-env';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts and times every request by route template (never the raw path: bounded labels), once: a
 * compat request is counted under the /api/v1 route that served it, not again as `unmatched`.
 */
export function httpMetrics(metrics: HubMetrics): MiddlewareHandler<HubEnv> {
  return async function recordHttpMetrics(c, next) {
    const started = performance.now();
    await next();
    if (c.get('servedByDispatch')) return;
    const method = KNOWN_METHODS.has(c.req.method) ? c.req.method : 'OTHER';
    const route = c.get('route') ?? 'unmatched';
    metrics.httpRequests.inc({ method, route, status: String(c.res.status) });
    metrics.httpDuration.observe({ method, route }, (performance.now() - started) / 1000);
  };
}
