import type { Context } from 'hono';
import { imageOf } from '../../../shared/containers/container-record';
import { DockerNotFoundError } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { isSensitiveKey } from '../../../shared/redact';
import type { AuditAction } from '../../../shared/schemas/audit-entry';
import { type Container, ContainerSchema } from '../../../shared/schemas/container';
import { EnvRevealSchema } from '../../../shared/schemas/container-views';
import type { HubConfig } from '../config/hub-config';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { createRateLimiter } from '../http/rate-limit';
import type { RouteGroup } from '../http/route-group';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { toPublicContainer } from '../watchers/public-container';
import { actionableWatcherOf, type ContainerHosts, findContainer } from './container-target';

const ACTIONS = ['start', 'stop', 'restart'] as const;
type Action = (typeof ACTIONS)[number];
// Spelled out rather than built from the action's name, so test/architecture/audit-producers finds each producer.
const AUDIT_ACTION_OF = {
  start: 'container-start',
  stop: 'container-stop',
  restart: 'container-restart',
} as const satisfies Record<Action, AuditAction>;

/** http-interface §8: env reveal, 10 per minute. */
export const ENV_REVEAL_LIMIT = { limit: 10, windowMs: 60_000 } as const;

/** Container actions: the records, the hosts that act on them, the feature switches, and the audit trail. */
export interface ContainerActionRoutesDeps extends ContainerHosts {
  containers: Pick<ContainerStore, 'get' | 'remove'>;
  config: Pick<HubConfig, 'server'>;
  logger: Logger;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  now: () => number;
  clientAddress: (c: Context) => string | undefined;
}

/**
 * Whom a per-client limit counts: the signed-in user or key, else the address, else one shared
 * bucket (a runtime that cannot name the caller must still limit somebody).
 */
function clientKey(c: Context<HubEnv>, deps: Pick<ContainerActionRoutesDeps, 'clientAddress'>): string {
  const principal = c.get('principal');
  if (principal.kind === 'session') return `session:${principal.username}`;
  if (principal.kind === 'api-key') return `api-key:${principal.keyId}`;
  const address = deps.clientAddress(c);
  return address === undefined ? 'anonymous' : `ip:${address}`;
}

/** Start, stop and restart (http-interface §4.8), DELETE of a record, and the audited env reveal (http-interface §2.14). */
export function registerContainerActionRoutes(api: RouteGroup, deps: ContainerActionRoutesDeps): void {
  const { containers, config } = deps;
  const logger = deps.logger.child('containers.actions');

  /**
   * After an action the record is refreshed from Docker without registry checks. Without WATCHALL
   * a stopped container leaves the inventory (as any stopped container does), so the answer is
   * its last record with the state Docker reports now.
   */
  async function act(action: Action, container: Container): Promise<Container> {
    const watcher = actionableWatcherOf(deps, container);
    const audit = (status: string, details?: string) =>
      deps.audit.append({
        action: AUDIT_ACTION_OF[action],
        containerName: container.name,
        containerImage: imageOf(container),
        status,
        ...(details !== undefined && { details }),
      });
    try {
      await watcher.host[action](container.id);
    } catch (error) {
      await audit('failed', errorMessage(error));
      if (!(error instanceof DockerNotFoundError)) {
        logger.warn(`container ${action} failed`, { container: container.name, error: errorMessage(error) });
        throw new HttpError(500, `Docker could not ${action} the container`, { reason: errorMessage(error) });
      }
      // Gone from Docker: the refresh drops the stale record too.
      await watcher.refreshContainer(container.id);
      throw new HttpError(404, `The container ${container.name} no longer exists in Docker`);
    }
    await audit('success');
    const refreshed = await watcher.refreshContainer(container.id);
    if (refreshed) return refreshed;
    const details = await watcher.host.inspectContainer(container.id);
    if (!details) throw new HttpError(404, `The container ${container.name} no longer exists in Docker`);
    return { ...container, status: details.state };
  }

  for (const action of ACTIONS) {
    api.add(
      {
        method: 'post',
        path: `/containers/:id/${action}`,
        access: 'containers:control',
        tag: 'containers',
        summary: `${action[0]?.toUpperCase()}${action.slice(1)} the container; answers the refreshed record`,
        response: ContainerSchema,
        statuses: {
          403: 'Container actions are disabled (DD_SERVER_FEATURE_CONTAINERACTIONS=false)',
          404: 'Unknown container, or gone from Docker',
          409: 'A record of a watcher type without container actions (swarm, file, dockerfile)',
          503: 'Its watcher is not available',
        },
      },
      async (c) => {
        if (!config.server.featureContainerActions) {
          throw new HttpError(403, 'Container actions are disabled (DD_SERVER_FEATURE_CONTAINERACTIONS=false)', {
            feature: 'DD_SERVER_FEATURE_CONTAINERACTIONS',
          });
        }
        const container = findContainer(containers, c.req.param('id') ?? '');
        return c.json(toPublicContainer(await act(action, container)));
      },
    );
  }

  api.add(
    {
      method: 'delete',
      // `stats` is the removed legacy path (410 on GET), not a container: other methods get 405 there.
      path: '/containers/:id{(?!stats$)[^/]+}',
      access: 'containers:delete',
      tag: 'containers',
      summary: "Remove the container's record from the hub (the Docker container stays; the next watch finds it again)",
      confirm: 'container-delete',
      successStatus: 204,
      statuses: { 403: 'Deleting is disabled (DD_SERVER_FEATURE_DELETE=false, the default)', 404: 'Unknown container' },
    },
    async (c) => {
      if (!config.server.featureDelete) {
        throw new HttpError(403, 'Deleting containers is disabled (DD_SERVER_FEATURE_DELETE=false)', {
          feature: 'DD_SERVER_FEATURE_DELETE',
        });
      }
      const container = findContainer(containers, c.req.param('id') ?? '');
      await containers.remove(container.id);
      deps.publish('dd:container-removed', toPublicContainer(container));
      await deps.audit.append({
        action: 'container-removed',
        containerName: container.name,
        containerImage: imageOf(container),
        details: 'removed through the API',
      });
      return c.body(null, 204);
    },
  );

  const revealLimiter = createRateLimiter({ ...ENV_REVEAL_LIMIT, now: deps.now });
  api.add(
    {
      method: 'post',
      path: '/containers/:id/env/reveal',
      access: 'session',
      tag: 'containers',
      summary:
        'The unredacted environment of one container, each key flagged when sensitive; audited (without the values)',
      response: EnvRevealSchema,
      statuses: { 404: 'Unknown container', 429: 'More than 10 reveals in a minute' },
    },
    async (c) => {
      // Counted before the lookup, so probing for ids costs the same budget as reading them.
      const decision = revealLimiter.take(clientKey(c, deps));
      if (!decision.allowed) {
        throw new HttpError(
          429,
          `At most ${ENV_REVEAL_LIMIT.limit} environment reveals per minute`,
          { limit: ENV_REVEAL_LIMIT.limit, windowSeconds: ENV_REVEAL_LIMIT.windowMs / 1000 },
          { 'Retry-After': String(decision.retryAfterSeconds) },
        );
      }
      const container = findContainer(containers, c.req.param('id') ?? '');
      await deps.audit.append({
        action: 'env-reveal',
        containerName: container.name,
        containerImage: imageOf(container),
        status: 'success',
        details: `${container.env.length} variables revealed`,
      });
      // Secrets: no cache, shared or private, may keep this answer.
      c.header('Cache-Control', 'no-store');
      return c.json({ env: container.env.map(({ key, value }) => ({ key, value, sensitive: isSensitiveKey(key) })) });
    },
  );
}
