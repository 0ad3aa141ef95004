import type { Context } from 'hono';
import { imageOf } from '../../../shared/containers/container-record';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { FleetLookups } from '../checks/fleet-lookups';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { HubMetrics } from '../metrics/hub-metrics';
import { type ContainerHosts, watcherOf } from '../routes/container-target';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { toPublicContainer } from '../watchers/public-container';
import { resolveContainerName } from './resolve-container-name';
import type { ActionWebhook } from './webhook-config';
import { createWebhookGuard, WEBHOOK_STATUSES, type WebhookGuardDeps } from './webhook-guard';
import { checkWebhookToken } from './webhook-token';
import { startWebhookUpdate, type WebhookUpdateDeps } from './webhook-update';

const TOKEN_STATUSES = {
  ...WEBHOOK_STATUSES,
  401: 'Webhook token missing or wrong (Authorization: Bearer <token>)',
  500: 'Webhooks are enabled but no action webhook token is configured',
} as const;

const PER_CONTAINER_STATUSES = {
  ...TOKEN_STATUSES,
  403: 'Webhooks are disabled, or the container is labelled dd.webhook.enabled=false',
  404: 'No container of that name (after the agent and watcher filters)',
  409: 'The name exists on several agents or watchers; the message lists the agent/watcher pairs',
  503: 'The container’s watcher or agent is not available',
} as const;

const SELECTOR_QUERY = {
  agent: qText({ maxLength: 128, description: 'An agent’s name, or __local__ for the hub’s own containers' }),
  watcher: qText({ maxLength: 128, description: 'Watcher name' }),
};

/** The action webhooks: their guard and tokens, the containers they name, the watchers and updates they start. */
export interface ActionWebhookRoutesDeps extends WebhookGuardDeps, ContainerHosts, WebhookUpdateDeps {
  logger: Logger;
  metrics: Pick<HubMetrics, 'webhooks'>;
  audit: Pick<AuditStore, 'append'>;
  containers: Pick<ContainerStore, 'all'>;
  /** The fleet's registry lookups, begun afresh by a watch; absent without registry providers. */
  registries: { lookups: Pick<FleetLookups, 'beginCycle'> } | undefined;
}

/**
 * The action webhooks (http-interface §4.11, §5.8): for CI systems, authenticated by their bearer token only
 * (so `access` is public: sessions and API keys do not open them), limited to 30 calls per 15
 * minutes per address, audited, and counted in dd_webhook_total.
 */
export function registerActionWebhookRoutes(api: RouteGroup, deps: ActionWebhookRoutesDeps): void {
  const guard = createWebhookGuard(deps, 'action');
  const logger = deps.logger.child('webhooks.action');

  async function admit(c: Context<HubEnv>, endpoint: ActionWebhook, action: string): Promise<void> {
    guard(c);
    await checkWebhookToken(c, deps.config.webhooks.tokens, endpoint);
    deps.metrics.webhooks.inc({ action });
  }

  const audit = (record: AuditRecord) => deps.audit.append(record);
  const auditContainer = (action: AuditRecord['action'], container: Container, status: string, details?: string) =>
    audit({
      action,
      containerName: container.name,
      containerImage: imageOf(container),
      status,
      ...(details !== undefined && { details }),
    });

  /** The named container, if it accepts webhooks (the label `dd.webhook.enabled=false` opts out). */
  function target(c: Context<HubEnv>, query: { agent?: string | undefined; watcher?: string | undefined }): Container {
    const container = resolveContainerName(deps.containers.all(), c.req.param('containerName') ?? '', query);
    if (!container.webhookEnabled) {
      throw new HttpError(
        403,
        `The container ${container.name} does not accept webhooks (label dd.webhook.enabled=false)`,
        {
          containerName: container.name,
        },
      );
    }
    return container;
  }

  api.add(
    {
      method: 'post',
      path: '/webhook/watch',
      access: 'public',
      ownCredential: true,
      securityScheme: 'webhookToken',
      tag: 'webhooks',
      summary:
        'Watch every container now (webhook token); folded into a running scheduled cycle’s follow-up when one runs',
      statuses: TOKEN_STATUSES,
    },
    async (c) => {
      await admit(c, 'watchall', 'watch');
      // As the scheduled scan and POST /containers/watch: one fresh lookup cycle the whole fleet joins.
      deps.registries?.lookups.beginCycle();
      const outcomes = await Promise.allSettled(deps.fleet.all().map((watcher) => watcher.watch({ joinCycle: true })));
      const done = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      const coalesced = done.some((result) => result.coalesced);
      const failedWatchers = outcomes.length - done.length;
      const errors = done.reduce((sum, result) => sum + result.errors.length, 0);
      await audit({
        action: 'webhook-watch',
        status: failedWatchers > 0 ? 'failed' : 'succeeded',
        details: `${outcomes.length} watchers, ${failedWatchers} failed, coalesced: ${coalesced}`,
      });
      logger.info('webhook watch of every watcher', { watchers: outcomes.length, failedWatchers, coalesced });
      return c.json({
        message: `Watched ${outcomes.length} watchers`,
        result: {
          watchers: outcomes.length,
          failedWatchers,
          errors,
          containers: deps.containers.all().length,
          coalesced,
        },
      });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/webhook/watch/:containerName',
      access: 'public',
      ownCredential: true,
      securityScheme: 'webhookToken',
      tag: 'webhooks',
      summary: 'Watch one container now, by name (webhook token)',
      query: SELECTOR_QUERY,
      statuses: PER_CONTAINER_STATUSES,
    },
    async (c, { query }) => {
      await admit(c, 'watch', 'watch-container');
      const container = target(c, query);
      const watcher = watcherOf(deps, container);
      // Fresh registry answers: a CI system calls this right after pushing.
      deps.registries?.lookups.beginCycle();
      const { container: updated, errors } = await watcher.watchContainer(container.id);
      const unreachable = errors.find((error) => error.phase !== 'check');
      if (unreachable || !updated) {
        await auditContainer(
          'webhook-watch-container',
          container,
          'failed',
          unreachable?.message.slice(0, 300) ?? 'the container is gone',
        );
        if (unreachable)
          throw new HttpError(
            503,
            `Docker did not answer for ${container.watcher}: ${unreachable.message.slice(0, 300)}`,
          );
        throw new HttpError(404, `The container ${container.name} is gone`);
      }
      await auditContainer(
        'webhook-watch-container',
        updated,
        'succeeded',
        updated.error ? `check failed: ${updated.error.message}` : undefined,
      );
      return c.json({
        message: `Watched container ${updated.name}`,
        result: { container: toPublicContainer(updated) },
      });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/webhook/update/:containerName',
      access: 'public',
      ownCredential: true,
      securityScheme: 'webhookToken',
      tag: 'webhooks',
      summary: 'Queue an update of one container, by name (webhook token), as POST /containers/{id}/update does',
      query: SELECTOR_QUERY,
      successStatus: 202,
      statuses: {
        ...PER_CONTAINER_STATUSES,
        400: 'No update is available for the container',
        403: 'Webhooks or container actions are disabled, or the container is labelled dd.webhook.enabled=false',
        404: 'No container of that name, or no Docker action trigger for its watcher',
        409: 'The name is ambiguous (agent/watcher pairs listed), or an update is already queued or running, or labels exclude it',
        503: 'Its watcher is not available, or its edge agent is not connected',
      },
    },
    async (c, { query }) => {
      await admit(c, 'update', 'update');
      const container = target(c, query);
      try {
        const { operationId } = await startWebhookUpdate(deps, container);
        await auditContainer('webhook-update', container, 'queued', operationId);
        return c.json(
          {
            message: `Update of ${container.name} queued`,
            operationId,
            result: { container: toPublicContainer(container) },
          },
          202,
        );
      } catch (error) {
        await auditContainer('webhook-update', container, 'failed', errorMessage(error).slice(0, 300));
        throw error;
      }
    },
  );
}
