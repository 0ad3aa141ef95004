/**
 * What a dockerd that did not shut down cleanly (SIGKILL, a crash, a worker exiting) leaves behind,
 * found through its own temp dir only, so parallel daemons and anything else on the machine are
 * never touched: runc containers, containerd and its shims (and their sockets), and overlay mounts
 * under the data root.
 * Synchronous, so the worker's exit hook can run it too.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

const RUNC = '/usr/sbin/runc';
const SHIM_SOCKETS = '/run/containerd/s';

/** `dir` is a daemon's own temp dir (`dockwatch-dockerd-XXXXXX`); it is deleted last. */
export function sweepLeftovers(dir: string): void {
  // Everything below kills and deletes by this path: never let a wrong argument reach it.
  if (!basename(dir).startsWith('dockwatch-dockerd-')) throw new Error(`sweep: not a test dockerd dir: ${dir}`);
  deleteRuncContainers(dir);
  killProcessesMentioning(dir);
  unmountUnder(dir);
  // Overlay layers hold root-owned read-only files; as root (which dockerd needs) rm -rf removes them.
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * `runc delete --force` kills a container's processes and removes its cgroups. A shim killed
 * before its container leaves its socket in containerd's global /run/containerd/s, named by the
 * hash of the daemon's containerd address, namespace and container id: that one is removed too.
 */
function deleteRuncContainers(dir: string): void {
  const root = join(dir, 'exec', 'runtime-runc', 'moby');
  if (!existsSync(root)) return;
  const address = join(dir, 'exec', 'containerd', 'containerd.sock');
  for (const id of readdirSync(root)) {
    spawnSync(RUNC, ['--root', root, 'delete', '--force', id], { stdio: 'ignore' });
    const socket = createHash('sha256')
      .update(join(address, 'moby', id))
      .digest('hex');
    rmSync(join(SHIM_SOCKETS, socket), { force: true });
  }
}

/** containerd (`--config <dir>/…`) and its shims (`-address <dir>/…`) name the dir on their command line. */
function killProcessesMentioning(dir: string): void {
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    if (!cmdline.includes(`${dir}/`)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}

/** Deepest first, lazily: a process that has not died yet may still hold a mount busy. */
function unmountUnder(dir: string): void {
  const mountPoints = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => unescapeMountPath(line.split(' ')[4] ?? ''))
    .filter((path) => path === dir || path.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const path of mountPoints) spawnSync('umount', ['-l', path], { stdio: 'ignore' });
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
