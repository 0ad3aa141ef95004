/**
 * A real dockerd (Debian's docker.io 20.10, API 1.41, unpacked by scripts/ensure-testbed.mjs into
 * .testbed/docker-root) with its own socket, data root, exec root and pidfile in a fresh temp dir.
 *
 * One per test file: start it in beforeAll, stop it in afterAll. Here it answers /_ping 0.15 to
 * 0.25 s after the spawn (its containerd included), and a stop takes under 0.1 s (its containers
 * removed, then the daemon killed and swept: see shutdown). A daemon shared across files (vitest
 * globalSetup) would save about 0.3 s per file and cost isolation: every file would see the others'
 * containers in its lists and event streams, and one file's stop would break the others.
 *
 * Flags: no default bridge and no iptables/ip-masq rules (nothing of the host's network changes);
 * the storage driver is left to dockerd, which picks overlay2 on this ext4 /tmp and falls back to
 * vfs where overlay is not possible. Registries on 127.0.0.0/8 are trusted as insecure by default.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { createDockerHost } from '../../../edge-agent/src/docker';
import type { DockerHost } from '../../../shared/docker/docker-host';
import { type CommandResult, runCommand } from '../run-command';
import { terminate } from '../terminate';
import { withTimeout } from '../with-timeout';
import { sweepLeftovers } from './sweep';

export type CliResult = CommandResult;

export interface TestDockerd {
  socketPath: string;
  /** The implementation under test, on this daemon. */
  dockerHost: DockerHost;
  /** A plain dockerode for test setup (images, containers), independent of the code under test. */
  docker: Docker;
  /** The unpacked docker CLI against this daemon; never the host's. */
  cli(args: string[]): Promise<CliResult>;
  logFile: string;
  /**
   * Stops the daemon (SIGTERM, its containers stopped as by a host's restart) and starts it again on
   * the same socket and data root; containers with a restart policy come back. Resolves once ready.
   */
  restart(): Promise<void>;
  /** Idempotent. Removes every container, stops the daemon by pid, and deletes the temp dir. */
  stop(): Promise<void>;
}

export const DOCKER_ROOT = fileURLToPath(new URL('../../../.testbed/docker-root', import.meta.url));
const DOCKERD = join(DOCKER_ROOT, 'usr/sbin/dockerd');
const DOCKER_CLI = join(DOCKER_ROOT, 'usr/bin/docker');
// dockerd finds containerd, its shim, docker-init and docker-proxy on PATH; runc comes from the system.
const BIN_PATH = [
  join(DOCKER_ROOT, 'usr/bin'),
  join(DOCKER_ROOT, 'usr/sbin'),
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
].join(':');
const START_TIMEOUT_MS = 30_000;
// dockerd stops its containers and containerd on SIGTERM; it is given longer than its own shutdown timeout.
const STOP_TIMEOUT_MS = 10_000;
const SHUTDOWN_TIMEOUT_S = 3;
/**
 * How long stop() waits for the force-removal of the containers (2.5 s for 28 of them on a quiet
 * machine). A removal the Engine never answers (seen once in a loaded CI run: an afterAll timed out
 * after 60 s) is then left to the daemon's shutdown, SIGKILL and the sweep, which end in bounded time.
 */
const REMOVE_TIMEOUT_MS = 20_000;
const MAX_SOCKET_PATH = 107;

/** Daemons a test never stopped are killed, and their dirs removed, when the worker exits. */
const live = new Map<ChildProcess, string>();
let exitHookInstalled = false;

export async function startDockerd(): Promise<TestDockerd> {
  if (!existsSync(DOCKERD))
    throw new Error(`${DOCKERD} not found; run \`node scripts/ensure-testbed.mjs\` to unpack dockerd`);
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-dockerd-'));
  const socketPath = join(dir, 'docker.sock');
  const logFile = join(dir, 'dockerd.log');
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`dockerd test socket path is too long for a unix socket (${socketPath}); set a shorter TMPDIR`);
  }
  // Its own config file: dockerd would otherwise read /etc/docker/daemon.json, and write its
  // identity key to /etc/docker/key.json.
  await writeFile(join(dir, 'daemon.json'), JSON.stringify({ 'deprecated-key-path': join(dir, 'key.json') }));
  let child = spawnDockerd(dir, socketPath, logFile);
  let exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilReady(child, socketPath, logFile);
  } catch (error) {
    await shutdown(child, exited, dir);
    throw error;
  }

  // Every connection key set: dockerode would otherwise take DOCKER_HOST from the environment over
  // socketPath, and stop() force-removes every container of the daemon it talks to.
  const docker = new Docker({
    socketPath,
    host: undefined,
    port: undefined,
    protocol: 'http',
    ca: undefined,
    cert: undefined,
    key: undefined,
  });
  const dockerHost = createDockerHost({ socketPath });
  let stopping: Promise<void> | undefined;
  return {
    socketPath,
    dockerHost,
    docker,
    logFile,
    cli: (args) => runCli(dir, socketPath, args),
    async restart() {
      await terminate(child, exited, STOP_TIMEOUT_MS);
      live.delete(child);
      child = spawnDockerd(dir, socketPath, logFile);
      exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await waitUntilReady(child, socketPath, logFile);
    },
    stop() {
      stopping ??= (async () => {
        await dockerHost.close();
        // Past the limit the removal is abandoned, not awaited: the shutdown and the sweep end it.
        await withTimeout(
          (async () => {
            await removeAllContainers(docker);
            await removeUserNetworks(docker);
          })(),
          `removing the containers and networks of test dockerd ${dir}`,
          REMOVE_TIMEOUT_MS,
        ).catch((error: Error) => console.warn(`${error.message}; stopping the daemon anyway`));
        await shutdown(child, exited, dir);
      })();
      return stopping;
    },
  };
}

function spawnDockerd(dir: string, socketPath: string, logFile: string): ChildProcess {
  const args = [
    `--host=unix://${socketPath}`,
    `--data-root=${join(dir, 'data')}`,
    `--exec-root=${join(dir, 'exec')}`,
    `--pidfile=${join(dir, 'dockerd.pid')}`,
    `--config-file=${join(dir, 'daemon.json')}`,
    '--bridge=none',
    '--iptables=false',
    '--ip6tables=false',
    '--ip-masq=false',
    // Containers left running at stop (a failed test) would otherwise hold the stop for 15 s.
    `--shutdown-timeout=${SHUTDOWN_TIMEOUT_S}`,
  ];
  const fd = openSync(logFile, 'w');
  try {
    // A clean environment: DOCKER_* or proxy variables of the host would change the daemon.
    const child = spawn(DOCKERD, args, { stdio: ['ignore', fd, fd], env: { PATH: BIN_PATH } });
    live.set(child, dir);
    installExitHook();
    return child;
  } finally {
    closeSync(fd);
  }
}

/** Ready when `GET /_ping` on its socket answers OK: the API is up and containerd is connected. */
async function waitUntilReady(child: ChildProcess, socketPath: string, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const reason = `code ${child.exitCode}, signal ${child.signalCode}`;
      throw new Error(
        `dockerd exited during start-up (${reason})\n--- dockerd log (tail) ---\n${await logTail(logFile)}`,
      );
    }
    if ((await ping(socketPath)) === 'OK') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `dockerd did not answer /_ping within ${START_TIMEOUT_MS} ms\n--- dockerd log (tail) ---\n${await logTail(logFile)}`,
  );
}

function ping(socketPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', agent: false, timeout: 2_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve(res.statusCode === 200 ? body : undefined));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(undefined));
    req.end();
  });
}

async function logTail(logFile: string): Promise<string> {
  const log = await readFile(logFile, 'utf8').catch(() => '');
  return log.split('\n').slice(-30).join('\n');
}

/** Force-removal kills at once; left to dockerd's shutdown, each container would get its stop timeout. */
async function removeAllContainers(docker: Docker): Promise<void> {
  const containers = await docker.listContainers({ all: true }).catch(() => []);
  await Promise.all(
    containers.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
}

/**
 * A user-defined bridge network is a Linux bridge in the host's namespace (`br-<id>`), which
 * dockerd keeps across its own shutdown: left alone, each one holds an address pool until the
 * defaults (31 of them) run out and no test can create a network any more.
 */
async function removeUserNetworks(docker: Docker): Promise<void> {
  const networks = await docker.listNetworks().catch(() => []);
  const own = networks.filter((network) => !['bridge', 'host', 'none'].includes(network.Name));
  await Promise.all(
    own.map((network) =>
      docker
        .getNetwork(network.Id)
        .remove()
        .catch(() => undefined),
    ),
  );
}

/**
 * The daemon is killed, not asked to stop: its containers and networks are gone by now (or given up
 * on), and the sweep ends what a graceful stop would have (containerd, shims, mounts) and deletes
 * the dir. dockerd's own shutdown took 1.1 s of every stop, most of it polling once a second for its
 * containerd's exit; killed, a stop takes a tenth of that.
 */
async function shutdown(child: ChildProcess, exited: Promise<void>, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
  live.delete(child);
  sweepLeftovers(dir);
}

function runCli(dir: string, socketPath: string, args: string[]): Promise<CliResult> {
  // DOCKER_CONFIG in the temp dir: the CLI must not read or write the user's ~/.docker.
  const env = { PATH: BIN_PATH, DOCKER_HOST: `unix://${socketPath}`, DOCKER_CONFIG: join(dir, 'cli-config') };
  return runCommand(DOCKER_CLI, args, { env });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [child, dir] of live) {
      child.kill('SIGKILL');
      sweepLeftovers(dir);
    }
  });
}
