import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { HubServices } from '../hub-services';

/** GET /metrics: Prometheus text, guarded as spec 5.10 says. */
export function registerMetricsRoute(root: RouteGroup, services: HubServices): void {
  const { metricsAuth, metricsToken } = services.config.server;
  root.add(
    {
      method: 'get',
      path: '/metrics',
      // With DD_SERVER_METRICS_AUTH=false anyone may scrape; otherwise the metrics token, a session or a read key.
      access: metricsAuth ? 'read' : 'public',
      tag: 'system',
      summary: 'Prometheus metrics (text exposition format)',
      statuses: { 401: 'Metrics token missing or wrong' },
    },
    async (c) => {
      if (metricsAuth && metricsToken !== undefined) {
        const presented = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
        const tokenOk = presented !== undefined && (await timingSafeEqualText(presented, metricsToken));
        // An anonymous caller must present the token; a signed-in session or a key got here through its own check.
        if (!tokenOk && c.get('principal').kind === 'anonymous') throw new HttpError(401, 'A valid metrics token is required');
      }
      const own = services.metrics.registry.render();
      const runtime = services.deps.runtimeMetrics ? await services.deps.runtimeMetrics() : '';
      return c.body(own + runtime, 200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
    },
  );
}
