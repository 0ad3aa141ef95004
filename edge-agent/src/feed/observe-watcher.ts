import type { DockerContainerDetails, DockerHost, DockerImageDetails } from '../../../shared/docker/docker-host';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';

export interface WatcherObservation {
  /** Inspected containers, sorted by name. */
  containers: DockerContainerDetails[];
  /** The images those containers use, each once. */
  images: DockerImageDetails[];
}

/** Docker calls in flight per observation: a large host is inspected quickly without flooding the Engine. */
export const INSPECT_CONCURRENCY = 8;

/**
 * One authoritative look at a watcher's Docker host: list (stopped containers too with
 * WATCHALL), inspect every container and each image once, under a concurrency cap. A container
 * removed between list and inspect is left out, as is, without WATCHALL, one that stopped
 * meanwhile (as the hub's own watchers do). Any other failure throws: the hub removes what a
 * snapshot lacks, so an incomplete snapshot must never be sent.
 */
export async function observeWatcher(
  host: DockerHost,
  watchAll: boolean,
  concurrency = INSPECT_CONCURRENCY,
): Promise<WatcherObservation> {
  const listed = await host.listContainers(watchAll);
  const limiter = createConcurrencyLimiter(concurrency);
  const images = new Map<string, Promise<DockerImageDetails | undefined>>();
  const imageOf = (id: string) => {
    let image = images.get(id);
    if (!image) {
      image = limiter.run(() => host.inspectImage(id));
      images.set(id, image);
    }
    return image;
  };
  const inspected = await Promise.all(
    listed.map(async (summary) => {
      const details = await limiter.run(() => host.inspectContainer(summary.id));
      if (!details || (!watchAll && details.state !== 'running')) return undefined;
      await imageOf(details.imageId);
      return details;
    }),
  );
  const containers = inspected
    .filter((c): c is DockerContainerDetails => c !== undefined)
    .sort((a, b) => a.name.localeCompare(b.name));
  const used = new Set(containers.map((c) => c.imageId));
  const resolved = await Promise.all([...images].filter(([id]) => used.has(id)).map(([, image]) => image));
  return { containers, images: resolved.filter((i): i is DockerImageDetails => i !== undefined) };
}
