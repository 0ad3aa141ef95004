import * as v from 'valibot';
import { maskHubConfig } from '../config/hub-config';
import { errorBody } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { HubServices } from '../hub-services';

const HealthSchema = v.object({ status: v.literal('ok'), uptime: v.number() });
const AppSchema = v.object({ name: v.string(), version: v.string(), runtime: v.string() });

export const PRODUCT_NAME = 'dockwatch';

function uptimeSeconds(services: HubServices): number {
  return Math.round((services.now() - services.startedAt) / 100) / 10;
}

/** GET /health at the root. */
export function registerHealthRoute(root: RouteGroup, services: HubServices): void {
  root.add(
    {
      method: 'get',
      path: '/health',
      access: 'public',
      tag: 'system',
      summary: 'Liveness and start-up readiness',
      response: HealthSchema,
      statuses: { 503: 'Start-up readiness gates are not met yet' },
    },
    (c) => {
      if (!services.readiness.isReady()) {
        return c.json(errorBody(503, 'The hub is starting', { gates: services.readiness.snapshot() }), 503);
      }
      return c.json({ status: 'ok', uptime: uptimeSeconds(services) });
    },
  );
}

/** GET /api/v1/app and /api/v1/server. */
export function registerAppRoutes(api: RouteGroup, services: HubServices): void {
  api.add({ method: 'get', path: '/app', access: 'read', tag: 'system', summary: 'Product name and version', response: AppSchema }, (c) =>
    c.json({ name: PRODUCT_NAME, version: services.deps.version, runtime: services.deps.runtime }),
  );
  api.add(
    { method: 'get', path: '/server', access: 'read', tag: 'system', summary: 'Server version, uptime and masked configuration' },
    (c) =>
      c.json({
        name: PRODUCT_NAME,
        version: services.deps.version,
        runtime: services.deps.runtime,
        bootId: services.bootId,
        startedAt: new Date(services.startedAt).toISOString(),
        uptimeSeconds: uptimeSeconds(services),
        ready: services.readiness.isReady(),
        configuration: maskHubConfig(services.config),
      }),
  );
}
