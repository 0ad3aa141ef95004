import { canUpdateContainers, type DockerImageSummary, type UpdatableDockerHost } from '../../../shared/docker/docker-host';
import { errorText } from '../../../shared/update-engine';
import type { HubServices } from '../hub-services';

/** Why an image is kept: a container (any state) uses it, a kept backup needs it, or an unsettled update does. */
export type ImageKeptBy = 'container' | 'backup' | 'update-operation';

export interface ImageView {
  id: string;
  watcher: string;
  repoTags: string[];
  repoDigests: string[];
  /** ISO 8601. */
  createdAt: string;
  sizeBytes: number;
  /** Names of the containers (any state, temporary `-old-` ones included) created from it. */
  containers: string[];
  keptBy: ImageKeptBy[];
  prunable: boolean;
}

export interface HostFailure {
  watcher: string;
  error: string;
}

export interface ImageInventory {
  images: ImageView[];
  /** Hosts that could not be listed: nothing of theirs is shown, so nothing of theirs is pruned. */
  errors: HostFailure[];
}

/** The hub's own watchers whose host can list and remove images (edge agents' hosts cannot yet). */
export function localImageHosts(services: HubServices): { watcher: string; host: UpdatableDockerHost }[] {
  return services.watchers.flatMap((watcher) =>
    watcher.agent === undefined && canUpdateContainers(watcher.host) ? [{ watcher: watcher.name, host: watcher.host }] : [],
  );
}

const NO_TAG = '<none>:<none>';
const NO_DIGEST = '<none>@<none>';

/** What no prune may touch, whatever the host: image ids are content addresses, so a backup's id is protected everywhere. */
function protectedByHub(services: HubServices): { backups: Set<string>; operationIds: Set<string>; operationRefs: Set<string> } {
  const backups = new Set(services.updates.backups().map((backup) => backup.imageId));
  const operationIds = new Set<string>();
  const operationRefs = new Set<string>();
  for (const operation of services.updates.unsettled()) {
    for (const id of [operation.targetImageId, operation.oldImageId]) if (id) operationIds.add(id);
    operationRefs.add(operation.targetImage);
  }
  return { backups, operationIds, operationRefs };
}

function viewOf(
  watcher: string,
  image: DockerImageSummary,
  users: Map<string, string[]>,
  guard: ReturnType<typeof protectedByHub>,
): ImageView {
  const repoTags = image.repoTags.filter((tag) => tag !== NO_TAG);
  const containers = users.get(image.id) ?? [];
  const keptBy: ImageKeptBy[] = [];
  if (containers.length > 0) keptBy.push('container');
  if (guard.backups.has(image.id)) keptBy.push('backup');
  if (guard.operationIds.has(image.id) || repoTags.some((tag) => guard.operationRefs.has(tag))) keptBy.push('update-operation');
  return {
    id: image.id,
    watcher,
    repoTags,
    repoDigests: image.repoDigests.filter((digest) => digest !== NO_DIGEST),
    createdAt: new Date(image.createdAt).toISOString(),
    sizeBytes: image.sizeBytes,
    containers,
    keptBy,
    prunable: keptBy.length === 0,
  };
}

/** One host's images with who keeps each; containers are listed after images so one created meanwhile is seen. */
async function hostImages(services: HubServices, watcher: string, host: UpdatableDockerHost): Promise<ImageView[]> {
  const images = await host.listImages();
  const users = new Map<string, string[]>();
  for (const container of await host.listContainers(true)) {
    users.set(container.imageId, [...(users.get(container.imageId) ?? []), container.name]);
  }
  const guard = protectedByHub(services);
  return images.map((image) => viewOf(watcher, image, users, guard)).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}

/** Every image of the local watchers' hosts, newest first per host. */
export async function listImages(services: HubServices): Promise<ImageInventory> {
  const inventory: ImageInventory = { images: [], errors: [] };
  for (const { watcher, host } of localImageHosts(services)) {
    try {
      inventory.images.push(...(await hostImages(services, watcher, host)));
    } catch (error) {
      inventory.errors.push({ watcher, error: errorText(error) });
    }
  }
  return inventory;
}

export interface PruneResult {
  removed: ImageView[];
  /** Candidates Docker refused (a container created meanwhile uses it) or that failed; they stay. */
  skipped: { id: string; watcher: string; error: string }[];
  errors: HostFailure[];
  reclaimedBytes: number;
}

/**
 * Removes the prunable images (all of them, or those of `onlyIds`), each checked again just before
 * its removal; Docker refuses an image a container uses, and nothing is ever forced.
 */
export async function pruneImages(services: HubServices, onlyIds?: readonly string[]): Promise<PruneResult> {
  const wanted = onlyIds ? new Set(onlyIds) : undefined;
  const result: PruneResult = { removed: [], skipped: [], errors: [], reclaimedBytes: 0 };
  for (const { watcher, host } of localImageHosts(services)) {
    let candidates: ImageView[];
    try {
      candidates = (await hostImages(services, watcher, host)).filter((image) => image.prunable && (!wanted || wanted.has(image.id)));
    } catch (error) {
      result.errors.push({ watcher, error: errorText(error) });
      continue;
    }
    for (const image of candidates) {
      const guard = protectedByHub(services);
      if (guard.backups.has(image.id) || guard.operationIds.has(image.id) || image.repoTags.some((tag) => guard.operationRefs.has(tag))) {
        result.skipped.push({ id: image.id, watcher, error: 'an update or backup started to need it' });
        continue;
      }
      try {
        // By id an image with several tags is refused without force: its tags go one by one, the last removes it.
        if (image.repoTags.length > 1) for (const tag of image.repoTags) await host.removeImage(tag);
        else await host.removeImage(image.id);
        result.removed.push(image);
        result.reclaimedBytes += image.sizeBytes;
      } catch (error) {
        result.skipped.push({ id: image.id, watcher, error: errorText(error) });
      }
    }
  }
  return result;
}
