import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import type { Storage, StorageValue } from 'unstorage';
import { prefixStorage } from 'unstorage';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNodeStorage, type NodeStorage } from '../../hub/src/adapter/node/create-node-storage';
import { fsAtomicDriver, sweepTempFiles } from '../../hub/src/adapter/node/fs-atomic-driver';
import { startRedisServer } from '../support/redis-server';

type StorageFactory = () => Promise<NodeStorage>;

const MIB = 1024 * 1024;
const sortedKeys = async (storage: Storage, base?: string) => (await storage.getKeys(base)).sort();

/** What every store driver must do, whatever holds the bytes (decisions §3). */
function describeStorageContract(name: string, factory: StorageFactory): void {
  describe(`storage contract: ${name}`, () => {
    let store: NodeStorage | undefined;
    let storage: Storage;

    beforeAll(async () => {
      store = await factory();
      storage = store.storage;
    });
    afterAll(async () => {
      await store?.close();
    });
    beforeEach(async () => {
      await storage.clear();
    });

    it('round-trips objects, strings, numbers, booleans, arrays and nested objects', async () => {
      const values: Record<string, StorageValue> = {
        object: { a: 1, b: 'two' },
        string: 'hello world',
        number: 42.5,
        zero: 0,
        negative: -7,
        yes: true,
        no: false,
        array: [1, 'two', { three: 3 }],
        nested: { level1: { level2: { level3: ['deep', null, 1.5] } }, empty: {} },
      };
      for (const [key, value] of Object.entries(values)) await storage.setItem(`values:${key}`, value);
      for (const [key, value] of Object.entries(values)) expect(await storage.getItem(`values:${key}`)).toEqual(value);
    });

    it('parses strings that look like JSON on read, so records must be objects (unstorage destr semantics)', async () => {
      await storage.setItem('looks:number', '42');
      await storage.setItem('looks:boolean', 'true');
      await storage.setItem('looks:object', '{"a":1}');
      expect(await storage.getItem('looks:number')).toBe(42);
      expect(await storage.getItem('looks:boolean')).toBe(true);
      expect(await storage.getItem('looks:object')).toEqual({ a: 1 });
    });

    it('overwrites a value, including with a value of another type', async () => {
      await storage.setItem('over:k', { v: 1 });
      await storage.setItem('over:k', { v: 2, extra: 'yes' });
      expect(await storage.getItem('over:k')).toEqual({ v: 2, extra: 'yes' });
      await storage.setItem('over:k', 'now a string');
      expect(await storage.getItem('over:k')).toBe('now a string');
    });

    it('answers hasItem and removes items; removing a missing key is not an error', async () => {
      expect(await storage.hasItem('has:k')).toBe(false);
      await storage.setItem('has:k', { v: 1 });
      expect(await storage.hasItem('has:k')).toBe(true);
      await storage.removeItem('has:k');
      expect(await storage.hasItem('has:k')).toBe(false);
      expect(await storage.getItem('has:k')).toBeNull();
      await expect(storage.removeItem('has:never-set')).resolves.toBeUndefined();
    });

    it('lists keys by segment prefix: "audit" matches audit:* only, not the bare key nor auditx:*', async () => {
      for (const key of ['audit', 'audit:1', 'audit:2024:x', 'auditx:1', 'other:1'])
        await storage.setItem(key, { key });
      expect(await sortedKeys(storage)).toEqual(['audit', 'audit:1', 'audit:2024:x', 'auditx:1', 'other:1']);
      expect(await sortedKeys(storage, 'audit')).toEqual(['audit:1', 'audit:2024:x']);
      expect(await sortedKeys(storage, 'audit:')).toEqual(['audit:1', 'audit:2024:x']);
      expect(await sortedKeys(storage, 'audit:2024')).toEqual(['audit:2024:x']);
      expect(await sortedKeys(storage, 'nothing')).toEqual([]);
      expect((await prefixStorage(storage, 'audit').getKeys()).sort()).toEqual(['1', '2024:x']);
      expect(await storage.getItem('audit')).toEqual({ key: 'audit' });
    });

    it('clears only the keys under a base (regression: unjs/unstorage#801 made clear(base) a no-op)', async () => {
      for (const key of ['audit', 'audit:1', 'audit:2024:x', 'auditx:1', 'other:1', 'other:2'])
        await storage.setItem(key, 1);
      await storage.clear('audit');
      expect(await sortedKeys(storage)).toEqual(['audit', 'auditx:1', 'other:1', 'other:2']);
      await prefixStorage(storage, 'other').clear();
      expect(await sortedKeys(storage)).toEqual(['audit', 'auditx:1']);
      await storage.clear();
      expect(await storage.getKeys()).toEqual([]);
    });

    it('keeps every one of many concurrent writes to distinct keys', async () => {
      const count = 100;
      await Promise.all(
        Array.from({ length: count }, (_, i) => storage.setItem(`many:${i}`, { i, label: `item ${i}` })),
      );
      expect(await storage.getKeys('many')).toHaveLength(count);
      const values = await Promise.all(Array.from({ length: count }, (_, i) => storage.getItem(`many:${i}`)));
      values.forEach((value, i) => {
        expect(value).toEqual({ i, label: `item ${i}` });
      });
    });

    it('writes a batch (setItems, as a snapshot is applied): every record readable, a repeated key at its last value', async () => {
      const batch = Array.from({ length: 300 }, (_, i) => ({
        key: i % 2 === 0 ? `batch:${i}` : `other:${i}`,
        value: { i, label: `item ${i}` },
      }));
      await storage.setItems([...batch, { key: 'batch:0', value: { i: 0, label: 'again' } }]);
      expect(await storage.getKeys('batch')).toHaveLength(150);
      expect(await storage.getKeys('other')).toHaveLength(150);
      const values = await Promise.all(batch.map(({ key }) => storage.getItem(key)));
      expect(values.slice(1)).toEqual(batch.slice(1).map(({ value }) => value));
      expect(values[0]).toEqual({ i: 0, label: 'again' });
      await storage.setItems([]);
    });

    it('ends concurrent writes to one key with exactly one of the written values', async () => {
      const written = Array.from({ length: 25 }, (_, writer) => ({
        writer,
        pad: String(writer % 10).repeat(64 * 1024),
      }));
      await Promise.all(written.map((value) => storage.setItem('race:k', value)));
      const final = await storage.getItem('race:k');
      expect(typeof final).toBe('object');
      expect(written).toContainEqual(final);
    });

    it('round-trips unicode values and unicode keys', async () => {
      const value = { text: 'naïve café — 日本語 — emoji 🚀👩‍👩‍👧 — العربية', combining: 'e\u0301', quote: '"\'\\' };
      await storage.setItem('unicode:café🚀', value);
      await storage.setItem('unicode:plain', 'Grüße, мир 🌍');
      expect(await storage.getItem('unicode:café🚀')).toEqual(value);
      expect(await storage.getItem('unicode:plain')).toBe('Grüße, мир 🌍');
      expect(await sortedKeys(storage, 'unicode')).toEqual(['unicode:café🚀', 'unicode:plain']);
    });

    it('round-trips a 1 MiB value', async () => {
      const blob = Array.from({ length: MIB / 16 }, (_, i) => (i % 65536).toString(16).padStart(16, '-')).join('');
      expect(blob).toHaveLength(MIB);
      await storage.setItem('large:object', { blob });
      await storage.setItem('large:string', blob);
      expect(await storage.getItem('large:object')).toEqual({ blob });
      expect(await storage.getItem('large:string')).toBe(blob);
    });
  });
}

describeStorageContract('memory', () => createNodeStorage({ driver: 'memory', path: '', url: undefined }));

describeStorageContract('fs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-store-'));
  const store = await createNodeStorage({ driver: 'fs', path: dir, url: undefined });
  return {
    storage: store.storage,
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describeStorageContract('redis', async () => {
  const server = await startRedisServer();
  const store = await createNodeStorage({ driver: 'redis', path: '', url: server.url }).catch(
    async (error: unknown) => {
      await server.stop();
      throw error;
    },
  );
  return {
    storage: store.storage,
    async close() {
      await store.close();
      await server.stop();
    },
  };
});

describe('fs store: containment and crash safety', () => {
  let sandbox: string;
  let base: string;
  let store: NodeStorage;

  /** Everything in the sandbox except the store directory itself. */
  const outsideStore = async () =>
    (await readdir(sandbox, { recursive: true })).filter((entry) => !`${entry}/`.startsWith('outer/store/')).sort();

  beforeAll(async () => {
    sandbox = await mkdtemp(join(tmpdir(), 'dockwatch-fs-'));
    base = join(sandbox, 'outer', 'store');
    // Bait one and two levels above the store: a key that escapes would read or replace these.
    await mkdir(join(sandbox, 'outer'));
    await writeFile(join(sandbox, 'secret.rec'), 'top secret');
    await writeFile(join(sandbox, 'outer', 'secret.rec'), 'top secret');
    store = await createNodeStorage({ driver: 'fs', path: base, url: undefined });
  });
  afterAll(async () => {
    await store.close();
    await rm(sandbox, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await store.storage.clear();
  });

  it('never lets a hostile key through unstorage touch a file outside the store directory', async () => {
    const before = await outsideStore();
    const hostile = [
      '../x',
      '..:..:etc:passwd',
      'a/../../b',
      '/etc/passwd',
      '/../../x',
      '..\\..\\x',
      'C:\\Windows\\x',
      'a\u0000b',
      '%2e%2e:x',
    ];
    for (const key of hostile) {
      await store.storage.setItem(key, 'pwned').catch(() => undefined);
      expect(await store.storage.getItem(key).catch(() => null)).not.toBe('top secret');
    }
    expect(await outsideStore()).toEqual(before);
    await expect(store.storage.setItem('../x', 1)).rejects.toThrow(/Invalid key/);
    await expect(store.storage.setItem('a\u0000b', 1)).rejects.toThrow(/control character/);
    // Absolute paths and drive letters are only segments; they land inside the store.
    expect(await sortedKeys(store.storage)).toEqual(['%2e%2e:x', 'C:Windows:x', 'etc:passwd']);
  });

  it('never lets a hostile key given straight to the driver read or write outside the store', async () => {
    const driver = fsAtomicDriver({ base });
    const before = await outsideStore();
    const hostile = [
      '../secret',
      '..:secret',
      '../../secret',
      '..\\secret',
      'a/../../secret',
      '.:..:secret',
      '\u0000',
      'a:\u0000:b',
    ];
    for (const key of hostile) {
      expect(await Promise.resolve(driver.getItem(key, {})).catch(() => null)).toBeNull();
      expect(await Promise.resolve(driver.hasItem(key, {})).catch(() => false)).toBe(false);
      await expect(Promise.resolve(driver.setItem?.(key, 'pwned', {}))).rejects.toThrow(/invalid key/);
      await Promise.resolve(driver.removeItem?.(key, {})).catch(() => undefined);
    }
    expect(await outsideStore()).toEqual(before);
    expect(await readFile(join(sandbox, 'outer', 'secret.rec'), 'utf8')).toBe('top secret');
  });

  it('stores keys that mimic temp or record file names as ordinary records', async () => {
    const keys = ['.a.rec.1.0123456789ab.tmp', 'a', 'a.rec', 'a.rec:b', 'a:b'];
    for (const key of keys) await store.storage.setItem(key, { key });
    expect(await sweepTempFiles(base)).toBe(0);
    expect(await sortedKeys(store.storage)).toEqual(keys);
    for (const key of keys) expect(await store.storage.getItem(key)).toEqual({ key });
  });

  it('ignores a leftover temp file: it is neither a key nor a value', async () => {
    await store.storage.setItem('leftover:k', { v: 1 });
    await writeFile(join(base, 'leftover', '.k.rec.4242.0123456789ab.tmp'), '{"v":2}');
    await writeFile(join(base, '.k.rec.4242.0123456789ab.tmp'), '{"v":3}');
    expect(await sortedKeys(store.storage)).toEqual(['leftover:k']);
    expect(await sortedKeys(store.storage, 'leftover')).toEqual(['leftover:k']);
    expect(await store.storage.getItem('leftover:k')).toEqual({ v: 1 });
    expect(await store.storage.hasItem('k')).toBe(false);
  });

  it('keeps the record when a torn temp file sits next to it, and sweeps the temp file on the next open', async () => {
    await store.storage.setItem('torn:k', { seq: 1, note: 'committed' });
    const torn = join(base, 'torn', '.k.rec.4242.abcdef012345.tmp');
    await writeFile(torn, JSON.stringify({ seq: 2, note: 'never committed' }).slice(0, 12));
    expect(await store.storage.getItem('torn:k')).toEqual({ seq: 1, note: 'committed' });

    const reopened = await createNodeStorage({ driver: 'fs', path: base, url: undefined });
    try {
      expect(await readdir(join(base, 'torn'))).toEqual(['k.rec']);
      expect(await reopened.storage.getItem('torn:k')).toEqual({ seq: 1, note: 'committed' });
      await reopened.storage.setItem('torn:k', { seq: 3 });
      expect(await store.storage.getItem('torn:k')).toEqual({ seq: 3 });
    } finally {
      await reopened.close();
    }
  });

  it('leaves each record old or new, never torn, when the writer is killed with SIGKILL', async () => {
    const crashBase = join(sandbox, 'crash');
    const driverUrl = new URL('../../hub/src/adapter/node/fs-atomic-driver.ts', import.meta.url).href;
    // Killing right after a confirmed write lands between writes; the offsets spread the kill across one.
    for (const [round, killDelayMs] of [0, 1, 2, 3, 5, 8, 13].entries()) {
      const firstSeq = round * 1_000_000;
      const lastSeen = await writeUntilKilled({ driverUrl, base: crashBase, firstSeq, killDelayMs });
      const raw = await readFile(join(crashBase, 'crash', 'record.rec'), 'utf8');
      const record = JSON.parse(raw) as { seq: number; pad: string };
      expect(record.seq).toBeGreaterThanOrEqual(lastSeen);
      expect(record.pad).toBe('x'.repeat(256 * 1024));
    }
    // Kills that land mid-write leave temp files; reads never see them and the next open sweeps them.
    const driver = fsAtomicDriver({ base: crashBase });
    expect(await driver.getKeys('', {})).toEqual(['crash:record']);
    await sweepTempFiles(crashBase);
    expect(await readdir(join(crashBase, 'crash'))).toEqual(['record.rec']);
  });
});

interface CrashRun {
  driverUrl: string;
  base: string;
  firstSeq: number;
  killDelayMs: number;
}

/** Runs a child that rewrites one record forever, SIGKILLs it mid-stream, and returns the last seq it confirmed. */
async function writeUntilKilled({ driverUrl, base, firstSeq, killDelayMs }: CrashRun): Promise<number> {
  const code = `
    const { fsAtomicDriver } = await import(${JSON.stringify(driverUrl)});
    const driver = fsAtomicDriver({ base: ${JSON.stringify(base)} });
    const pad = 'x'.repeat(256 * 1024);
    for (let seq = ${firstSeq}; ; seq++) {
      await driver.setItem('crash:record', JSON.stringify({ seq, pad }), {});
      process.stdout.write(seq + '\\n');
    }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: new URL('../..', import.meta.url),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  let lastSeen = -1;
  for await (const line of createInterface({ input: child.stdout })) {
    lastSeen = Number(line);
    // A few confirmed writes first, so the record exists and the loop is warm.
    if (lastSeen >= firstSeq + 3) break;
  }
  // Not a wait for a condition: the delay picks the instant of the crash.
  await delay(killDelayMs);
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return lastSeen;
}

describe('redis store: start-up and connection URLs', () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('fails fast, naming DD_STORE_URL and never echoing the password, when the socket does not exist', async () => {
    const url = `unix://${join(tmpdir(), 'dockwatch-no-such-dir', 'redis.sock')}?password=s3cret-pw`;
    const error = await createNodeStorage({ driver: 'redis', path: '', url }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/DD_STORE_URL.*ENOENT/);
    expect((error as Error).message).not.toContain('s3cret-pw');
  });

  it('fails fast on a redis:// URL whose server refuses the connection', async () => {
    const port = await closedPort();
    const error = await createNodeStorage({
      driver: 'redis',
      path: '',
      url: `redis://:s3cret-pw@127.0.0.1:${port}`,
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toMatch(/DD_STORE_URL.*ECONNREFUSED/);
    expect((error as Error).message).not.toContain('s3cret-pw');
  });

  it('rejects an unsupported scheme without repeating the URL', async () => {
    const attempt = createNodeStorage({ driver: 'redis', path: '', url: 'http://user:s3cret-pw@example.test' });
    await expect(attempt).rejects.toThrow(/DD_STORE_URL must start with redis:\/\/, rediss:\/\/ or unix:\/\//);
    await expect(attempt).rejects.not.toThrow(/s3cret-pw/);
  });

  it('selects the database named by ?db= on a unix socket URL', async () => {
    const db3 = await createNodeStorage({ driver: 'redis', path: '', url: `${server.url}?db=3` });
    const db0 = await createNodeStorage({ driver: 'redis', path: '', url: server.url });
    try {
      await db3.storage.setItem('only:in-db3', { v: 1 });
      expect(await db3.storage.getItem('only:in-db3')).toEqual({ v: 1 });
      expect(await db0.storage.hasItem('only:in-db3')).toBe(false);
    } finally {
      await db3.close();
      await db0.close();
    }
  });
});

/** A loopback port nothing listens on: bound by us, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return address.port;
}
