import type { Context } from 'hono';
import { timingSafeEqualText } from '../../../shared/crypto/timing-safe-equal';
import {
  EXPOSITION_CONTENT_TYPES,
  type ExpositionFormat,
  negotiateExpositionFormat,
  OPENMETRICS_EOF,
} from '../../../shared/metrics/exposition-format';
import type { HubConfig } from '../config/hub-config';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import type { RouteGroup } from '../http/route-group';
import type { HubMetrics } from '../metrics/hub-metrics';

/** The Prometheus endpoint: its guard's configuration, the hub's metrics and the runtime's own. */
export interface MetricsRouteDeps {
  config: Pick<HubConfig, 'server'>;
  metrics: Pick<HubMetrics, 'registry'>;
  /** Runtime-specific families appended to the hub's, in the same format (process metrics on Node). */
  runtimeMetrics: ((format: ExpositionFormat) => Promise<string>) | undefined;
}

/**
 * GET /metrics: Prometheus text, or OpenMetrics 1.0.0 when the scraper's Accept header prefers it
 * (Prometheus does); guarded as http-interface §5.10 says.
 */
export function registerMetricsRoute(root: RouteGroup, deps: MetricsRouteDeps): void {
  const { metricsAuth, metricsToken } = deps.config.server;
  // With a token configured, the token itself opens /metrics, signed in or not (http-interface §5.10).
  const tokenMatches = async (c: Context<HubEnv>): Promise<boolean> => {
    if (!metricsAuth || metricsToken === undefined) return false;
    const presented = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    return presented !== undefined && timingSafeEqualText(presented, metricsToken);
  };
  root.add(
    {
      method: 'get',
      path: '/metrics',
      // With DD_SERVER_METRICS_AUTH=false anyone may scrape; otherwise the metrics token, a session or a read key.
      access: metricsAuth ? 'read' : 'public',
      grantedBy: tokenMatches,
      ownCredential: true,
      ...(metricsAuth && { securityScheme: 'metricsToken' as const }),
      responseType: 'text/plain',
      tag: 'system',
      summary: 'Prometheus metrics (text exposition format, or OpenMetrics when the Accept header asks)',
      statuses: { 401: 'Metrics token missing or wrong' },
    },
    async (c) => {
      // In anonymous mode everyone passes the access check: a configured token must still be presented.
      if (
        metricsAuth &&
        metricsToken !== undefined &&
        c.get('principal').kind === 'anonymous' &&
        !(await tokenMatches(c))
      ) {
        throw new HttpError(401, 'A valid metrics token is required');
      }
      const format = negotiateExpositionFormat(c.req.header('accept'));
      const own = deps.metrics.registry.render(format);
      const runtime = deps.runtimeMetrics ? await deps.runtimeMetrics(format) : '';
      const end = format === 'openmetrics' ? OPENMETRICS_EOF : '';
      return c.body(own + runtime + end, 200, {
        'Content-Type': EXPOSITION_CONTENT_TYPES[format],
        // Caches must keep the two formats apart.
        Vary: 'Accept',
      });
    },
  );
}
