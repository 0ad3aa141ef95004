import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Decider } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { isTerminal, type UpdateOperation, type UpdateSource } from '../../../shared/update-engine';
import { HttpError } from '../http/http-error';
import { assertAgentReachable } from './agent-update-runner';
import { assertUpdateModeAllows } from './auto-update-policy';
import { pullAuthFor } from './pull-auth';
import { autoRollbackWindowMs } from './rollback-labels';
import { swarmRollbackTarget, swarmWatcherOf } from './swarm-update-job';
import {
  assertLocal,
  assertMature,
  assertNotBusy,
  assertNotLifeline,
  findUpdatable,
  resolveTrigger,
} from './update-checks';
import { identityOf, isoNow, publishChanged, type UpdateContext } from './update-context';
import { groupOf, type UpdateJobs } from './update-jobs';
import { currentVersion, updateTargetOf } from './update-target';

export interface UpdateRequestOptions {
  /** An action trigger by id (`docker.x`) or name; the first one of the container's watcher when absent. */
  triggerName?: string | undefined;
  source: UpdateSource;
  batchId?: string | undefined;
  /** Who asked, for an API request: an approval remembers them (docs/approvals.md "Separation of duties"). */
  requestedBy?: Decider | undefined;
}

export interface RollbackRequestOptions {
  /** The latest backup of the container when absent. */
  backupId?: string | undefined;
  source?: 'rollback' | 'auto-rollback';
}

/**
 * What may be asked of the update queue (http-interface §4.8, §2.7): an update, a rollback to a
 * backup, a cancel. Each is checked (throwing the HttpError of its refusal), then the container is
 * claimed, the operation journalled and queued.
 */
export function createUpdateRequests(context: UpdateContext, jobs: UpdateJobs, stopping: () => boolean) {
  const { hub, store, scheduler } = context;

  function newOperation(
    container: Container,
    fields: Pick<UpdateOperation, 'kind' | 'source' | 'targetImage'> & Partial<UpdateOperation>,
  ): UpdateOperation {
    const now = isoNow(context);
    return {
      id: crypto.randomUUID(),
      containerName: container.name,
      containerId: container.id,
      watcher: container.watcher,
      ...(container.agent !== undefined && { agent: container.agent }),
      status: 'queued',
      phase: 'prepare',
      createdAt: now,
      updatedAt: now,
      ...fields,
    };
  }

  /** Claims the container synchronously (the lock), then journals and queues; the claim goes if the write fails. */
  async function admit(container: Container, operation: UpdateOperation): Promise<UpdateOperation> {
    // A request that arrived before the shutdown began: the queue takes no job any more.
    if (stopping())
      throw new HttpError(503, 'The hub is shutting down; nothing was changed', { reason: 'shutting-down' });
    context.claims.set(identityOf(operation), operation.id);
    try {
      await store.save(operation);
    } catch (error) {
      context.claims.delete(identityOf(operation));
      throw error;
    }
    jobs.enqueue(operation, groupOf(container));
    publishChanged(context, operation);
    return operation;
  }

  /** Awaited before the busy check: nothing may come between that check and the claim in admit(). */
  async function assertMayStart(container: Container): Promise<void> {
    // A service's tasks run on the swarm's nodes: the hub's lifeline guard is about its own Docker host.
    if (container.agent === undefined && swarmWatcherOf(context, container.watcher)) {
      assertNotBusy(context, container);
      return;
    }
    await assertNotLifeline(
      context,
      container,
      container.agent === undefined ? assertLocal(context, container).host : undefined,
    );
    assertNotBusy(context, container);
    if (container.agent !== undefined) assertAgentReachable(context, container);
  }

  return {
    async requestUpdate(containerId: string, request: UpdateRequestOptions): Promise<UpdateOperation> {
      const container = findUpdatable(context, containerId);
      assertUpdateModeAllows(hub.settings.get().updateMode, request.source);
      const trigger = resolveTrigger(context, container, request.triggerName);
      const target = updateTargetOf(container);
      if (!target)
        throw new HttpError(400, `No update is available for ${container.name}`, { reason: 'no-update-available' });
      assertMature(container);
      // Before the approval: a candidate blocked by its findings must not open an approval request.
      await hub.security?.admit(container, target);
      // Every other refusal first would be nicer, but this one writes (a new approval): it must not
      // come between the busy check and the claim below. An approved candidate passes.
      await hub.approvals?.admit(container, target, request.source, request.requestedBy);
      // The hub's own container: swapped by a helper container instead of refused (docs/updates.md "Self-update").
      if (container.agent === undefined && hub.selfUpdates?.applies(container.id)) {
        const operation = newOperation(container, {
          kind: 'update',
          source: request.source,
          triggerName: trigger.id,
          ...target,
        });
        await hub.selfUpdates.start({
          operation,
          host: assertLocal(context, container).host,
          auth: await pullAuthFor(hub, operation.targetImage),
          healthTimeoutMs: trigger.healthTimeoutMs,
        });
        await hub.approvals?.executed(container, target, operation.id);
        return operation;
      }
      await assertMayStart(container);
      // A service rolls back under its own UpdateConfig (FailureAction, Monitor), not dd.rollback.auto.
      const swarm = container.agent === undefined && swarmWatcherOf(context, container.watcher) !== undefined;
      const window = swarm ? undefined : autoRollbackWindowMs(actingLabels(container));
      const operation = newOperation(container, {
        kind: 'update',
        source: request.source,
        triggerName: trigger.id,
        ...target,
        ...(request.batchId !== undefined && { batchId: request.batchId }),
        ...(window !== undefined && { autoRollbackWindowMs: window }),
      });
      await admit(container, operation);
      await hub.approvals?.executed(container, target, operation.id);
      await hub.audit.append({
        action: 'container-update',
        containerName: container.name,
        containerImage: target.targetImage,
        fromVersion: target.fromVersion,
        toVersion: target.toVersion,
        triggerName: trigger.id,
        status: 'queued',
        details: `operation ${operation.id} (${request.source})`,
      });
      return operation;
    },

    async requestRollback(containerId: string, request: RollbackRequestOptions = {}): Promise<UpdateOperation> {
      const container = findUpdatable(context, containerId);
      const trigger = resolveTrigger(context, container);
      const swarm = container.agent === undefined ? swarmWatcherOf(context, container.watcher) : undefined;
      if (swarm) {
        const target = await swarmRollbackTarget(swarm.host, container);
        await assertMayStart(container);
        return admit(
          container,
          newOperation(container, {
            kind: 'rollback',
            source: request.source ?? 'rollback',
            triggerName: trigger.id,
            ...target,
          }),
        );
      }
      const identity = containerIdentity(container);
      const backup =
        request.backupId === undefined
          ? context.backups.ofIdentity(identity)[0]
          : context.backups.get(request.backupId);
      if (!backup || backup.identity !== identity) {
        const message =
          request.backupId === undefined
            ? `${container.name} has no backup to roll back to`
            : `Unknown backup ${request.backupId.slice(0, 80)}`;
        throw new HttpError(404, message, { reason: 'no-backup' });
      }
      await assertMayStart(container);
      const operation = newOperation(container, {
        kind: 'rollback',
        source: request.source ?? 'rollback',
        triggerName: trigger.id,
        targetImage: backup.imageReference,
        targetImageId: backup.imageId,
        ...(backup.imageDigest !== undefined && { targetDigest: backup.imageDigest }),
        fromVersion: currentVersion(container),
        toVersion: backup.imageTag || backup.imageDigest || backup.imageId,
        backupId: backup.id,
      });
      return admit(container, operation);
    },

    async cancel(operationId: string, by: string): Promise<UpdateOperation> {
      const operation = store.get(operationId);
      if (!operation) throw new HttpError(404, `Unknown update operation ${operationId.slice(0, 80)}`);
      if (isTerminal(operation)) {
        throw new HttpError(409, `The operation is already ${operation.status}`, {
          reason: 'settled',
          status: operation.status,
        });
      }
      context.cancelled.set(operationId, by);
      const outcome = scheduler.cancel(operationId, `cancelled by ${by}`);
      if (outcome === 'dequeued') {
        await jobs.failUnstarted(operation, `cancelled by ${by} before it started; nothing was changed`);
        return store.get(operationId) ?? operation;
      }
      if (outcome === 'unknown') {
        context.cancelled.delete(operationId);
        throw new HttpError(409, 'The operation is being recovered and cannot be cancelled', { reason: 'recovering' });
      }
      return operation;
    },
  };
}
