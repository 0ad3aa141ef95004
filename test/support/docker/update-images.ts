/**
 * Versions of one small application for update tests, built offline from the busybox root
 * filesystem of test-images.ts and pushed to a test registry over its HTTP API:
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
import { type PushTarget, pushFilesystemImage } from '../registry/push-image';
import type { TestRegistry } from '../registry/start-registry';
import type { TestDockerd } from './start-dockerd';
import { busyboxLayer, fileLayer } from './test-images';

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
 * Pushes `<registry>/<repository>:<tag>` of that kind straight to the registry (no daemon
 * involved), and pulls it into the test dockerd only with `keepLocal`, so a container created from
 * it must have been pulled. Every version is the shared busybox layer plus one small layer of its
 * own: a daemon unpacks busybox once, not once per image (import and push through dockerd cost
 * more CPU than the rest of many a test). Answers the full reference.
 */
export async function publishApp(
  dockerd: TestDockerd,
  registry: PushTarget & Pick<TestRegistry, 'host'>,
  options: { repository: string; tag: string; kind: AppKind; keepLocal?: boolean },
): Promise<string> {
  const reference = `${registry.host}/${options.repository}:${options.tag}`;
  const { cmd, healthcheck } = shapeOf(options.kind);
  await pushFilesystemImage(registry, {
    repository: options.repository,
    tags: [options.tag],
    layers: [
      busyboxLayer(),
      fileLayer({ path: '/www/index.html', content: `${options.repository} ${options.tag} ${options.kind}\n` }),
    ],
    config: {
      Cmd: cmd,
      ...(healthcheck && {
        Healthcheck: { Test: ['CMD', ...healthcheck], Interval: 500_000_000, Timeout: 5_000_000_000, Retries: 1 },
      }),
    },
  });
  if (options.keepLocal) await pullApp(dockerd, reference);
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
    NetworkDisabled: true,
    HostConfig: { Init: true, NetworkMode: 'none' },
  });
  await created.start();
  return created.id;
}
