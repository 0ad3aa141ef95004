import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import {
  type AuditAction,
  type AuditEntry,
  AuditEntrySchema,
  type AuditRecord,
} from '../../../shared/schemas/audit-entry';
import { type StagedWrite, writeTogether } from './staged-writes';
import { readValidated } from './validated-storage';

const PREFIX = 'audit';
const DAY_MS = 86_400_000;

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
 * The audit trail: one stored record per entry, mirrored in memory (oldest first) so queries
 * cost no I/O. Retention is bounded twice: entries older than `retentionDays` and entries
 * beyond the newest `maxEntries` are deleted.
 */
export function createAuditStore(
  storage: Storage,
  retention: AuditRetention,
  now: () => number,
  logger: Logger,
): AuditStore {
  const entries: AuditEntry[] = [];
  let sequence = 0;

  // Ids sort in time order: zero-padded milliseconds, then a per-process sequence.
  const nextId = (ms: number) =>
    `${ms.toString(36).padStart(9, '0')}-${(sequence++ % 1_679_616).toString(36).padStart(4, '0')}${crypto.randomUUID().slice(0, 4)}`;

  const prune = async () => {
    const cutoff = now() - retention.retentionDays * DAY_MS;
    let drop = 0;
    while (drop < entries.length && Date.parse((entries[drop] as AuditEntry).timestamp) < cutoff) drop++;
    drop = Math.max(drop, entries.length - retention.maxEntries);
    if (drop <= 0) return;
    const removed = entries.splice(0, drop);
    await Promise.all(removed.map((entry) => storage.removeItem(`${PREFIX}:${entry.id}`)));
  };

  const stageMany = (records: readonly AuditRecord[]): StagedWrite & { entries: readonly AuditEntry[] } => {
    const ms = now();
    const timestamp = new Date(ms).toISOString();
    const batch = records.map((record): AuditEntry => ({ ...record, id: nextId(ms), timestamp }));
    return {
      entries: batch,
      items: batch.map((entry) => ({ key: `${PREFIX}:${entry.id}`, value: entry })),
      apply: () => {
        for (const entry of batch) entries.push(entry);
      },
    };
  };

  return {
    async load() {
      const keys = await storage.getKeys(PREFIX);
      const loaded = await Promise.all(keys.map((key) => readValidated(storage, key, AuditEntrySchema, logger)));
      entries.length = 0;
      for (const entry of loaded) if (entry) entries.push(entry);
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
      for (let i = entries.length - 1; i >= 0; i--) {
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
      return entries.slice(-count).reverse();
    },
  };
}
