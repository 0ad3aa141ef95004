import { describe, expect, it } from 'vitest';
import { createDurableObjectStorage, type DurableObjectStorageLike } from './durable-object-driver';

/**
 * Durable Object storage as a Map, counting calls and enforcing the limits the real one has: at
 * most 128 keys per put(entries), and a transaction that commits only when its closure resolves.
 */
function countingStorage() {
  const data = new Map<string, unknown>();
  const calls = { put: 0, putEntries: 0, transaction: 0, keysPerPut: [] as number[] };
  const putEntries = (target: Map<string, unknown>, entries: Record<string, unknown>) => {
    const keys = Object.keys(entries);
    if (keys.length > 128) throw new RangeError(`put() takes at most 128 keys, got ${keys.length}`);
    calls.putEntries++;
    calls.keysPerPut.push(keys.length);
    for (const key of keys) target.set(key, entries[key]);
  };
  const storage: DurableObjectStorageLike = {
    get: async (key) => data.get(key),
    put: (async (keyOrEntries: string | Record<string, unknown>, value?: unknown) => {
      if (typeof keyOrEntries === 'string') {
        calls.put++;
        data.set(keyOrEntries, value);
      } else putEntries(data, keyOrEntries);
    }) as DurableObjectStorageLike['put'],
    delete: async (keys) => keys.filter((key) => data.delete(key)).length,
    list: async ({ prefix = '' }) => new Map([...data].filter(([key]) => key.startsWith(prefix)).sort()),
    async transaction(closure) {
      calls.transaction++;
      const staged = new Map<string, unknown>();
      const result = await closure({ put: async (entries) => putEntries(staged, entries) });
      for (const [key, value] of staged) data.set(key, value);
      return result;
    },
  };
  return { storage, data, calls };
}

describe('Durable Object driver: setItems', () => {
  it('writes a batch of 300 records as one transaction of puts of at most 128 keys', async () => {
    const { storage: doStorage, calls } = countingStorage();
    const storage = createDurableObjectStorage(doStorage);
    const items = Array.from({ length: 300 }, (_, i) => ({ key: `containers:c${i}`, value: { id: `c${i}`, i } }));
    await storage.setItems(items);
    expect(calls).toEqual({ put: 0, putEntries: 3, transaction: 1, keysPerPut: [128, 128, 44] });
    expect(await storage.getKeys('containers')).toHaveLength(300);
    expect(await storage.getItem('containers:c299')).toEqual({ id: 'c299', i: 299 });
  });

  it('lands nothing when a put of the transaction fails', async () => {
    const { storage: doStorage, data } = countingStorage();
    const failing: DurableObjectStorageLike = {
      ...doStorage,
      transaction: (closure) =>
        doStorage.transaction((txn) =>
          closure({
            put: async (entries) => {
              if ('k:200' in entries) throw new Error('storage full');
              await txn.put(entries);
            },
          }),
        ),
    };
    const storage = createDurableObjectStorage(failing);
    await expect(
      storage.setItems(Array.from({ length: 300 }, (_, i) => ({ key: `k:${i}`, value: { i } }))),
    ).rejects.toThrow('storage full');
    expect(data.size).toBe(0);
  });

  it('keeps the last value of a key given twice, and a key named __proto__ as a key', async () => {
    const { storage: doStorage, calls } = countingStorage();
    const storage = createDurableObjectStorage(doStorage);
    await storage.setItems([
      { key: 'a:x', value: { v: 1 } },
      { key: '__proto__', value: { v: 'proto' } },
      { key: 'a:x', value: { v: 2 } },
    ]);
    expect(await storage.getItem('a:x')).toEqual({ v: 2 });
    expect(await storage.getItem('__proto__')).toEqual({ v: 'proto' });
    await storage.setItems([]);
    expect(calls.transaction).toBe(1);
  });
});
