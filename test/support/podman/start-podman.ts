/**
 * A real Podman service (Debian 12's podman 4.3.1, installed by scripts/ensure-testbed.mjs) on its
 * own socket, with its own storage root, run root, temp dir, configuration and network config dir
 * in a fresh temp dir, so that it shares no state with any other Podman or test.
 *
 * What runs on the test machine (root, cgroup v1 hybrid, no systemd): the `vfs` storage driver
 * (kernel overlay also works here, vfs works everywhere, including /tmp on overlayfs), `runc` (Debian
 * recommends crun, which fails here with "cgroups in hybrid mode"), the `cgroupfs` cgroup manager,
 * events in a file, file locks in the temp dir (not the shared /dev/shm/libpod_lock), and no default
 * ulimits (Podman's exceed this sandbox's hard limits). Containers and pods of the tests use
 * `--network none`: a CNI bridge would change the host's network. Pods need `catatonit` for their
 * infra container's local pause image (no registry is reachable to pull one).
 *
 * Outside the temp dir it writes only containers/image's blob cache
 * (/var/lib/containers/cache/blob-info-cache-v1.boltdb, a cache of which registry has which blob).
 *
 * Rootless (`rootless: true`): the same service run as an unprivileged user (rootless-user.ts),
 * which Podman puts in a user namespace of its own mapping the user's subordinate ids, held by a
 * pause process (`catatonit -P`). Its XDG_RUNTIME_DIR (runc's state, the pause process's) is in the
 * temp dir too, so two rootless services of the same user share nothing. The test, as root, reaches
 * its socket and runs the podman CLI against it.
 *
 * Podman is daemonless: each container's conmon outlives the service. stop() removes every
 * container through the API first; a service that never stopped (a crashed worker) is swept by
 * its temp dir: its containers deleted from runc's state, its conmons and its pause process killed,
 * its mounts unmounted.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type CommandResult, runCommand } from '../run-command';
import { terminate } from '../terminate';
import { type RootlessUser, rootlessUser } from './rootless-user';

export interface TestPodman {
  socketPath: string;
  /** `podman --remote` against this service: images, containers and pods made the way users make them. */
  cli(args: string[]): Promise<CommandResult>;
  logFile: string;
  /** The user the service runs as when it is rootless. */
  user?: RootlessUser;
  /** Idempotent. Removes every container and pod, stops the service, and deletes the temp dir. */
  stop(): Promise<void>;
}

export interface StartPodmanOptions {
  /** Registries reached over plain HTTP (`127.0.0.1:PORT`); the first is also the search registry for short names. */
  insecureRegistries?: string[];
  /** Runs the service as the unprivileged test user, rootless. */
  rootless?: boolean;
}

export const PODMAN = '/usr/bin/podman';
const RUNC = '/usr/sbin/runc';
/** Where rootful Podman keeps runc's container state, whatever its run root. */
const RUNC_STATE = '/run/runc';
/** A rootless service's XDG_RUNTIME_DIR, under its temp dir; runc keeps its state in `runc` there. */
const ROOTLESS_RUNTIME_DIR = 'xdg';
const DIR_PREFIX = 'dockwatch-podman-';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;
const MAX_SOCKET_PATH = 107;

const live = new Map<ChildProcess, string>();
let exitHookInstalled = false;

export async function startPodman(options: StartPodmanOptions = {}): Promise<TestPodman> {
  if (!existsSync(PODMAN))
    throw new Error(`${PODMAN} not found; run \`node scripts/ensure-testbed.mjs\` to install podman`);
  const user = options.rootless ? rootlessUser() : undefined;
  const dir = await mkdtemp(join(tmpdir(), DIR_PREFIX));
  const socketPath = join(dir, 'podman.sock');
  const logFile = join(dir, 'service.log');
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`podman test socket path is too long for a unix socket (${socketPath}); set a shorter TMPDIR`);
  }
  const env = await writeConfiguration(dir, options.insecureRegistries ?? [], user);
  const child = spawnService(dir, socketPath, logFile, env, user);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilReady(child, socketPath, logFile);
  } catch (error) {
    await terminate(child, exited, STOP_TIMEOUT_MS);
    live.delete(child);
    sweepPodmanLeftovers(dir);
    throw error;
  }
  const cli = (args: string[]) => runCommand(PODMAN, ['--remote', '--url', `unix://${socketPath}`, ...args], { env });
  let stopping: Promise<void> | undefined;
  return {
    socketPath,
    cli,
    logFile,
    ...(user && { user }),
    stop() {
      stopping ??= (async () => {
        // Killed at once (`--time 0`): a pod's containers would otherwise get 10 s each to stop.
        await cli(['rm', '--all', '--force', '--time', '0']).catch(() => undefined);
        await cli(['pod', 'rm', '--all', '--force', '--time', '0']).catch(() => undefined);
        await terminate(child, exited, STOP_TIMEOUT_MS);
        live.delete(child);
        sweepPodmanLeftovers(dir);
      })();
      return stopping;
    },
  };
}

/** containers.conf and registries.conf of this service only, passed through the environment. */
async function writeConfiguration(dir: string, insecure: string[], user?: RootlessUser): Promise<NodeJS.ProcessEnv> {
  const containersConf = [
    '[containers]',
    'default_ulimits = []',
    '[network]',
    `network_config_dir = "${join(dir, 'cni')}"`,
    '[engine]',
    'runtime = "runc"',
    'cgroup_manager = "cgroupfs"',
    'events_logger = "file"',
    'lock_type = "file"',
    '',
  ].join('\n');
  const registriesConf = [
    `unqualified-search-registries = ${JSON.stringify(insecure.slice(0, 1))}`,
    'short-name-mode = "permissive"',
    ...insecure.flatMap((location) => ['[[registry]]', `location = "${location}"`, 'insecure = true']),
    '',
  ].join('\n');
  await writeFile(join(dir, 'containers.conf'), containersConf);
  await writeFile(join(dir, 'registries.conf'), registriesConf);
  // A clean environment: the host's CONTAINER_HOST, XDG_* or proxies would change the service.
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: dir,
    CONTAINERS_CONF: join(dir, 'containers.conf'),
    CONTAINERS_REGISTRIES_CONF: join(dir, 'registries.conf'),
  };
  if (!user) return env;
  // Rootless Podman wants a private runtime dir (the user has no /run/user/<uid> without a login
  // session); the user owns the whole temp dir, where Podman makes its storage and run dirs.
  const runtimeDir = join(dir, ROOTLESS_RUNTIME_DIR);
  await mkdir(runtimeDir, { mode: 0o700 });
  for (const path of [dir, runtimeDir, env.CONTAINERS_CONF, env.CONTAINERS_REGISTRIES_CONF] as string[])
    chownSync(path, user.uid, user.gid);
  return { ...env, XDG_RUNTIME_DIR: runtimeDir };
}

function spawnService(
  dir: string,
  socketPath: string,
  logFile: string,
  env: NodeJS.ProcessEnv,
  user?: RootlessUser,
): ChildProcess {
  const args = [
    `--root=${join(dir, 'root')}`,
    `--runroot=${join(dir, 'run')}`,
    `--tmpdir=${join(dir, 'tmp')}`,
    '--storage-driver=vfs',
    '--cgroup-manager=cgroupfs',
    '--runtime=runc',
    'system',
    'service',
    '--time=0',
    `unix://${socketPath}`,
  ];
  const fd = openSync(logFile, 'w');
  try {
    const identity = user ? { uid: user.uid, gid: user.gid } : {};
    const child = spawn(PODMAN, args, { stdio: ['ignore', fd, fd], env, ...identity });
    live.set(child, dir);
    installExitHook();
    return child;
  } finally {
    closeSync(fd);
  }
}

async function waitUntilReady(child: ChildProcess, socketPath: string, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`podman system service exited during start-up\n--- log (tail) ---\n${log.slice(-3000)}`);
    }
    if (await pingOk(socketPath)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`podman system service did not answer /_ping within ${START_TIMEOUT_MS} ms`);
}

function pingOk(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

/**
 * Synchronous, for the exit hook too; only ever acts on this service's own temp dir: the runc
 * containers its storage names, processes whose command line names the dir (conmon, cleanup) or
 * whose environment does (a rootless service's pause process), mounts under it.
 */
export function sweepPodmanLeftovers(dir: string): void {
  if (!basename(dir).startsWith(DIR_PREFIX)) throw new Error(`sweep: not a test podman dir: ${dir}`);
  const containers = join(dir, 'run', 'vfs-containers');
  const ids = existsSync(containers) ? readdirSync(containers).filter((id) => /^[0-9a-f]{64}$/.test(id)) : [];
  // Root deletes a rootless container too (runc kills its process and drops its state).
  const rootlessState = join(dir, ROOTLESS_RUNTIME_DIR, 'runc');
  const state = existsSync(rootlessState) ? rootlessState : RUNC_STATE;
  for (const id of ids) spawnSync(RUNC, ['--root', state, 'delete', '--force', id], { stdio: 'ignore' });
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (!namesDir(pid, 'cmdline', dir) && !namesDir(pid, 'environ', dir)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((path) => path.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const path of mounts) spawnSync('umount', ['-l', path], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

function namesDir(pid: number, file: 'cmdline' | 'environ', dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8').includes(`${dir}/`);
  } catch {
    return false; // exited meanwhile, or not ours to read
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [child, dir] of live) {
      child.kill('SIGKILL');
      sweepPodmanLeftovers(dir);
    }
  });
}
