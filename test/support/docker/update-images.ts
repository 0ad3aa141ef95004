/**
 * Versions of one small application for update tests, built offline from the busybox root
 * filesystem of test-images.ts and pushed to a test registry with the test dockerd's CLI:
 *
 * - `http`: busybox httpd as PID 1 on port 80, serving `/index.html` = the version (downtime is
 *   measured against it), no healthcheck;
 * - `healthy` / `unhealthy`: the same with a healthcheck that passes (`true`) or fails (`false`);
 * - `exits`: exits at once with code 3, no healthcheck;
 * - `flaky`: healthy until a file `/tmp/bad` appears in the container (automatic rollback tests);
 * - `env-gated`: healthy unless the container sets `DD_TEST_UNHEALTHY` (one image that fails on one host only);
 * - `sleep`: `sleep 3600`, no healthcheck;
 * - `slow-healthy`: a health probe that takes 4 s (healthy after ~4.5 s): an update stays in its gate that long.
 */
import type { TestRegistry } from '../registry/start-registry';
import type { TestDockerd } from './start-dockerd';
import { importBusyboxImage } from './test-images';

export type AppKind = 'http' | 'healthy' | 'unhealthy' | 'flaky' | 'env-gated' | 'exits' | 'sleep' | 'slow-healthy';

const HTTPD = ['httpd', '-f', '-p', '80', '-h', '/www'];

function shapeOf(kind: AppKind): { cmd: string[]; healthcheck?: string[] } {
  switch (kind) {
    case 'http':
      return { cmd: HTTPD };
    case 'healthy':
      return { cmd: HTTPD, healthcheck: ['true'] };
    case 'unhealthy':
      return { cmd: HTTPD, healthcheck: ['false'] };
    case 'flaky':
      return { cmd: HTTPD, healthcheck: ['sh', '-c', 'test ! -e /tmp/bad'] };
    case 'env-gated':
      return { cmd: HTTPD, healthcheck: ['sh', '-c', 'test -z "$DD_TEST_UNHEALTHY"'] };
    case 'exits':
      return { cmd: ['sh', '-c', 'exit 3'] };
    case 'sleep':
      return { cmd: ['sleep', '3600'] };
    case 'slow-healthy':
      return { cmd: HTTPD, healthcheck: ['sh', '-c', 'sleep 4'] };
  }
}

async function cli(dockerd: TestDockerd, args: string[]): Promise<void> {
  const result = await dockerd.cli(args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
}

/**
 * Builds `<registry>/<repository>:<tag>` of that kind, pushes it, and removes the local tags so a
 * container created from it must have been pulled. Answers the full reference.
 */
export async function publishApp(
  dockerd: TestDockerd,
  registry: Pick<TestRegistry, 'host'>,
  options: { repository: string; tag: string; kind: AppKind; keepLocal?: boolean },
): Promise<string> {
  const reference = `${registry.host}/${options.repository}:${options.tag}`;
  const local = `local/${options.repository.replace(/\//g, '-')}:${options.tag}-${options.kind}`;
  const [repository, tag] = local.split(':') as [string, string];
  await importBusyboxImage(dockerd.docker, {
    repository,
    tag,
    ...shapeOf(options.kind),
    extraFile: { path: '/www/index.html', content: `${options.repository} ${options.tag} ${options.kind}\n` },
  });
  await cli(dockerd, ['tag', local, reference]);
  await cli(dockerd, ['push', reference]);
  await cli(dockerd, ['rmi', local]);
  if (!options.keepLocal) await cli(dockerd, ['rmi', reference]);
  return reference;
}

/** Pulls a published reference into the test dockerd (so a container can be created from it). */
export async function pullApp(dockerd: TestDockerd, reference: string): Promise<void> {
  await cli(dockerd, ['pull', reference]);
}

/** Starts a watched container of a pulled reference, without a network, quick to stop; answers its id. */
export async function startWatchedApp(
  dockerd: TestDockerd,
  name: string,
  reference: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const created = await dockerd.docker.createContainer({
    name,
    Image: reference,
    Labels: { 'dd.watch': 'true', ...labels },
    StopTimeout: 2,
    HostConfig: { Init: true, NetworkMode: 'none' },
  });
  await created.start();
  return created.id;
}
