/**
 * What the Podman tests do with a podman service as users do it: the podman CLI (failing loudly),
 * and an app of `sleep 3600` pushed to a registry by podman itself.
 */
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
  // The test's own client over the socket, for the busybox import only.
  const docker = new Docker({ socketPath: podman.socketPath, host: undefined, port: undefined, protocol: 'http' });
  const reference = `${registry.host}/podman/app:${tag}`;
  const local = `localhost/build/app-${tag}`;
  await importBusyboxImage(docker, {
    repository: local,
    tag: 'latest',
    cmd: ['sleep', '3600'],
    extraFile: { path: '/version', content: `${tag}\n` },
  });
  await podmanCli(podman, 'tag', `${local}:latest`, reference);
  await podmanCli(podman, 'push', reference);
  if (!keepLocal) await podmanCli(podman, 'rmi', `${local}:latest`, reference);
  return reference;
}
