import type { TestDockerd } from '../../test/support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../../test/support/docker/test-images';
import { mapLimit } from './map-limit';

// Kept here for its importers; it lives apart so that importing it starts no Docker test bed.
export { mapLimit } from './map-limit';

async function cli(dockerd: TestDockerd, args: string[]): Promise<void> {
  const result = await dockerd.cli(args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr.trim()}`);
}

/**
 * One build of `repository` (a busybox image with its own marker file, so its own layer and
 * digest), tagged and pushed with the real docker CLI as `<registryHost>/<repository>:<tag>` for
 * every tag: the daemon then holds the RepoDigests a pulled image would have.
 */
export async function publishBuild(
  dockerd: TestDockerd,
  registryHost: string,
  repository: string,
  build: string,
  tags: readonly string[],
): Promise<void> {
  await importBusyboxImage(dockerd.docker, {
    repository,
    tag: build,
    cmd: ['sleep', '3600'],
    extraFile: { path: '/build', content: `${repository}-${build}` },
  });
  for (const tag of tags) {
    const reference = `${registryHost}/${repository}:${tag}`;
    await cli(dockerd, ['tag', `${repository}:${build}`, reference]);
    await cli(dockerd, ['push', reference]);
  }
}

export interface CreatedFleet {
  ids: string[];
  /** The first creation that failed (the machine holds no more); creation stopped there. */
  error?: Error;
}

/**
 * Creates and starts up to `count` containers named `<prefix><n>`, cycling through `images`. A
 * failure stops further creations instead of failing the run: the fleet is what the machine held.
 */
export async function createContainers(
  dockerd: TestDockerd,
  images: readonly string[],
  count: number,
  options: { prefix: string; parallelism: number; onProgress?: (done: number) => void },
): Promise<CreatedFleet> {
  const ids: string[] = [];
  let error: Error | undefined;
  await mapLimit(
    Array.from({ length: count }, (_, n) => n),
    options.parallelism,
    async (n) => {
      if (error) return;
      try {
        ids.push(
          await runContainer(dockerd.docker, {
            name: `${options.prefix}${n}`,
            image: images[n % images.length] as string,
          }),
        );
      } catch (caught) {
        error ??= caught as Error;
        return;
      }
      if (ids.length % 100 === 0) options.onProgress?.(ids.length);
    },
  );
  return error ? { ids, error } : { ids };
}

/** Force-removes the containers (a kill, no stop timeout); a container already gone is fine. */
export async function removeContainers(
  dockerd: TestDockerd,
  ids: readonly string[],
  parallelism: number,
): Promise<void> {
  await mapLimit(ids, parallelism, (id) =>
    dockerd.docker
      .getContainer(id)
      .remove({ force: true, v: true })
      .catch((error: { statusCode?: number }) => {
        if (error.statusCode !== 404) throw error;
      }),
  );
}
