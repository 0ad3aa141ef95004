/**
 * Running the project's images on a test dockerd through its CLI (the way a user runs them):
 * `docker run` with checked exit codes, waiting for a URL or a health status, a timed
 * `docker stop`, and the socket's group for `--group-add`.
 */
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import type { TestDockerd } from './start-dockerd';

export async function docker(dockerd: TestDockerd, args: string[]): Promise<string> {
  const result = await dockerd.cli(args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout.trim();
}

/** The group owning the daemon's socket: what `--group-add` gives a non-root container user. */
export const socketGroup = (dockerd: TestDockerd) => String(statSync(dockerd.socketPath).gid);

/**
 * `docker run -d` arguments of a hub container as the image tests run it: on the host network at
 * 127.0.0.1:`port`, the test daemon's socket mounted in its group, the `dockwatch-data` volume, the
 * given variables, and a 1 s health interval so its health shows within the test.
 */
export function hubRunArgs(
  dockerd: TestDockerd,
  options: { name: string; port: number; image: string; env: Record<string, string> },
): string[] {
  return [
    'run',
    '-d',
    '--name',
    options.name,
    '--network',
    'host',
    '--group-add',
    socketGroup(dockerd),
    '-v',
    `${dockerd.socketPath}:/var/run/docker.sock`,
    '-v',
    'dockwatch-data:/app/data',
    ...Object.entries({ DD_SERVER_HOST: '127.0.0.1', DD_SERVER_PORT: String(options.port), ...options.env }).flatMap(
      ([key, value]) => ['-e', `${key}=${value}`],
    ),
    '--health-interval',
    '1s',
    '--health-start-period',
    '1s',
    options.image,
  ];
}

/** A free loopback port, for a container on the host network. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Polls until `ready(response)` holds, failing with the container's log after the deadline. */
export async function waitForHttp(
  dockerd: TestDockerd,
  container: string,
  url: string,
  ready: (response: Response) => Promise<boolean> | boolean = (response) => response.status === 200,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (await ready(response)) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const logs = await dockerd.cli(['logs', '--tail', '40', container]);
  throw new Error(
    `${url} not ready after ${timeoutMs} ms (${last})\n--- ${container} log ---\n${logs.stdout}${logs.stderr}`,
  );
}

export async function inspect(dockerd: TestDockerd, container: string) {
  return dockerd.docker.getContainer(container).inspect();
}

/** Waits until Docker's HEALTHCHECK reports this status (the images run it with --health-interval 1s in tests). */
export async function waitForHealth(dockerd: TestDockerd, container: string, status: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let seen: string | undefined;
  while (Date.now() < deadline) {
    const state = (await inspect(dockerd, container)).State;
    seen = state.Health?.Status;
    if (seen === status) return;
    if (!state.Running) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const log = (await inspect(dockerd, container)).State.Health?.Log?.at(-1)?.Output ?? '';
  throw new Error(`${container}: health ${seen ?? 'none'}, not ${status} (last probe: ${log.trim()})`);
}

/** `docker stop` with Docker's default 10 s grace: how long it took and the exit code the process chose. */
export async function stopTimed(
  dockerd: TestDockerd,
  container: string,
): Promise<{ ms: number; exitCode: number; oomKilled: boolean }> {
  const started = performance.now();
  await docker(dockerd, ['stop', container]);
  const ms = Math.round(performance.now() - started);
  const state = (await inspect(dockerd, container)).State;
  return { ms, exitCode: state.ExitCode, oomKilled: state.OOMKilled };
}
