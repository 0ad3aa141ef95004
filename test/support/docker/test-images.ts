/**
 * Test images without any registry: a root filesystem of one static busybox (Debian's
 * busybox-static) written as a tar in memory and imported (`POST /images/create?fromSrc=-`), with
 * CMD and HEALTHCHECK set through the import's `changes`. An imported image has no RepoDigests
 * until it is pushed: digests come from registries, not from the Engine.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';

const BUSYBOX = '/bin/busybox';
// Fixed, so the same files give the same layer (the image id still differs: the config has a date).
const MTIME = Date.UTC(2024, 0, 1) / 1000;

export interface BusyboxImageOptions {
  repository: string;
  tag: string;
  /** One more file in the root filesystem: a "newer build" with another layer and id. */
  extraFile?: { path: string; content: string };
  /** Defaults to `/bin/sh`. */
  cmd?: string[];
  /** The probe's command (exec form); it runs every 500 ms and one failure makes the container unhealthy. */
  healthcheck?: string[];
  /** Image config labels (`LABEL`), such as `org.opencontainers.image.source`. */
  labels?: Record<string, string>;
}

/** Imports the image as `repository:tag` and returns its id (`sha256:…`). */
export async function importBusyboxImage(docker: Docker, options: BusyboxImageOptions): Promise<string> {
  const reference = `${options.repository}:${options.tag}`;
  const changes = [`CMD ${JSON.stringify(options.cmd ?? ['/bin/sh'])}`];
  if (options.healthcheck) {
    changes.push(`HEALTHCHECK --interval=500ms --timeout=5s --retries=1 CMD ${JSON.stringify(options.healthcheck)}`);
  }
  for (const [key, value] of Object.entries(options.labels ?? {})) {
    changes.push(`LABEL ${JSON.stringify(key)}=${JSON.stringify(value)}`);
  }
  const progress = await docker.importImage(Readable.from([rootFilesystem(options.extraFile)]), {
    repo: options.repository,
    tag: options.tag,
    changes,
  });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(progress, (error, messages: Array<{ error?: string }>) => {
      const failed = error?.message ?? messages.find((message) => message.error)?.error;
      if (failed) reject(new Error(`import of ${reference} failed: ${failed}`));
      else resolve();
    });
  });
  const image = await docker.getImage(reference).inspect();
  return image.Id;
}

export interface RunContainerOptions {
  name: string;
  image: string;
  labels?: Record<string, string>;
  env?: string[];
  cmd?: string[];
  tty?: boolean;
}

/**
 * Creates and starts a container; returns its id. It runs under docker-init (tini) without a
 * network: busybox `sleep` as PID 1 ignores SIGTERM, and every stop would wait out its timeout.
 */
export async function runContainer(docker: Docker, options: RunContainerOptions): Promise<string> {
  const container = await docker.createContainer({
    name: options.name,
    Image: options.image,
    Labels: options.labels ?? {},
    Env: options.env ?? [],
    ...(options.cmd ? { Cmd: options.cmd } : {}),
    Tty: options.tty ?? false,
    StopTimeout: 2,
    // No network at all, as every test bed container: dockerd then skips the two re-executions of
    // itself that set up a container's network namespace at each start (CONTRIBUTING.md).
    NetworkDisabled: true,
    HostConfig: { Init: true, NetworkMode: 'none' },
  });
  await container.start();
  return container.id;
}

let baseEntries: TarEntry[] | undefined;
let baseLayer: Buffer | undefined;

function rootFilesystem(extraFile: BusyboxImageOptions['extraFile']): Buffer {
  if (!extraFile) return busyboxLayer();
  baseEntries ??= busyboxEntries();
  // The base has the directories already (a tar naming one twice is refused by the Engine).
  return tar([...baseEntries, fileEntry(extraFile)]);
}

/**
 * The busybox root filesystem as one uncompressed layer, the same bytes for every image of a
 * process: images built on it share that layer, so a daemon unpacks it once, not per image.
 */
export function busyboxLayer(): Buffer {
  baseEntries ??= busyboxEntries();
  baseLayer ??= tar(baseEntries);
  return baseLayer;
}

/** A layer of one file (and its directories) to put over busyboxLayer(). */
export function fileLayer(file: { path: string; content: string }): Buffer {
  const entry = fileEntry(file);
  const parents = entry.path.split('/').slice(0, -1);
  const dirs = parents.map(
    (_, index): TarEntry => ({ path: parents.slice(0, index + 1).join('/'), type: 'dir', mode: 0o755 }),
  );
  return tar([...dirs, entry]);
}

function fileEntry(file: { path: string; content: string }): TarEntry {
  return { path: file.path.replace(/^\/+/, ''), type: 'file', mode: 0o644, content: Buffer.from(file.content) };
}

/** Every applet busybox has, as a symlink: tests may run any of them through `sh -c`. */
function busyboxEntries(): TarEntry[] {
  const listed = spawnSync(BUSYBOX, ['--list'], { encoding: 'utf8' });
  if (listed.error || listed.status !== 0)
    throw new Error(`${BUSYBOX} --list failed; run \`node scripts/ensure-testbed.mjs\` to install busybox-static`);
  const applets = listed.stdout.split('\n').filter((name) => name !== '' && name !== 'busybox');
  const dirs = ['bin', 'dev', 'etc', 'proc', 'root', 'sys', 'tmp'].map(
    (path): TarEntry => ({ path, type: 'dir', mode: path === 'tmp' ? 0o1777 : 0o755 }),
  );
  return [
    ...dirs,
    { path: 'bin/busybox', type: 'file', mode: 0o755, content: readFileSync(BUSYBOX) },
    ...applets.map((name): TarEntry => ({ path: `bin/${name}`, type: 'symlink', mode: 0o777, target: 'busybox' })),
    { path: 'etc/passwd', type: 'file', mode: 0o644, content: Buffer.from('root:x:0:0:root:/root:/bin/sh\n') },
    { path: 'etc/group', type: 'file', mode: 0o644, content: Buffer.from('root:x:0:\n') },
  ];
}

interface TarEntry {
  path: string;
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  content?: Buffer;
  target?: string;
}

const BLOCK = 512;
const TYPE_FLAGS = { file: '0', symlink: '2', dir: '5' } as const;

/** A minimal ustar writer: regular files, directories and symlinks with names under 100 bytes. */
function tar(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const content = entry.type === 'file' ? (entry.content ?? Buffer.alloc(0)) : Buffer.alloc(0);
    blocks.push(tarHeader(entry, content.length));
    if (content.length > 0) blocks.push(content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK));
  }
  // The archive ends with two zero blocks.
  blocks.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(blocks);
}

function tarHeader(entry: TarEntry, size: number): Buffer {
  const name = entry.type === 'dir' ? `${entry.path}/` : entry.path;
  if (Buffer.byteLength(name) >= 100 || Buffer.byteLength(entry.target ?? '') >= 100)
    throw new Error(`tar: name too long: ${name}`);
  const header = Buffer.alloc(BLOCK);
  header.write(name, 0, 'utf8');
  writeOctal(header, entry.mode, 100, 8);
  writeOctal(header, 0, 108, 8); // uid
  writeOctal(header, 0, 116, 8); // gid
  writeOctal(header, size, 124, 12);
  writeOctal(header, MTIME, 136, 12);
  header.write(TYPE_FLAGS[entry.type], 156, 'ascii');
  header.write(entry.target ?? '', 157, 'utf8');
  header.write('ustar\u000000', 257, 'ascii');
  header.write('root', 265, 'ascii');
  header.write('root', 297, 'ascii');
  // The checksum is summed with its own field as eight spaces, then written as six octal digits, NUL, space.
  header.fill(' ', 148, 156);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'ascii');
  return header;
}

function writeOctal(header: Buffer, value: number, offset: number, length: number): void {
  header.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, 'ascii');
}
