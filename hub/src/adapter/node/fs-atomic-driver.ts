import { randomBytes } from 'node:crypto';
import { type Dirent, writeFile } from 'node:fs';
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
  // A batch's files, made from the keys (an invalid key rejects, as an async function's throw would), then written.
  const write = (files: () => Map<string, PendingFile>, what: string): Promise<void> => {
    let batch: Map<string, PendingFile>;
    try {
      batch = files();
    } catch (error) {
      return Promise.reject(error);
    }
    return track(writeBatch(batch, batchContext), what);
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
    // its first sign-in: ten thousand of them, each its own fsync, one after another). Not async, here
    // and in setItems: a suspended frame would hold the values its batch lets go of.
    setItem(key, value) {
      return write(() => new Map([[fileOf(key), { key, value }]]), `key ${JSON.stringify(key)}`);
    },
    // Group commit: every record its own temp file and rename (so each stays atomic), the files and
    // then the renames made durable together (writeBatch).
    setItems(items) {
      // The last value of a key wins, as it would written one after another.
      return write(() => new Map(items.map(({ key, value }) => [fileOf(key), { key, value }])), `${items.length} keys`);
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
 * Temp file names: a random 48-bit start per process, counted up. Unique within the process, and
 * apart from another process's (in a container the pid is always the same) without asking the
 * kernel for random bytes per file (0.4 s of a 10,000-agent burst; issue 30).
 */
const TEMP_NAME_SPACE = 2 ** 48;
let tempNameStart: number | undefined;
let tempNamesUsed = 0;
function nextTempSuffix(): string {
  tempNameStart ??= randomBytes(6).readUIntBE(0, 6);
  tempNamesUsed += 1;
  return ((tempNameStart + tempNamesUsed) % TEMP_NAME_SPACE).toString(16).padStart(12, '0');
}

/** The temp file beside `target` holding `value`, fsynced when `durable` (else a filesystem sync must follow). */
async function writeTempFile(target: string, value: string, openFile: typeof open, durable: boolean): Promise<string> {
  // The name is only a debugging aid; truncated so the temp name stays under NAME_MAX.
  const temp = join(dirname(target), `.${basename(target).slice(0, 64)}.${process.pid}.${nextTempSuffix()}.tmp`);
  try {
    // 0600: records can hold registry and trigger credentials.
    if (durable) {
      const handle = await openFile(temp, 'wx', 0o600);
      try {
        await handle.writeFile(value, 'utf8');
        // Without this (or a filesystem sync before the rename), rename can reach the disk before the
        // data and a power cut leaves an empty file.
        await handle.sync();
      } finally {
        await handle.close();
      }
    } else await writeNewFile(temp, value);
    return temp;
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * A new file (0600) holding `value`, through the callback API: a FileHandle's promises cost the
 * loop 2.3 times the CPU for the same open, write and close (issue 30: tens of thousands of
 * records in a fleet's first minute).
 */
function writeNewFile(path: string, value: string): Promise<void> {
  return new Promise((resolve, reject) =>
    writeFile(path, value, { encoding: 'utf8', flag: 'wx', mode: 0o600 }, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
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

/**
 * The renames, and any directories just made, survive a power cut only once their parents are
 * synced: by one more filesystem sync where there is one (shared with the batches written
 * meanwhile), else one fsync per directory. A fleet's agents each have a directory of container
 * packs, so a burst of 10,000 first snapshots asked the disk for 10,000 directory fsyncs, each a
 * journal commit of its own; a disk that allows few operations a second spent its budget on them.
 */
async function syncDirectories(dirs: Set<string>, context: BatchContext): Promise<void> {
  if (dirs.size === 0) return;
  if (context.syncStore) {
    try {
      await context.syncStore();
      return;
    } catch {
      // No filesystem sync to be had: each directory on its own, below.
    }
  }
  await Promise.all([...dirs].map(context.syncDir));
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
 * A record file to write. Its value is let go of once its temp file holds it: a fleet's batches wait
 * seconds for the filesystem sync, and their serialised records, held until the renames, lived long
 * enough to fill the old generation of the heap (issue 30 item 3: 10,000 agents' first snapshots).
 */
interface PendingFile {
  readonly key: string;
  value: string | undefined;
}

/**
 * Every directory of the batch made once, every file replaced, then each directory synced once.
 * With a filesystem sync, the temp files are written unsynced, made durable together, then renamed;
 * without one, each temp file is fsynced before its rename.
 */
async function writeBatch(files: Map<string, PendingFile>, context: BatchContext): Promise<void> {
  const dirs = new Set<string>();
  for (const dir of new Set([...files.keys()].map(dirname)))
    for (const synced of await ensureDirectory(dir, context.knownDirs)) dirs.add(synced);
  const failures: Error[] = [];
  const failed = (key: string) => (error: unknown) => {
    failures.push(new Error(`key ${JSON.stringify(key)}`, { cause: error }));
  };
  if (context.syncStore) await writeThroughStoreSync(files, context, context.syncStore, failed, dirs);
  else
    await Promise.all(
      [...files].map(([file, pending]) =>
        context.slots
          .run(async () => renameOrDrop(await writeTemp(file, pending, context, true, dirs), file))
          .catch(failed(pending.key)),
      ),
    );
  // Renames that did happen are made durable even when others failed: each record is old or new.
  await syncDirectories(dirs, context);
  if (failures.length > 0)
    throw failures.length === 1 ? failures[0] : new AggregateError(failures, failures[0]?.message);
}

/**
 * The temp file of `pending` beside `file`, after which its value is let go of. A directory removed
 * behind the driver's back (its cache says it exists) is made again, and the write tried once more.
 */
async function writeTemp(
  file: string,
  pending: PendingFile,
  context: BatchContext,
  durable: boolean,
  dirs: Set<string>,
): Promise<string> {
  const value = pending.value ?? '';
  let temp: string;
  try {
    temp = await writeTempFile(file, value, context.openFile, durable);
  } catch (error) {
    if (!isMissing(error)) throw error;
    context.knownDirs.clear();
    for (const synced of await ensureDirectory(dirname(file), context.knownDirs)) dirs.add(synced);
    temp = await writeTempFile(file, value, context.openFile, durable);
  }
  pending.value = undefined;
  return temp;
}

async function writeThroughStoreSync(
  files: Map<string, PendingFile>,
  context: BatchContext,
  syncStore: () => Promise<void>,
  failed: (key: string) => (error: unknown) => void,
  dirs: Set<string>,
): Promise<void> {
  const written: { temp: string; file: string; key: string }[] = [];
  await Promise.all(
    [...files].map(([file, pending]) =>
      context.slots
        .run(() => writeTemp(file, pending, context, false, dirs))
        .then((temp) => void written.push({ temp, file, key: pending.key }), failed(pending.key)),
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
