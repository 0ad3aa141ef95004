/**
 * What the Podman tests do with a podman service as users do it: the podman CLI (failing loudly),
 * and an app of `sleep 3600` pushed to a registry by podman itself, with or without a HEALTHCHECK.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { importBusyboxImage } from '../docker/test-images';
import type { TestRegistry } from '../registry/start-registry';
import type { TestPodman } from './start-podman';

/** `podman --remote …` on the service; its trimmed stdout, or an error with its stderr. */
export async function podmanCli(podman: TestPodman, ...args: string[]): Promise<string> {
  const result = await podman.cli(args);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * Pushes `registry/podman/app:<tag>` (busybox's `sleep 3600` with /version) and answers the
 * reference; the local copy is removed unless `keepLocal`. Podman's compatible import names the
 * image `<repo>:latest` whatever tag it is given (4.3.1): one repository per version, then tagged.
 */
export async function publishPodmanApp(
  podman: TestPodman,
  registry: TestRegistry,
  tag: string,
  keepLocal = false,
): Promise<string> {
  const reference = `${registry.host}/podman/app:${tag}`;
  const local = await importPodmanApp(podman, tag);
  await podmanCli(podman, 'tag', local, reference);
  await podmanCli(podman, 'push', reference);
  if (!keepLocal) await podmanCli(podman, 'rmi', local, reference);
  return reference;
}

/**
 * Pushes `registry/podman/<repository>:<tag>`: the same app with a HEALTHCHECK running `check`
 * every second, one failure making it unhealthy. Built by `podman build` in the Docker format (an
 * OCI image config has no health check; Podman 4.3's import refuses a HEALTHCHECK change).
 */
export async function publishCheckedPodmanApp(
  podman: TestPodman,
  registry: TestRegistry,
  repository: string,
  tag: string,
  check: string[],
): Promise<string> {
  const reference = `${registry.host}/podman/${repository}:${tag}`;
  const base = await importPodmanApp(podman, tag);
  const context = await mkdtemp(join(tmpdir(), 'dockwatch-podman-build-'));
  try {
    const healthcheck = `HEALTHCHECK --interval=1s --timeout=5s --retries=1 CMD ${JSON.stringify(check)}`;
    await writeFile(join(context, 'Containerfile'), `FROM ${base}\n${healthcheck}\n`);
    await podmanCli(podman, 'build', '--format', 'docker', '--tag', reference, context);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  await podmanCli(podman, 'push', reference);
  await podmanCli(podman, 'rmi', reference, base);
  return reference;
}

/** Imports the app's busybox image as `localhost/build/app-<tag>:latest` and answers that name. */
async function importPodmanApp(podman: TestPodman, tag: string): Promise<string> {
  // The test's own client over the socket, for the busybox import only.
  const docker = new Docker({ socketPath: podman.socketPath, host: undefined, port: undefined, protocol: 'http' });
  const local = `localhost/build/app-${tag}`;
  await importBusyboxImage(docker, {
    repository: local,
    tag: 'latest',
    cmd: ['sleep', '3600'],
    extraFile: { path: '/version', content: `${tag}\n` },
  });
  return `${local}:latest`;
}
