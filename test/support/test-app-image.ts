/**
 * The `test/app` image the hub end-to-end tests on a dockerd (containers-e2e, label-overrides-e2e)
 * publish, the in-process hub they watch it with, and their wait.
 */
import type { NodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import type { TestDockerd } from './docker/start-dockerd';
import { importBusyboxImage } from './docker/test-images';
import type { TestRegistry } from './registry/start-registry';

/** `<registry>/test/app:<tag>`. */
export const testAppRef = (registry: TestRegistry, tag: string) => `${registry.host}/test/app:${tag}`;

/** Builds busybox `test/app:<build>` (sleep, a /build file holding `build`) and pushes it as `test/app:<tag>`. */
export async function publishTestApp(
  dockerd: TestDockerd,
  registry: TestRegistry,
  tag: string,
  build: string,
): Promise<void> {
  await importBusyboxImage(dockerd.docker, {
    repository: 'test/app',
    tag: build,
    cmd: ['sleep', '3600'],
    extraFile: { path: '/build', content: build },
  });
  for (const args of [
    ['tag', `test/app:${build}`, testAppRef(registry, tag)],
    ['push', testAppRef(registry, tag)],
  ]) {
    const result = await dockerd.cli(args);
    if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
  }
}

/** The hub as `npm start` runs it, in process on a loopback port, its one watcher on the dockerd (no jitter). */
export function startWatchingHub(dockerd: TestDockerd, storePath: string): Promise<NodeHub> {
  return startNodeHub({
    env: {
      DD_STORE_PATH: storePath,
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
      DD_WATCHER_LOCAL_JITTER: '0',
    },
    sink: silentSink,
  });
}

/** Polls `condition` every 50 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
