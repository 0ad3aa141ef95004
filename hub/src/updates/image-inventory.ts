import {
  canUpdateContainers,
  type DockerContainerSummary,
  type DockerImageSummary,
  type UpdatableDockerHost,
} from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import { EdgeDockerHost } from '../agents/edge-docker-host';
import type { Fleet } from '../watchers/fleet';
import type { UpdateService } from './update-service';

/** The image list and prune: the watchers whose hosts hold images, and the updates that still need some. */
export interface ImageInventoryDeps {
  fleet: Pick<Fleet, 'all'>;
  updates: Pick<UpdateService, 'backups' | 'unsettled'>;
}

/** Why an image is kept: a container (any state) uses it, a kept backup needs it, or an unsettled update does. */
export type ImageKeptBy = 'container' | 'backup' | 'update-operation';

export interface ImageView {
  id: string;
  watcher: string;
  /** The edge agent whose host holds it; absent for the hub's own hosts. */
  agent?: string;
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
  agent?: string;
  error: string;
}

export interface ImageInventory {
  images: ImageView[];
  /** Hosts that could not be listed: nothing of theirs is shown, so nothing of theirs is pruned. */
  errors: HostFailure[];
}

/**
 * A Docker host as the image list and prune see it, the hub's own or an edge agent's: the same
 * loop serves both. `truncated` says the host listed only part of its images (an agent cuts its
 * answer to fit a frame).
 */
export interface ImageHost {
  watcher: string;
  agent?: string;
  listImages(): Promise<{ images: DockerImageSummary[]; truncated: boolean }>;
  listContainers(all: boolean): Promise<DockerContainerSummary[]>;
  /** Throws DockerConflictError while a container uses it (never forced); gone already is not an error. */
  removeImage(reference: string): Promise<void>;
}

function localImageHost(watcher: string, host: UpdatableDockerHost): ImageHost {
  return {
    watcher,
    listImages: async () => ({ images: await host.listImages(), truncated: false }),
    listContainers: (all) => host.listContainers(all),
    removeImage: (reference) => host.removeImage(reference),
  };
}

/** Users come from the inventory the agent pushes; images and removals are requests (`image.list`, `image.remove`). */
function agentImageHost(watcher: string, agent: string, host: EdgeDockerHost): ImageHost {
  return {
    watcher,
    agent,
    listImages: () => host.listImages(),
    listContainers: (all) => host.listContainers(all),
    removeImage: (reference) => host.removeImage(reference),
  };
}

/**
 * Every watcher's host that can list and remove images: the hub's own, and each edge agent's
 * (connected or not: one that is away fails its listing, and lands in `errors` under its name).
 */
export function imageHosts(deps: Pick<ImageInventoryDeps, 'fleet'>): ImageHost[] {
  return deps.fleet.all().flatMap((watcher) => {
    if (watcher.agent !== undefined)
      return watcher.host instanceof EdgeDockerHost ? [agentImageHost(watcher.name, watcher.agent, watcher.host)] : [];
    return canUpdateContainers(watcher.host) ? [localImageHost(watcher.name, watcher.host)] : [];
  });
}

/** The failure entry of a host, naming its agent when it has one. */
function failureOf(host: ImageHost, error: string): HostFailure {
  return { watcher: host.watcher, ...(host.agent !== undefined && { agent: host.agent }), error };
}

const NO_TAG = '<none>:<none>';
const NO_DIGEST = '<none>@<none>';

/** What no prune may touch, whatever the host: image ids are content addresses, so a backup's id is protected everywhere. */
function protectedByHub(deps: Pick<ImageInventoryDeps, 'updates'>): {
  backups: Set<string>;
  operationIds: Set<string>;
  operationRefs: Set<string>;
} {
  const backups = new Set(deps.updates.backups().map((backup) => backup.imageId));
  const operationIds = new Set<string>();
  const operationRefs = new Set<string>();
  for (const operation of deps.updates.unsettled()) {
    for (const id of [operation.targetImageId, operation.oldImageId]) if (id) operationIds.add(id);
    operationRefs.add(operation.targetImage);
  }
  return { backups, operationIds, operationRefs };
}

function viewOf(
  host: ImageHost,
  image: DockerImageSummary,
  users: Map<string, string[]>,
  guard: ReturnType<typeof protectedByHub>,
): ImageView {
  const repoTags = image.repoTags.filter((tag) => tag !== NO_TAG);
  const containers = users.get(image.id) ?? [];
  const keptBy: ImageKeptBy[] = [];
  if (containers.length > 0) keptBy.push('container');
  if (guard.backups.has(image.id)) keptBy.push('backup');
  if (guard.operationIds.has(image.id) || repoTags.some((tag) => guard.operationRefs.has(tag)))
    keptBy.push('update-operation');
  return {
    id: image.id,
    watcher: host.watcher,
    ...(host.agent !== undefined && { agent: host.agent }),
    repoTags,
    repoDigests: image.repoDigests.filter((digest) => digest !== NO_DIGEST),
    createdAt: new Date(image.createdAt).toISOString(),
    sizeBytes: image.sizeBytes,
    containers,
    keptBy,
    prunable: keptBy.length === 0,
  };
}

interface HostImages {
  images: ImageView[];
  /** Set when the host listed only part of its images: the rest is neither shown nor pruned. */
  partial?: HostFailure;
}

/** One host's images with who keeps each; containers are listed after images so one created meanwhile is seen. */
async function hostImages(deps: Pick<ImageInventoryDeps, 'updates'>, host: ImageHost): Promise<HostImages> {
  const { images, truncated } = await host.listImages();
  const users = new Map<string, string[]>();
  for (const container of await host.listContainers(true)) {
    users.set(container.imageId, [...(users.get(container.imageId) ?? []), container.name]);
  }
  const guard = protectedByHub(deps);
  const views = images
    .map((image) => viewOf(host, image, users, guard))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  if (!truncated) return { images: views };
  return {
    images: views,
    partial: failureOf(host, `listed only its first ${images.length} images; the others are not shown nor pruned`),
  };
}

/** Every image of the hub's hosts and of its edge agents' hosts, newest first per host. */
export async function listImages(deps: ImageInventoryDeps): Promise<ImageInventory> {
  const inventory: ImageInventory = { images: [], errors: [] };
  for (const host of imageHosts(deps)) {
    try {
      const { images, partial } = await hostImages(deps, host);
      inventory.images.push(...images);
      if (partial) inventory.errors.push(partial);
    } catch (error) {
      inventory.errors.push(failureOf(host, errorMessage(error)));
    }
  }
  return inventory;
}

export interface PruneResult {
  removed: ImageView[];
  /** Candidates Docker (or the agent) refused (a container created meanwhile uses it) or that failed; they stay. */
  skipped: { id: string; watcher: string; agent?: string; error: string }[];
  errors: HostFailure[];
  reclaimedBytes: number;
}

/**
 * Removes the prunable images (all of them, or those of `onlyIds`), each checked again just before
 * its removal; Docker refuses an image a container uses (an agent answers `conflict`), and nothing
 * is ever forced.
 */
export async function pruneImages(deps: ImageInventoryDeps, onlyIds?: readonly string[]): Promise<PruneResult> {
  const wanted = onlyIds ? new Set(onlyIds) : undefined;
  const result: PruneResult = { removed: [], skipped: [], errors: [], reclaimedBytes: 0 };
  for (const host of imageHosts(deps)) {
    let candidates: ImageView[];
    try {
      const { images, partial } = await hostImages(deps, host);
      candidates = images.filter((image) => image.prunable && (!wanted || wanted.has(image.id)));
      if (partial) result.errors.push(partial);
    } catch (error) {
      result.errors.push(failureOf(host, errorMessage(error)));
      continue;
    }
    for (const image of candidates) {
      const guard = protectedByHub(deps);
      if (
        guard.backups.has(image.id) ||
        guard.operationIds.has(image.id) ||
        image.repoTags.some((tag) => guard.operationRefs.has(tag))
      ) {
        result.skipped.push({ id: image.id, ...failureOf(host, 'an update or backup started to need it') });
        continue;
      }
      try {
        // By id an image with several tags is refused without force: its tags go one by one, the last removes it.
        if (image.repoTags.length > 1) for (const tag of image.repoTags) await host.removeImage(tag);
        else await host.removeImage(image.id);
        result.removed.push(image);
        result.reclaimedBytes += image.sizeBytes;
      } catch (error) {
        result.skipped.push({ id: image.id, ...failureOf(host, errorMessage(error)) });
      }
    }
  }
  return result;
}
