import { mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage, type Storage } from 'unstorage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFilesystemSync } from './filesystem-sync';
import { fsAtomicDriver } from './fs-atomic-driver';

/** The real `open`, with every fsync on the handles it returns counted: temp files apart from directories. */
function countingOpen() {
  const syncs = { files: 0, directories: 0 };
  const wrapped = (async (...args: Parameters<typeof open>) => {
    const handle = await open(...args);
    const isTempFile = String(args[0]).endsWith('.tmp');
    const sync = handle.sync.bind(handle);
    handle.sync = async () => {
      if (isTempFile) syncs.files++;
      else syncs.directories++;
      await sync();
    };
    return handle;
  }) as typeof open;
  return { open: wrapped, syncs };
}

const records = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => ({ key: `containers:c${i}`, value: { id: `c${i}`, tag } }));

describe('fs-atomic driver: group commit through a filesystem sync', () => {
  let base: string;
  let counting: ReturnType<typeof countingOpen>;
  let storage: Storage;
  let filesystemSyncs: number;
  let failSyncs: boolean;
  /** Awaited by the next filesystem sync before it runs, then cleared. */
  let holdNextSync: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'fs-store-sync-'));
    counting = countingOpen();
    filesystemSyncs = 0;
    failSyncs = false;
    holdNextSync = undefined;
    const filesystem = startFilesystemSync(base);
    const syncFilesystem = async () => {
      filesystemSyncs++;
      if (failSyncs) throw new Error('no syncfs here');
      const hold = holdNextSync;
      holdNextSync = undefined;
      await hold?.();
      await filesystem.sync();
    };
    storage = createStorage({ driver: fsAtomicDriver({ base, open: counting.open, syncFilesystem }) });
    await storage.setItem('containers:seed', { seed: true });
    counting.syncs.files = 0;
    counting.syncs.directories = 0;
    filesystemSyncs = 0;
  });
  afterEach(async () => {
    await storage.dispose();
    await rm(base, { recursive: true, force: true });
  });

  it('writes a 500-record batch with two filesystem syncs (the files, then their renames) and no fsync of a file or directory', async () => {
    await storage.setItems(records(500, 'batch'));
    expect({ ...counting.syncs, filesystemSyncs }).toEqual({ files: 0, directories: 0, filesystemSyncs: 2 });
    for (const { key } of records(500, 'batch')) expect(await storage.getItem(key)).toMatchObject({ tag: 'batch' });
    expect((await readdir(join(base, 'containers'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('writes a lone record through the filesystem syncs too, without an fsync of its own', async () => {
    await storage.setItem('edge-names:nas', { keyId: 'k' });
    // edge-names/ is new: it and the base directory holding it are made durable by the second sync.
    expect({ ...counting.syncs, filesystemSyncs }).toEqual({ files: 0, directories: 0, filesystemSyncs: 2 });
    expect(await storage.getItem('edge-names:nas')).toEqual({ keyId: 'k' });
  });

  it('shares one filesystem sync between the batches written meanwhile', async () => {
    // The first batch's sync is held until every batch has written its temp files, so that the
    // others all arrive while it runs, whatever the machine's load: they wait for the next sync.
    const tempFiles = async () =>
      (await readdir(join(base, 'containers')).catch(() => [])).filter((name) => name.endsWith('.tmp')).length;
    holdNextSync = async () => {
      const deadline = Date.now() + 10_000;
      while ((await tempFiles()) < 800 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    await Promise.all(
      Array.from({ length: 40 }, (_, batch) =>
        storage.setItems(
          Array.from({ length: 20 }, (_, i) => ({ key: `containers:b${batch}-${i}`, value: { batch } })),
        ),
      ),
    );
    expect(counting.syncs.files).toBe(0);
    // Unshared, 40 batches take 80 syncs (their files, then their renames). Shared: the held one,
    // one for the other 39 batches' files, then a few for the renames, as the batches' renames end
    // around the syncs that run meanwhile (4 to 6 in all on a loaded 2-core machine).
    expect(filesystemSyncs).toBeGreaterThanOrEqual(3);
    expect(filesystemSyncs).toBeLessThanOrEqual(12);
    expect(await storage.getItem('containers:b39-19')).toEqual({ batch: 39 });
  });

  it('falls back to an fsync per record file and directory when the filesystem sync fails, and loses nothing', async () => {
    failSyncs = true;
    await storage.setItems(records(50, 'fallback'));
    expect(counting.syncs).toEqual({ files: 50, directories: 1 });
    for (const { key } of records(50, 'fallback'))
      expect(await storage.getItem(key)).toMatchObject({ tag: 'fallback' });
    expect((await readdir(join(base, 'containers'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('fs-atomic driver: group commit', () => {
  let base: string;
  let counting: ReturnType<typeof countingOpen>;
  let storage: Storage;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'fs-group-commit-'));
    counting = countingOpen();
    storage = createStorage({ driver: fsAtomicDriver({ base, open: counting.open }) });
    // The directory exists already, so no write below has parents to sync as well.
    await storage.setItem('containers:seed', { seed: true });
    counting.syncs.files = 0;
    counting.syncs.directories = 0;
  });
  afterEach(async () => {
    await storage.dispose();
    await rm(base, { recursive: true, force: true });
  });

  it('writes a 500-record batch with one fsync per record file and one of the directory', async () => {
    await storage.setItems(records(500, 'batch'));
    expect(counting.syncs).toEqual({ files: 500, directories: 1 });
    const keys = await storage.getKeys('containers');
    expect(keys).toHaveLength(501);
    for (const { key } of records(500, 'batch')) expect(await storage.getItem(key)).toMatchObject({ tag: 'batch' });
    // Each record went through its own temp file and rename: none is left behind.
    expect((await readdir(join(base, 'containers'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('syncs the directory once per record when the same records are written one after another', async () => {
    for (const item of records(500, 'serial')) await storage.setItem(item.key, item.value);
    expect(counting.syncs).toEqual({ files: 500, directories: 500 });
  });

  it('coalesces the directory fsyncs of concurrent single writes', async () => {
    await Promise.all(records(500, 'concurrent').map((item) => storage.setItem(item.key, item.value)));
    expect(counting.syncs.files).toBe(500);
    // Writers whose rename is done share the next sync; how many there are depends on the timing.
    expect(counting.syncs.directories).toBeLessThan(250);
    expect(await storage.getItem('containers:c499')).toMatchObject({ tag: 'concurrent' });
  });

  it('syncs each directory a batch touches, and the parents of directories it creates', async () => {
    await storage.setItems([
      { key: 'containers:x', value: { v: 1 } },
      { key: 'identities:y', value: { v: 2 } },
      { key: 'identities:z', value: { v: 3 } },
    ]);
    // containers/ and the new identities/, whose entry in the base directory must last too.
    expect(counting.syncs).toEqual({ files: 3, directories: 3 });
  });

  it('makes a directory again that was removed behind its back, for a single write and for a batch', async () => {
    await storage.setItem('packs:a:0', { v: 1 });
    await rm(join(base, 'packs'), { recursive: true });
    await storage.setItem('packs:a:0', { v: 2 });
    await rm(join(base, 'packs'), { recursive: true });
    await storage.setItems([
      { key: 'packs:a:0', value: { v: 3 } },
      { key: 'packs:a:1', value: { v: 4 } },
    ]);
    expect(await storage.getItem('packs:a:0')).toEqual({ v: 3 });
    expect(await storage.getItem('packs:a:1')).toEqual({ v: 4 });
  });

  it('keeps the last value of a key given twice in one batch', async () => {
    await storage.setItems([
      { key: 'containers:dup', value: { v: 1 } },
      { key: 'containers:dup', value: { v: 2 } },
    ]);
    expect(await storage.getItem('containers:dup')).toEqual({ v: 2 });
    expect(counting.syncs).toEqual({ files: 1, directories: 1 });
  });
});
