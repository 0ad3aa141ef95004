import { createStorage, defineDriver, type Storage, type StorageValue } from 'unstorage';
import { scopeClearToBase } from '../../store/scope-clear-to-base';
import { createSerialQueue } from '../../store/validated-storage';

/** What a batch needs of the transaction `storage.transaction()` hands its closure. */
export interface DurableObjectTransactionLike {
  put(entries: Record<string, unknown>): Promise<void>;
}

/** The part of a Durable Object's `state.storage` this driver uses (workers-types is not a dependency). */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list(options: { prefix?: string; startAfter?: string; limit?: number }): Promise<Map<string, unknown>>;
  transaction<T>(closure: (txn: DurableObjectTransactionLike) => Promise<T>): Promise<T>;
}

export interface DurableObjectDriverOptions {
  storage: DurableObjectStorageLike;
}

const DRIVER_NAME = 'durable-object';
// list() materialises every value it returns, and delete() takes at most 128 keys per call.
const LIST_PAGE = 512;
const DELETE_BATCH = 128;
// put(entries) takes at most 128 keys per call too.
const PUT_BATCH = 128;

/**
 * unstorage over Durable Object storage. Each put is atomic per key, so a record is always
 * either the old or the new value (decisions §3). `setItems` (an edge agent's snapshot applied)
 * is one transaction: every record of the batch lands, or none does, in one commit.
 * Keys are stored in unstorage's ':' form, which keeps a base's keys one prefix range.
 */
export const durableObjectDriver = defineDriver((options: DurableObjectDriverOptions) => {
  const { storage } = options;
  // One batch at a time: two snapshots applied at once never hold two transactions open together.
  const oneTransactionAtATime = createSerialQueue();

  const listKeys = async (base: string): Promise<string[]> => {
    const keys: string[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = await storage.list({
        prefix: base,
        limit: LIST_PAGE,
        ...(startAfter === undefined ? {} : { startAfter }),
      });
      keys.push(...page.keys());
      if (page.size < LIST_PAGE) return keys;
      startAfter = keys[keys.length - 1];
    }
  };

  const deleteKeys = async (keys: string[]): Promise<void> => {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) await storage.delete(keys.slice(i, i + DELETE_BATCH));
  };

  return {
    name: DRIVER_NAME,
    options,
    getInstance: () => storage,
    async hasItem(key) {
      return (await storage.get(key)) !== undefined;
    },
    async getItem(key) {
      const value = await storage.get(key);
      return value === undefined ? null : (value as StorageValue);
    },
    async setItem(key, value) {
      await storage.put(key, value);
    },
    async setItems(items) {
      if (items.length === 0) return;
      await oneTransactionAtATime(() =>
        storage.transaction(async (txn) => {
          for (let i = 0; i < items.length; i += PUT_BATCH) {
            // fromEntries defines own properties, so even a key named __proto__ is stored as a key.
            await txn.put(Object.fromEntries(items.slice(i, i + PUT_BATCH).map(({ key, value }) => [key, value])));
          }
        }),
      );
    },
    async removeItem(key) {
      await storage.delete([key]);
    },
    getKeys: (base) => listKeys(base),
    async clear(base) {
      await deleteKeys(await listKeys(base));
    },
  };
});

/** The hub's storage on Workers: unstorage over the object's own storage. */
export function createDurableObjectStorage(storage: DurableObjectStorageLike): Storage {
  const driver = durableObjectDriver({ storage });
  return scopeClearToBase(createStorage({ driver }));
}
