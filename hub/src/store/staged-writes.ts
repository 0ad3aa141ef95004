import type { Storage } from 'unstorage';

/**
 * Records a store has prepared but not written: its storage items, and what it does in memory once
 * they are stored. Several stores' staged writes go to storage together (writeTogether).
 */
export interface StagedWrite {
  /**
   * Writes that must reach storage before this one: a store that rewrites a key whole from its
   * memory (an agent's container pack) must not be overtaken by an older version of that key.
   */
  readonly after?: Promise<unknown> | undefined;
  /** The items to store, asked for once `after` has settled: a store may build them from its memory then. */
  items(): readonly { key: string; value: unknown }[];
  /** Called after the items are stored: the store's memory follows storage, never leads it. */
  apply(): void;
  /** Called once the write is over, stored or failed (a store releases what `after` waits on). */
  readonly settled?: (() => void) | undefined;
}

/**
 * One storage batch for the writes of several stores (`setItems`: one transaction on Workers, one
 * group commit on the fs store), then each store's memory updated in the order given. An agent's
 * snapshot is its records and their audit entries in one such batch (issue 16 item 3).
 */
export async function writeTogether(storage: Storage, ...writes: readonly StagedWrite[]): Promise<void> {
  try {
    await Promise.all(writes.map((write) => write.after));
    const items = writes.flatMap((write) => write.items());
    // unstorage types values as its StorageValue; these are the stores' JSON records.
    if (items.length > 0) await storage.setItems(items as { key: string; value: never }[]);
    for (const write of writes) write.apply();
  } finally {
    for (const write of writes) write.settled?.();
  }
}
