import { errorMessage } from '../../../shared/error-message';
import type { Container } from '../../../shared/schemas/container';
import type { UpdateOperation } from '../../../shared/update-engine';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { agentHostOf } from './agent-update-runner';
import { auditComposeFile } from './compose-audit';
import { type ImageHost, keepBackup } from './keep-backup';
import { swarmWatcherOf } from './swarm-update-job';
import { identityOf, triggerById, type UpdateContext, updatableWatcher, updateHostOf } from './update-context';

/**
 * Everything that follows a settled operation: the backup and the prune (success), the inventory
 * brought up to date through the watcher, the UI events, the notifications and the audit; the
 * dd:update-applied / dd:update-failed event marks the end of them.
 * An agent's container has the same backup and prune on its agent's host; its inventory follows
 * through the agent's own deltas. Never throws: the operation is settled whatever a follow-up does.
 */
export async function afterSettled(context: UpdateContext, operation: UpdateOperation): Promise<void> {
  const hub = context.hub;
  const logger = context.logger;
  // An agent's watcher may share its name with a local one: only local operations refresh through the hub's watcher.
  const reached = operation.agent === undefined ? updatableWatcher(context, operation.watcher) : undefined;
  const trigger = triggerById(context, operation.triggerName);
  const imageHost: ImageHost | undefined =
    operation.agent === undefined ? reached?.host : agentHostOf(context, operation);
  let record: Container | undefined;
  // The backup first: a client that reads `succeeded` may ask for a rollback at once, and the
  // inventory refresh that follows checks a registry, which can take seconds.
  try {
    if (operation.status === 'succeeded' && imageHost && trigger)
      await keepBackup(context, operation, trigger, imageHost);
  } catch (error) {
    logger.warn('keeping the backup of an update failed', { operationId: operation.id, error: errorMessage(error) });
  }
  try {
    if (reached) record = await refreshInventory(reached.watcher, operation);
    // A service keeps its id through an update: its record is read again and checked against its registry.
    const swarm = operation.agent === undefined ? swarmWatcherOf(context, operation.watcher) : undefined;
    if (swarm) record = (await swarm.watcher.watchContainer(operation.containerId)).container;
  } catch (error) {
    logger.warn('refreshing the inventory after an update failed', {
      operationId: operation.id,
      error: errorMessage(error),
    });
  }
  record ??=
    hub.containers.get(operation.newContainerId ?? operation.containerId) ?? hub.containers.get(operation.containerId);
  try {
    await announce(context, operation, record);
    await auditComposeFile(hub, operation);
  } catch (error) {
    logger.warn('announcing an update failed', { operationId: operation.id, error: errorMessage(error) });
  } finally {
    context.cancelled.delete(operation.id);
    if (context.claims.get(identityOf(operation)) === operation.id) context.claims.delete(identityOf(operation));
  }
}

/**
 * The old record goes and the new one is checked against its registry at once; after a rollback
 * the new record goes and the old one is checked again (the event stream may have dropped it
 * while it was stopped, and a rebuilt record must show its pending update again).
 */
async function refreshInventory(watcher: DockerWatcher, operation: UpdateOperation): Promise<Container | undefined> {
  if (operation.status === 'succeeded' && operation.newContainerId) {
    await watcher.refreshContainer(operation.containerId);
    return (await watcher.watchContainer(operation.newContainerId)).container;
  }
  if (operation.newContainerId) await watcher.refreshContainer(operation.newContainerId);
  return (await watcher.watchContainer(operation.containerId)).container;
}

/** http-interface §6.1 events, and the notification (which writes the update-applied / update-failed audit entry) or the rollback audit. */
async function announce(
  context: UpdateContext,
  operation: UpdateOperation,
  record: Container | undefined,
): Promise<void> {
  const hub = context.hub;
  const batchId = operation.batchId ?? null;
  const succeeded = operation.status === 'succeeded';
  const error = operation.lastError ?? operation.rollbackReason ?? 'the update did not complete';
  if (succeeded) {
    hub.publish('dd:update-applied', {
      containerName: operation.containerName,
      ...updateHostOf(operation),
      containerId: operation.containerId,
      newContainerId: operation.newContainerId ?? operation.containerId,
      operationId: operation.id,
      batchId,
    });
  } else {
    hub.publish('dd:update-failed', {
      containerName: operation.containerName,
      ...updateHostOf(operation),
      error,
      operationId: operation.id,
      batchId,
      phase: operation.phase,
      rollbackReason: operation.rollbackReason ?? null,
    });
  }
  const versions = {
    ...(operation.fromVersion !== undefined && { fromVersion: operation.fromVersion }),
    ...(operation.toVersion !== undefined && { toVersion: operation.toVersion }),
  };
  const cancelledBy = context.cancelled.get(operation.id);
  if (operation.kind === 'rollback' || cancelledBy !== undefined) {
    await hub.audit.append({
      action:
        operation.kind === 'rollback'
          ? operation.source === 'auto-rollback'
            ? 'auto-rollback'
            : 'rollback'
          : 'container-update',
      containerName: operation.containerName,
      containerImage: operation.targetImage,
      ...versions,
      ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
      status: cancelledBy !== undefined ? 'cancelled' : operation.status,
      details: `operation ${operation.id}${succeeded ? '' : `: ${error}`}`.slice(0, 500),
    });
    return;
  }
  if (!record) return;
  const input = {
    container: record,
    ...versions,
    ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
    operationId: operation.id,
  };
  if (succeeded) await hub.notifications.updateApplied(input);
  else await hub.notifications.updateFailed({ ...input, error, status: operation.status });
}
