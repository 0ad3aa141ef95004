/**
 * A Node base image for the Dockerfile's NODE_IMAGE argument, made offline (Docker Hub is
 * unreachable here): this machine's `node` binary and the shared libraries `ldd` lists, a static
 * busybox as /bin/sh (the Dockerfile's one RUN needs a shell, tests use its applets through
 * `docker exec`), /etc/passwd with root and `node` (uid 1000, as in the official image), imported
 * with `docker import`. Made once per dockerd; about 100 MB, most of it the node binary.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestDockerd } from './start-dockerd';

const BUSYBOX = '/bin/busybox';
export const NODE_BASE_IMAGE = 'localhost/dockwatch-test-node:20';

/** The files of a root filesystem: node at /usr/local/bin/node and every library at the path ldd names. */
function nodeFiles(): Map<string, string> {
  const node = realpathSync(process.execPath);
  const files = new Map<string, string>([['usr/local/bin/node', node]]);
  const listed = execFileSync('ldd', [node], { encoding: 'utf8' });
  for (const line of listed.split('\n')) {
    // `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` or `/lib64/ld-linux-x86-64.so.2 (0x…)`
    const path = /=>\s*(\/\S+)/.exec(line)?.[1] ?? /^\s*(\/\S+)\s*\(/.exec(line)?.[1];
    if (path) files.set(path.slice(1), realpathSync(path));
  }
  return files;
}

export async function makeNodeBaseImage(dockerd: TestDockerd, reference = NODE_BASE_IMAGE): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'dockwatch-node-rootfs-'));
  try {
    for (const dir of ['bin', 'etc', 'tmp', 'proc', 'sys', 'dev', 'root', 'home/node'])
      mkdirSync(join(root, dir), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    for (const [target, source] of nodeFiles()) {
      mkdirSync(dirname(join(root, target)), { recursive: true });
      copyFileSync(source, join(root, target));
    }
    copyFileSync(BUSYBOX, join(root, 'bin/busybox'));
    const applets = spawnSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).stdout.split('\n');
    for (const applet of applets) if (applet && applet !== 'busybox') symlinkSync('busybox', join(root, 'bin', applet));
    writeFileSync(
      join(root, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\n',
    );
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
    const tarball = join(root, '..', `${root.split('/').pop()}.tar`);
    execFileSync('tar', ['-C', root, '--numeric-owner', '--owner=0', '--group=0', '-cf', tarball, '.']);
    try {
      const imported = await dockerd.cli(['import', '--change', 'ENV PATH=/usr/local/bin:/bin', tarball, reference]);
      if (imported.code !== 0) throw new Error(`docker import of the Node base image failed: ${imported.stderr}`);
    } finally {
      rmSync(tarball, { force: true });
    }
    return reference;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
