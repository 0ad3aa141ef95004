import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import {
  type AuditAction,
  type AuditEntry,
  AuditEntrySchema,
  type AuditRecord,
} from '../../../shared/schemas/audit-entry';
import { DAY_MS } from '../../../shared/update/timestamp';
import { type StagedWrite, writeTogether } from './staged-writes';
import { readAllValidated } from './validated-storage';

/** One entry a key: what append() writes, and every entry written before batches existed. */
const PREFIX = 'audit';
/**
 * Entries appended together (an observation's `container-added` entries), up to BATCH_SIZE a key:
 * a 10,000-agent fleet's first sync wrote, then pruned, 200,000 entry files on fs (issue 18).
 */
const BATCH_PREFIX = 'audit-batches';
// Far under a Durable Object value's 2 MB, however long the entries' details.
const BATCH_SIZE = 64;

// Each entry is checked on its own at load: one bad entry does not cost its batch.
const AuditBatchSchema = v.object({ entries: v.array(v.unknown()) });

export interface AuditQuery {
  offset: number;
  limit: number;
  actions?: readonly AuditAction[] | undefined;
  container?: string | undefined;
  /** Unix ms, inclusive. */
  from?: number | undefined;
  /** Unix ms, inclusive. */
  to?: number | undefined;
}

export interface AuditStore {
  load(): Promise<void>;
  append(record: AuditRecord): Promise<AuditEntry>;
  /** Several entries in one storage batch (`setItems`), in order; retention runs once after. */
  appendMany(records: readonly AuditRecord[]): Promise<AuditEntry[]>;
  /** The same entries staged, for a batch with another store's writes (writeTogether); prune() after. */
  stageMany(records: readonly AuditRecord[]): StagedWrite & { entries: readonly AuditEntry[] };
  /** Newest first. */
  query(query: AuditQuery): { data: AuditEntry[]; total: number };
  /** The most recent entries, newest first (for recent-status views). */
  recent(count: number): AuditEntry[];
  /** Drops what retention no longer keeps; appends do it too, a scheduled job does it on a quiet hub. */
  prune(): Promise<void>;
}

export interface AuditRetention {
  retentionDays: number;
  maxEntries: number;
}

/**
 * The audit trail, mirrored in memory (oldest first) so queries cost no I/O: an entry appended
 * alone is a record of its own, entries appended together share records of up to BATCH_SIZE.
 * Retention is bounded twice: entries older than `retentionDays` and entries beyond the newest
 * `maxEntries` are dropped; a shared record is deleted once all its entries are.
 */
export function createAuditStore(
  storage: Storage,
  retention: AuditRetention,
  now: () => number,
  logger: Logger,
): AuditStore {
  const entries: AuditEntry[] = [];
  /**
   * Entries before `head` are dropped: retention moves it rather than shifting the array on every
   * append (a 10,000-agent sync appended and dropped 10,000 times over a full trail), and the
   * dropped part is cut off once it is the larger half.
   */
  let head = 0;
  /** The batch record holding an entry, for entries stored in one; with how many of its entries are kept. */
  const batchOf = new Map<string, string>();
  const keptInBatch = new Map<string, number>();
  let sequence = 0;

  // Ids sort in time order: zero-padded milliseconds, then a per-process sequence.
  const nextId = (ms: number) =>
    `${ms.toString(36).padStart(9, '0')}-${(sequence++ % 1_679_616).toString(36).padStart(4, '0')}${crypto.randomUUID().slice(0, 4)}`;

  const keepInBatch = (key: string, batch: readonly AuditEntry[]) => {
    for (const entry of batch) batchOf.set(entry.id, key);
    keptInBatch.set(key, batch.length);
  };

  /** The keys to delete once `dropped` are gone from memory. */
  const keysFreedBy = (dropped: readonly AuditEntry[]): string[] => {
    const keys: string[] = [];
    for (const entry of dropped) {
      const batch = batchOf.get(entry.id);
      if (batch === undefined) {
        keys.push(`${PREFIX}:${entry.id}`);
        continue;
      }
      batchOf.delete(entry.id);
      const left = (keptInBatch.get(batch) ?? 1) - 1;
      if (left > 0) keptInBatch.set(batch, left);
      else {
        keptInBatch.delete(batch);
        keys.push(batch);
      }
    }
    return keys;
  };

  const prune = async () => {
    const cutoff = now() - retention.retentionDays * DAY_MS;
    let drop = head;
    while (drop < entries.length && Date.parse((entries[drop] as AuditEntry).timestamp) < cutoff) drop++;
    drop = Math.max(drop, entries.length - retention.maxEntries);
    if (drop <= head) return;
    const removed = entries.slice(head, drop);
    head = drop;
    if (head > 1024 && head * 2 > entries.length) {
      entries.splice(0, head);
      head = 0;
    }
    await Promise.all(keysFreedBy(removed).map((key) => storage.removeItem(key)));
  };

  const stageMany = (records: readonly AuditRecord[]): StagedWrite & { entries: readonly AuditEntry[] } => {
    const ms = now();
    const timestamp = new Date(ms).toISOString();
    const batch = records.map((record): AuditEntry => ({ ...record, id: nextId(ms), timestamp }));
    const chunks: AuditEntry[][] = [];
    for (let i = 0; i < batch.length; i += BATCH_SIZE) chunks.push(batch.slice(i, i + BATCH_SIZE));
    const items = chunks.map((chunk) =>
      chunk.length === 1
        ? { key: `${PREFIX}:${(chunk[0] as AuditEntry).id}`, value: chunk[0] }
        : { key: `${BATCH_PREFIX}:${(chunk[0] as AuditEntry).id}`, value: { entries: chunk } },
    );
    return {
      entries: batch,
      items: () => items,
      apply: () => {
        for (const [index, chunk] of chunks.entries())
          if (chunk.length > 1) keepInBatch((items[index] as { key: string }).key, chunk);
        for (const entry of batch) entries.push(entry);
      },
    };
  };

  const loadBatches = async (): Promise<AuditEntry[]> => {
    const stored = await readAllValidated(storage, await storage.getKeys(BATCH_PREFIX), AuditBatchSchema, logger);
    const loaded: AuditEntry[] = [];
    for (const { key, value } of stored) {
      const batch: AuditEntry[] = [];
      for (const [index, raw] of value.entries.entries()) {
        const result = v.safeParse(AuditEntrySchema, raw);
        if (result.success) batch.push(result.output);
        else
          logger.error('stored audit entry failed validation; ignoring it', {
            key,
            index,
            issue: result.issues[0]?.message,
          });
      }
      if (batch.length > 0) keepInBatch(key, batch);
      loaded.push(...batch);
    }
    return loaded;
  };

  return {
    async load() {
      entries.length = 0;
      head = 0;
      batchOf.clear();
      keptInBatch.clear();
      const singles = await readAllValidated(storage, await storage.getKeys(PREFIX), AuditEntrySchema, logger);
      for (const { value } of singles) entries.push(value);
      entries.push(...(await loadBatches()));
      entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      await prune();
    },
    prune,
    async append(record) {
      const ms = now();
      const entry: AuditEntry = { ...record, id: nextId(ms), timestamp: new Date(ms).toISOString() };
      await storage.setItem(`${PREFIX}:${entry.id}`, entry);
      entries.push(entry);
      await prune();
      return entry;
    },
    stageMany,
    async appendMany(records) {
      if (records.length === 0) return [];
      const staged = stageMany(records);
      await writeTogether(storage, staged);
      await prune();
      return [...staged.entries];
    },
    query(query) {
      const actions = query.actions?.length ? new Set<string>(query.actions) : undefined;
      const matching: AuditEntry[] = [];
      for (let i = entries.length - 1; i >= head; i--) {
        const entry = entries[i] as AuditEntry;
        if (actions && !actions.has(entry.action)) continue;
        if (query.container !== undefined && entry.containerName !== query.container) continue;
        const at = Date.parse(entry.timestamp);
        if (query.from !== undefined && at < query.from) continue;
        if (query.to !== undefined && at > query.to) continue;
        matching.push(entry);
      }
      return { data: matching.slice(query.offset, query.offset + query.limit), total: matching.length };
    },
    recent(count) {
      return entries.slice(Math.max(head, entries.length - count)).reverse();
    },
  };
}
