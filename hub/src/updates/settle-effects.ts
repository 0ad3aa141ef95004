import { DockerConflictError, type UpdatableDockerHost } from '../../../shared/docker/docker-host';
import { splitReference } from '../../../shared/docker/image-names';
import { parseImageReference } from '../../../shared/registry/image-reference';
import type { Container } from '../../../shared/schemas/container';
import { errorText, type UpdateOperation } from '../../../shared/update-engine';
import type { DockerWatcher } from '../watchers/docker-watcher';
import type { DockerActionTrigger } from './action-triggers';
import type { ImageBackup } from './backup-store';
import { identityOf, isoNow, triggerById, type UpdateContext, updatableWatcher } from './update-context';

/**
 * Everything that follows a settled operation: the inventory brought up to date through the
 * watcher, the backup and the prune (success), the UI events, the notifications and the audit.
 * Never throws: the operation is settled whatever a follow-up does.
 */
export async function afterSettled(context: UpdateContext, operation: UpdateOperation): Promise<void> {
  const services = context.services();
  const logger = context.logger;
  const reached = updatableWatcher(context, operation.watcher);
  const trigger = triggerById(context, operation.triggerName);
  let record: Container | undefined;
  try {
    if (reached) record = await refreshInventory(reached.watcher, operation);
    if (operation.status === 'succeeded' && reached && trigger) await keepBackup(context, operation, trigger, reached.host);
  } catch (error) {
    logger.warn('a follow-up of an update failed', { operationId: operation.id, error: errorText(error) });
  }
  record ??= services.containers.get(operation.newContainerId ?? operation.containerId) ?? services.containers.get(operation.containerId);
  try {
    await announce(context, operation, record);
  } catch (error) {
    logger.warn('announcing an update failed', { operationId: operation.id, error: errorText(error) });
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

/** The digest the old image was pulled by, in its own repository (spec 2.7 imageDigest). */
async function digestOf(host: UpdatableDockerHost, imageId: string, reference: string): Promise<string | undefined> {
  const image = await host.inspectImage(imageId);
  if (!image) return undefined;
  let repository: string;
  try {
    const parsed = parseImageReference(reference);
    repository = `${parsed.registry}/${parsed.repository}`;
  } catch {
    return undefined;
  }
  for (const entry of image.repoDigests) {
    const at = entry.lastIndexOf('@');
    try {
      const named = parseImageReference(entry.slice(0, at));
      if (`${named.registry}/${named.repository}` === repository) return entry.slice(at + 1);
    } catch {
      // an entry that is not a reference says nothing about this repository
    }
  }
  return undefined;
}

/**
 * One backup per successful update (spec 2.7), the newest BACKUPCOUNT kept per container. With
 * PRUNE, images that no kept backup names any more are removed; Docker itself refuses (409) any a
 * container still uses, and that refusal is left standing.
 */
async function keepBackup(context: UpdateContext, operation: UpdateOperation, trigger: DockerActionTrigger, host: UpdatableDockerHost) {
  if (!operation.oldImage || !operation.oldImageId) return;
  const { repository, tag } = splitReference(operation.oldImage);
  const digest = await digestOf(host, operation.oldImageId, operation.oldImage);
  const backup: ImageBackup = {
    id: operation.id,
    containerId: operation.containerId,
    containerName: operation.containerName,
    imageName: repository,
    imageTag: tag ?? '',
    ...(digest !== undefined && { imageDigest: digest }),
    timestamp: isoNow(context),
    triggerName: trigger.id,
    identity: identityOf(operation),
    imageReference: operation.oldImage,
    imageId: operation.oldImageId,
    operationId: operation.id,
    ...(operation.spec && { spec: operation.spec }),
  };
  const dropped = await context.backups.add(backup, trigger.backupCount);
  if (!trigger.prune) return;
  const candidates = new Set(dropped.map((old) => old.imageId));
  if (trigger.backupCount === 0) candidates.add(operation.oldImageId);
  const needed = new Set(context.backups.all().map((kept) => kept.imageId));
  for (const imageId of candidates) {
    if (needed.has(imageId)) continue;
    try {
      await host.removeImage(imageId);
      context.logger.info('pruned an image no backup needs', { image: imageId, container: operation.containerName });
    } catch (error) {
      const level = error instanceof DockerConflictError ? 'debug' : 'warn';
      context.logger[level]('an image was not pruned', { image: imageId, error: errorText(error) });
    }
  }
}

/** Spec 6.1 events, and the notification (which writes the update-applied / update-failed audit entry) or the rollback audit. */
async function announce(context: UpdateContext, operation: UpdateOperation, record: Container | undefined): Promise<void> {
  const services = context.services();
  const batchId = operation.batchId ?? null;
  const succeeded = operation.status === 'succeeded';
  const error = operation.lastError ?? operation.rollbackReason ?? 'the update did not complete';
  if (succeeded) {
    services.publish('dd:update-applied', {
      containerName: operation.containerName,
      containerId: operation.containerId,
      newContainerId: operation.newContainerId ?? operation.containerId,
      operationId: operation.id,
      batchId,
    });
  } else {
    services.publish('dd:update-failed', {
      containerName: operation.containerName,
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
    await services.audit.append({
      action: operation.kind === 'rollback' ? (operation.source === 'auto-rollback' ? 'auto-rollback' : 'rollback') : 'container-update',
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
  if (succeeded) await services.notifications.updateApplied(input);
  else await services.notifications.updateFailed({ ...input, error, status: operation.status });
}
