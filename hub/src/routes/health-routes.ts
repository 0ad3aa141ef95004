import * as v from 'valibot';
import type { Container } from '../../../shared/schemas/container';
import { type HubConfig, maskHubConfig } from '../config/hub-config';
import type { RuntimeRefusal } from '../config/runtime-capabilities';
import { errorBody } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { HubDeps } from '../hub-deps';
import type { Readiness } from '../readiness';

const HealthSchema = v.object({ status: v.literal('ok'), uptime: v.number() });
const AppSchema = v.object({ name: v.string(), version: v.string(), runtime: v.string() });

export const PRODUCT_NAME = 'dockwatch';

/** The liveness probe: the start-up gates and the uptime. */
export interface HealthRouteDeps {
  readiness: Pick<Readiness, 'isReady' | 'snapshot'>;
  now: () => number;
  /** When the hub started, in milliseconds since the epoch. */
  startedAt: number;
}

/** What the hub tells of itself: version, runtime, this boot, readiness and the masked configuration. */
export interface AppRoutesDeps {
  version: string;
  runtime: HubDeps['runtime'];
  /** The storage in use (fs, redis, memory, durable-object). */
  storageDriver: string;
  /** Variables the runtime could not honour; the hub runs without them. */
  refusedVariables: readonly RuntimeRefusal[];
  bootId: string;
  /** When the hub started, in milliseconds since the epoch. */
  startedAt: number;
  now: () => number;
  readiness: Pick<Readiness, 'isReady'>;
  config: HubConfig;
  /** The record of the container the hub runs in, when it runs in one that a watcher sees (self-update). */
  selfContainer?: () => Container | undefined;
}

/** The hub's own container as GET /server tells it: what runs and what a self-update would move to. */
function describeSelf(container: Container | undefined) {
  if (!container) return null;
  return {
    id: container.id,
    name: container.name,
    tag: container.image.tag.value,
    updateAvailable: container.updateAvailable,
    candidate: container.updateAvailable ? (container.result?.tag ?? null) : null,
  };
}

function uptimeSeconds(deps: Pick<HealthRouteDeps, 'now' | 'startedAt'>): number {
  return Math.round((deps.now() - deps.startedAt) / 100) / 10;
}

/** GET /health at the root. */
export function registerHealthRoute(root: RouteGroup, deps: HealthRouteDeps): void {
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
      if (!deps.readiness.isReady()) {
        return c.json(errorBody(503, 'The hub is starting', { gates: deps.readiness.snapshot() }), 503);
      }
      return c.json({ status: 'ok', uptime: uptimeSeconds(deps) });
    },
  );
}

/** What GET /api/v1/server answers (the debug dump holds it too): nothing secret, the configuration masked. */
export function describeServer(deps: AppRoutesDeps) {
  const configuration = maskHubConfig(deps.config);
  // DD_STORE_* says nothing where the runtime chose the storage (a Durable Object on Workers).
  if (deps.storageDriver !== deps.config.store.driver) configuration.store = { driver: deps.storageDriver };
  return {
    name: PRODUCT_NAME,
    version: deps.version,
    runtime: deps.runtime,
    storage: { driver: deps.storageDriver },
    bootId: deps.bootId,
    startedAt: new Date(deps.startedAt).toISOString(),
    uptimeSeconds: uptimeSeconds(deps),
    ready: deps.readiness.isReady(),
    refusedVariables: deps.refusedVariables,
    /** An extension: the hub's own container (null outside one), so the UI can offer its update. */
    selfContainer: describeSelf(deps.selfContainer?.()),
    configuration,
  };
}

/** GET /api/v1/app and /api/v1/server. */
export function registerAppRoutes(api: RouteGroup, deps: AppRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/app',
      access: 'read',
      tag: 'system',
      summary: 'Product name and version',
      response: AppSchema,
    },
    (c) => c.json({ name: PRODUCT_NAME, version: deps.version, runtime: deps.runtime }),
  );
  api.add(
    {
      method: 'get',
      path: '/server',
      access: 'read',
      tag: 'system',
      summary: 'Server version, uptime and masked configuration',
    },
    (c) => c.json(describeServer(deps)),
  );
}
