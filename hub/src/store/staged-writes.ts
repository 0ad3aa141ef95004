import type { Storage } from 'unstorage';

/**
 * Records a store has prepared but not written: its storage items, and what it does in memory once
 * they are stored. Several stores' staged writes go to storage together (writeTogether).
 */
export interface StagedWrite {
  readonly items: readonly { key: string; value: unknown }[];
  /** Called after the items are stored: the store's memory follows storage, never leads it. */
  apply(): void;
}

/**
 * One storage batch for the writes of several stores (`setItems`: one transaction on Workers, one
 * group commit on the fs store), then each store's memory updated in the order given. An agent's
 * snapshot is its records and their audit entries in one such batch (issue 16 item 3).
 */
export async function writeTogether(storage: Storage, ...writes: readonly StagedWrite[]): Promise<void> {
  const items = writes.flatMap((write) => write.items);
  // unstorage types values as its StorageValue; these are the stores' JSON records.
  if (items.length > 0) await storage.setItems(items as { key: string; value: never }[]);
  for (const write of writes) write.apply();
}
