import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { defineDriver } from 'unstorage';
import { createConcurrencyLimiter, type RequestLimiter } from '../../../../shared/registry/request-limiter';
import { coalescedDirectorySyncs } from './directory-syncs';

/**
 * One file per key under `base`, replaced atomically (decisions §3): a process killed at any
 * instant leaves each record old or new. Key `audit:2025:x` lives at `<base>/audit/2025/x.rec`.
 *
 * Segments are percent-encoded so that no key can name a path outside `base`, and so the three
 * kinds of directory entry can never collide: record files end in `.rec`, directories never do
 * (a segment ending in `.rec` has that dot encoded), and only temp files start with a dot. That
 * lets `a` and `a:b` both exist, as they can on the memory and redis drivers.
 */
export interface FsAtomicDriverOptions {
  base: string;
  /** The call through which every fsync goes (on the handles it opens); a test wraps it to count them. */
  open?: typeof open;
  /**
   * Makes everything written to the store's filesystem so far durable at once (syncfs; Node:
   * filesystem-sync.ts). Given, record files (a batch's, or a lone one's) are not fsynced one by
   * one: they wait for one such sync, shared with the writes made meanwhile, before their renames. The disk here
   * takes about a millisecond per fsync, one after another, so a 10,000-agent sync (400,000 files)
   * spent minutes in them. Absent, or when it fails: one fsync per record file.
   */
  syncFilesystem?: () => Promise<void>;
}

const DRIVER_NAME = 'fs-atomic';
const RECORD_SUFFIX = '.rec';
const TEMP_FILE = /^\..+\.\d+\.[0-9a-f]{12}\.tmp$/;
const SEPARATORS = /[:/\\]/;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
// Batch files in flight at once, across all batches of a store: a thousand agents' snapshots at once
// neither queue thousands of writes nor exhaust file descriptors. Measured with 1,000 batches of 20
// (docs/benchmarks.md): 8 left libuv's threads idle between steps, 64 and 256 ran alike.
const BATCH_CONCURRENCY = 64;

export const fsAtomicDriver = defineDriver((options: FsAtomicDriverOptions) => {
  const base = resolve(options.base);
  const inside = base.endsWith(sep) ? base : base + sep;
  const inFlight = new Set<Promise<void>>();
  const knownDirs = new Set<string>();
  const openFile = options.open ?? open;
  const syncDir = coalescedDirectorySyncs((dir) => syncDirectory(dir, openFile));
  const batchSlots = createConcurrencyLimiter(BATCH_CONCURRENCY);
  // A sync already running may have begun before a batch's files were written: such a batch waits for the next.
  const syncFilesystem = options.syncFilesystem;
  const sharedSync = syncFilesystem && coalescedDirectorySyncs(() => syncFilesystem());
  const syncStore = sharedSync && (() => sharedSync(base));
  const batchContext: BatchContext = { openFile, syncDir, slots: batchSlots, syncStore, knownDirs };
  const track = async (write: Promise<void>, what: string) => {
    inFlight.add(write);
    try {
      await write;
    } catch (error) {
      throw new Error(`${DRIVER_NAME}: cannot write ${what}`, { cause: error });
    } finally {
      inFlight.delete(write);
    }
  };
  // A directory removed behind the driver's back (its cache says it exists): forgotten, and the write made again once.
  const againIfDirectoryGone = async (write: () => Promise<void>) => {
    try {
      await write();
    } catch (error) {
      if (!isMissing(error)) throw error;
      knownDirs.clear();
      await write();
    }
  };
  const dirOf = (key: string | undefined) => join(base, ...keySegments(key).map(encodeSegment));

  const fileOf = (key: string) => {
    const segments = keySegments(key).map(encodeSegment);
    const last = segments.pop();
    if (last === undefined) throw invalidKey(key, 'it is empty');
    const file = join(base, ...segments, last + RECORD_SUFFIX);
    // Encoding already rules out escapes; this guards the encoder itself.
    if (!file.startsWith(inside)) throw invalidKey(key, 'it resolves outside the store');
    return file;
  };

  return {
    name: DRIVER_NAME,
    options,
    async hasItem(key) {
      const info = await stat(fileOf(key)).catch(ifMissing(null));
      return info?.isFile() ?? false;
    },
    async getItem(key) {
      return readFile(fileOf(key), 'utf8').catch(ifMissing(null));
    },
    // A lone record is a batch of one: with a filesystem sync it shares it (an agent's name binding at
    // its first sign-in: ten thousand of them, each its own fsync, one after another).
    async setItem(key, value) {
      const files = new Map([[fileOf(key), { key, value }]]);
      await track(
        againIfDirectoryGone(() => writeBatch(files, batchContext)),
        `key ${JSON.stringify(key)}`,
      );
    },
    // Group commit: every record its own temp file, fsync and rename (so each stays atomic), and
    // each directory synced once for the whole batch.
    async setItems(items) {
      // The last value of a key wins, as it would written one after another.
      const files = new Map(items.map(({ key, value }) => [fileOf(key), { key, value }]));
      await track(
        againIfDirectoryGone(() => writeBatch(files, batchContext)),
        `${files.size} keys`,
      );
    },
    async removeItem(key) {
      await unlink(fileOf(key)).catch(ifMissing(undefined));
    },
    async getKeys(keyBase) {
      const prefix = keySegments(keyBase);
      return (await listRecords(dirOf(keyBase))).map((segments) => [...prefix, ...segments].join(':'));
    },
    async clear(keyBase) {
      const dir = dirOf(keyBase);
      knownDirs.clear();
      await clearDirectory(dir, dir !== base);
    },
    // A shutdown that waits here leaves no temp files behind.
    async dispose() {
      await Promise.allSettled(inFlight);
    },
  };
});

/**
 * Removes temp files a crashed writer left behind. Reads already ignore them; this only frees the
 * space. Call it at start-up, before any write: it assumes one process per store directory.
 */
export async function sweepTempFiles(base: string): Promise<number> {
  const dir = resolve(base);
  let removed = 0;
  for (const entry of await readEntries(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && decodeSegment(entry.name) !== undefined) removed += await sweepTempFiles(path);
    else if (entry.isFile() && TEMP_FILE.test(entry.name)) {
      await unlink(path).catch(ifMissing(undefined));
      removed++;
    }
  }
  return removed;
}

/**
 * Makes `dir` if need be. Returns the directories to sync for a rename in it to last: `dir`, and
 * the parents of any directory just made. `known` holds the directories this driver has seen exist:
 * a fleet's sync asks for the same few thousands of times (a mkdir each was a second of a 60 s
 * profile); a clear, which may remove them, forgets them all.
 */
async function ensureDirectory(dir: string, known: Set<string>): Promise<string[]> {
  if (known.has(dir)) return [dir];
  const created = await mkdir(dir, { recursive: true });
  known.add(dir);
  const dirs: string[] = [];
  const stop = created === undefined ? dir : dirname(created);
  for (let current = dir; ; current = dirname(current)) {
    dirs.push(current);
    if (current === stop || current === dirname(current)) break;
  }
  return dirs;
}

/**
 * Replaces `target` (its directory exists) through a synced temp file and a rename, so a process
 * killed at any instant leaves the old or the new content. Durable once its directory is synced.
 */
async function replaceFile(target: string, value: string, openFile: typeof open): Promise<void> {
  const temp = await writeTempFile(target, value, openFile, true);
  await renameOrDrop(temp, target);
}

/** The temp file beside `target` holding `value`, fsynced when `durable` (else a filesystem sync must follow). */
async function writeTempFile(target: string, value: string, openFile: typeof open, durable: boolean): Promise<string> {
  // The name is only a debugging aid; truncated so the temp name stays under NAME_MAX.
  const temp = join(
    dirname(target),
    `.${basename(target).slice(0, 64)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    // 0600: records can hold registry and trigger credentials.
    const handle = await openFile(temp, 'wx', 0o600);
    try {
      await handle.writeFile(value, 'utf8');
      // Without this (or a filesystem sync before the rename), rename can reach the disk before the
      // data and a power cut leaves an empty file.
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

async function renameOrDrop(temp: string, target: string): Promise<void> {
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

async function syncFile(path: string, openFile: typeof open): Promise<void> {
  const handle = await openFile(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// The rename, and any directories just made, survive a power cut only once their parents are synced.
async function syncAll(dirs: Iterable<string>, syncDir: (dir: string) => Promise<void>): Promise<void> {
  await Promise.all([...new Set(dirs)].map(syncDir));
}

interface BatchContext {
  openFile: typeof open;
  syncDir: (dir: string) => Promise<void>;
  /** Shared by every batch of the store: bounds the files in flight. */
  slots: RequestLimiter;
  /** Directories seen to exist (ensureDirectory). */
  knownDirs: Set<string>;
  /** One filesystem sync shared with concurrent batches, where the runtime has it. */
  syncStore: (() => Promise<void>) | undefined;
}

/**
 * Every directory of the batch made once, every file replaced, then each directory synced once.
 * With a filesystem sync, the temp files are written unsynced, made durable together, then renamed.
 */
async function writeBatch(files: Map<string, { key: string; value: string }>, context: BatchContext): Promise<void> {
  const dirs = new Set<string>();
  for (const dir of new Set([...files.keys()].map(dirname)))
    for (const synced of await ensureDirectory(dir, context.knownDirs)) dirs.add(synced);
  const failures: Error[] = [];
  const failed = (key: string) => (error: unknown) => {
    failures.push(new Error(`key ${JSON.stringify(key)}`, { cause: error }));
  };
  if (context.syncStore) await writeThroughStoreSync(files, context, context.syncStore, failed);
  else
    await Promise.all(
      [...files].map(([file, { key, value }]) =>
        context.slots.run(() => replaceFile(file, value, context.openFile)).catch(failed(key)),
      ),
    );
  // Renames that did happen are made durable even when others failed: each record is old or new.
  await syncAll(dirs, context.syncDir);
  if (failures.length > 0)
    throw failures.length === 1 ? failures[0] : new AggregateError(failures, failures[0]?.message);
}

async function writeThroughStoreSync(
  files: Map<string, { key: string; value: string }>,
  context: BatchContext,
  syncStore: () => Promise<void>,
  failed: (key: string) => (error: unknown) => void,
): Promise<void> {
  const written: { temp: string; file: string; key: string }[] = [];
  await Promise.all(
    [...files].map(([file, { key, value }]) =>
      context.slots
        .run(() => writeTempFile(file, value, context.openFile, false))
        .then((temp) => void written.push({ temp, file, key }), failed(key)),
    ),
  );
  const dropped = new Set<string>();
  try {
    await syncStore();
  } catch {
    // No filesystem sync to be had (the helper died, `sync -f` refused): each file on its own.
    await Promise.all(
      written.map(({ temp, key }) =>
        context.slots
          .run(() => syncFile(temp, context.openFile))
          .catch(async (error: unknown) => {
            failed(key)(error);
            dropped.add(temp);
            await unlink(temp).catch(() => undefined);
          }),
      ),
    );
  }
  await Promise.all(
    written.flatMap(({ temp, file, key }) => (dropped.has(temp) ? [] : [renameOrDrop(temp, file).catch(failed(key))])),
  );
}

async function syncDirectory(dir: string, openFile: typeof open): Promise<void> {
  const handle = await openFile(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function listRecords(dir: string): Promise<string[][]> {
  const records: string[][] = [];
  for (const entry of await readEntries(dir)) {
    // Temp files, foreign files and symlinks are not records; only names this driver wrote are.
    if (entry.isDirectory()) {
      const segment = decodeSegment(entry.name);
      if (segment === undefined) continue;
      for (const rest of await listRecords(join(dir, entry.name))) records.push([segment, ...rest]);
    } else if (entry.isFile() && entry.name.endsWith(RECORD_SUFFIX)) {
      const segment = decodeSegment(entry.name.slice(0, -RECORD_SUFFIX.length));
      if (segment !== undefined) records.push([segment]);
    }
  }
  return records;
}

/**
 * Deletes only records, so a volume root keeps `lost+found` and the like. Temp files stay: one may
 * belong to a write in flight, and the start-up sweep removes the ones a crash left.
 */
async function clearDirectory(dir: string, removeSelf: boolean): Promise<void> {
  for (const entry of await readEntries(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && decodeSegment(entry.name) !== undefined) await clearDirectory(path, true);
    else if (entry.isFile() && entry.name.endsWith(RECORD_SUFFIX)) await unlink(path).catch(ifMissing(undefined));
  }
  // A concurrent writer may have just put a file here; keeping the directory is then correct.
  if (removeSelf) await rmdir(dir).catch(ifCode(['ENOENT', 'ENOTEMPTY', 'EEXIST'], undefined));
}

async function readEntries(dir: string): Promise<Dirent[]> {
  return readdir(dir, { withFileTypes: true }).catch(ifMissing([]));
}

/** Splits a key the way unstorage does; the driver may also be called directly with a raw key. */
function keySegments(key: string | undefined): string[] {
  if (!key) return [];
  return key.split(SEPARATORS).filter((segment) => segment !== '');
}

function encodeSegment(segment: string): string {
  if (segment === '.' || segment === '..') throw invalidSegment(segment, 'dot segments could leave the store');
  if (CONTROL_CHARS.test(segment)) throw invalidSegment(segment, 'it has a control character');
  let encoded: string;
  try {
    encoded = encodeURIComponent(segment);
  } catch (error) {
    throw invalidSegment(segment, 'it has malformed unicode', error);
  }
  if (encoded.startsWith('.')) encoded = `%2E${encoded.slice(1)}`;
  if (encoded.endsWith(RECORD_SUFFIX))
    encoded = `${encoded.slice(0, -RECORD_SUFFIX.length)}%2E${RECORD_SUFFIX.slice(1)}`;
  return encoded;
}

/** Returns undefined for any name `encodeSegment` cannot have produced. */
function decodeSegment(name: string): string | undefined {
  try {
    const segment = decodeURIComponent(name);
    return encodeSegment(segment) === name ? segment : undefined;
  } catch {
    return undefined;
  }
}

function invalidKey(key: string, reason: string): Error {
  return new Error(`${DRIVER_NAME}: invalid key ${JSON.stringify(key)}: ${reason}`);
}

function invalidSegment(segment: string, reason: string, cause?: unknown): Error {
  return new Error(
    `${DRIVER_NAME}: invalid key segment ${JSON.stringify(segment)}: ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}

/** ENOENT, or a batch's failures that all are (writeBatch throws an AggregateError of them). */
function isMissing(error: unknown): boolean {
  const enoent = (value: unknown) => value instanceof Error && 'code' in value && value.code === 'ENOENT';
  const failures: unknown[] = error instanceof AggregateError ? error.errors : [error];
  return (
    failures.length > 0 &&
    failures.every((failure) => enoent(failure) || (failure instanceof Error && enoent(failure.cause)))
  );
}

function ifMissing<T>(fallback: T): (error: unknown) => T {
  return ifCode(['ENOENT', 'ENOTDIR'], fallback);
}

function ifCode<T>(codes: string[], fallback: T): (error: unknown) => T {
  return (error) => {
    if (error instanceof Error && 'code' in error && codes.includes(String(error.code))) return fallback;
    throw error;
  };
}
