import { DockerConflictError, type DockerImageDetails } from '../../../shared/docker/docker-host';
import { splitReference } from '../../../shared/docker/image-names';
import { errorMessage } from '../../../shared/error-message';
import { parseImageReference } from '../../../shared/registry/image-reference';
import type { UpdateOperation } from '../../../shared/update-engine';
import type { DockerActionTrigger } from './action-triggers';
import type { ImageBackup } from './backup-store';
import { identityOf, isoNow, type UpdateContext } from './update-context';

/**
 * What keeping a backup needs of the Docker host the container runs on: a local watcher's host,
 * or an edge agent's (EdgeDockerHost reads the agent's inventory and removes through `image.remove`).
 */
export interface ImageHost {
  inspectImage(id: string): Promise<DockerImageDetails | undefined>;
  /** Throws DockerConflictError while a container uses it (never forced); gone already is not an error. */
  removeImage(reference: string): Promise<void>;
}

/** The digest the old image was pulled by, in its own repository (http-interface §2.7 imageDigest); undefined when unknown. */
async function digestOf(
  context: UpdateContext,
  host: ImageHost,
  imageId: string,
  reference: string,
): Promise<string | undefined> {
  let image: DockerImageDetails | undefined;
  try {
    image = await host.inspectImage(imageId);
  } catch (error) {
    // The backup is still worth keeping: a rollback re-tags the kept image by its id.
    context.logger.debug('the digest of a replaced image is unknown', { image: imageId, error: errorMessage(error) });
    return undefined;
  }
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
 * One backup per successful update (http-interface §2.7), the newest BACKUPCOUNT kept per container, for a
 * local container and an agent's alike. With PRUNE, images that no kept backup names any more are
 * removed from the container's host; the host refuses (409 / `conflict`) any a container still
 * uses, and that refusal is left standing.
 */
export async function keepBackup(
  context: UpdateContext,
  operation: UpdateOperation,
  trigger: DockerActionTrigger,
  host: ImageHost,
): Promise<void> {
  if (!operation.oldImage || !operation.oldImageId) return;
  const { repository, tag } = splitReference(operation.oldImage);
  const digest = await digestOf(context, host, operation.oldImageId, operation.oldImage);
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
      context.logger.info('pruned an image no backup needs', {
        image: imageId,
        container: operation.containerName,
        ...(operation.agent !== undefined && { agent: operation.agent }),
      });
    } catch (error) {
      const level = error instanceof DockerConflictError ? 'debug' : 'warn';
      context.logger[level]('an image was not pruned', { image: imageId, error: errorMessage(error) });
    }
  }
}
