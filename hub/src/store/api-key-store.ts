import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import { type ApiKey, type ApiKeyStatus, type StoredApiKey, StoredApiKeySchema } from '../../../shared/schemas/api-key';
import { displayPrefixOf } from '../auth/api-key-credential';
import { createSerialQueue, readValidated } from './validated-storage';

const PREFIX = 'api-keys';
const keyOf = (keyId: string) => `${PREFIX}:${keyId}`;
/** lastUsedAt reaches storage at most this often per key: a write per request would make every call cost I/O. */
export const LAST_USED_FLUSH_MS = 60_000;

export interface ApiKeyPage {
  data: ApiKey[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

export interface ApiKeyStore {
  load(): Promise<void>;
  get(keyId: string): StoredApiKey | undefined;
  /** Stores a new key; returns it as stored (createdAt made strictly later than every earlier key's). */
  create(record: StoredApiKey): Promise<StoredApiKey>;
  /** Newest first; undefined when the cursor is not one this store issued. */
  page(limit: number, cursor: string | undefined): ApiKeyPage | undefined;
  /** The key and every key it minted, transitively: the named one first. */
  descendants(keyId: string): string[];
  /** Sets revokedAt on each key that has none yet. */
  revoke(keyIds: readonly string[]): Promise<void>;
  /**
   * Records a use (at `at`, else now) in memory; storage catches up at most once per
   * LAST_USED_FLUSH_MS. Until then get() returns the record with its last stored lastUsedAt;
   * page() and toResource() show the current one.
   */
  touch(keyId: string, at?: number): void;
  /** Writes every pending lastUsedAt (at stop). */
  flush(): Promise<void>;
  /** The status at `at`, else now. */
  statusOf(record: StoredApiKey, at?: number): ApiKeyStatus;
  toResource(record: StoredApiKey): ApiKey;
}

// The expiry of each record object, parsed once: the status is checked on every keyed request and
// Date.parse costs about 0.2 µs. The text is kept too, so a record changed in place is parsed again.
const parsedExpiries = new WeakMap<StoredApiKey, { text: string; ms: number }>();

function expiresAtMs(record: StoredApiKey, expiresAt: string): number {
  const cached = parsedExpiries.get(record);
  if (cached?.text === expiresAt) return cached.ms;
  const ms = Date.parse(expiresAt);
  parsedExpiries.set(record, { text: expiresAt, ms });
  return ms;
}

/** Revoked wins over expired (http-interface §3.1): both are read from timestamps, never stored as a state. */
export function apiKeyStatus(record: StoredApiKey, now: number): ApiKeyStatus {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && expiresAtMs(record, record.expiresAt) <= now) return 'expired';
  return 'active';
}

const toBase64Url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const CURSOR_TEXT = /^v1\|(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([a-z0-9]{12})$/;

function encodeCursor(record: StoredApiKey): string {
  return toBase64Url(`v1|${record.createdAt}|${record.keyId}`);
}

/**
 * The position after which the next page starts. Base64 decoders forgive padding and stray bits,
 * so the cursor is re-encoded and must come out byte for byte the same (http-interface §4.2).
 */
function decodeCursor(cursor: string): { createdAt: string; keyId: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
  const match = CURSOR_TEXT.exec(text);
  if (!match || toBase64Url(text) !== cursor) return undefined;
  return { createdAt: match[1] as string, keyId: match[2] as string };
}

/** Newest first; keys created in the same millisecond fall back to keyId order so paging stays total. */
function newerFirst(a: { createdAt: string; keyId: string }, b: { createdAt: string; keyId: string }): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.keyId < b.keyId ? 1 : a.keyId > b.keyId ? -1 : 0;
}

export function createApiKeyStore(storage: Storage, now: () => number, logger: Logger): ApiKeyStore {
  const keys = new Map<string, StoredApiKey>();
  // The latest use of each key (ms) not yet folded into its record. A use costs a number in a map:
  // formatting an ISO string and copying the record on every keyed request took about 1.5 µs of
  // its 40 (bench finding), so the string is made only when the key is shown or written.
  const lastUses = new Map<string, number>();
  const lastFlushed = new Map<string, number>();
  const dirty = new Set<string>();
  const serial = createSerialQueue();

  const withLastUse = (record: StoredApiKey): StoredApiKey => {
    const at = lastUses.get(record.keyId);
    return at === undefined ? record : { ...record, lastUsedAt: new Date(at).toISOString() };
  };

  // Marked clean when queued, not when run: a flush right after must not queue the same write twice.
  const write = (keyId: string) => {
    dirty.delete(keyId);
    lastFlushed.set(keyId, now());
    return serial(async () => {
      const current = keys.get(keyId);
      if (!current) return;
      const record = withLastUse(current);
      keys.set(keyId, record);
      lastUses.delete(keyId);
      await storage.setItem(keyOf(keyId), record);
    });
  };

  const store: ApiKeyStore = {
    async load() {
      const stored = await storage.getKeys(PREFIX);
      const loaded = await Promise.all(stored.map((key) => readValidated(storage, key, StoredApiKeySchema, logger)));
      keys.clear();
      lastUses.clear();
      for (const record of loaded) if (record) keys.set(record.keyId, record);
    },
    get: (keyId) => keys.get(keyId),
    async create(record) {
      // Keys created within one millisecond would tie and list in keyId order, not creation order:
      // each new key's createdAt is strictly after every earlier one (by at most a millisecond).
      let latest = Number.NEGATIVE_INFINITY;
      for (const key of keys.values()) latest = Math.max(latest, Date.parse(key.createdAt));
      const createdAt = Date.parse(record.createdAt) > latest ? record.createdAt : new Date(latest + 1).toISOString();
      const stored = { ...record, createdAt };
      keys.set(stored.keyId, stored);
      await write(stored.keyId);
      return stored;
    },
    page(limit, cursor) {
      const all = [...keys.values()].sort(newerFirst);
      let start = 0;
      if (cursor !== undefined) {
        const after = decodeCursor(cursor);
        // Keys are never deleted, so an issued cursor always names one; an edited one that still decodes does not.
        if (!after || keys.get(after.keyId)?.createdAt !== after.createdAt) return undefined;
        start = all.findIndex((record) => newerFirst(record, after) > 0);
        if (start < 0) start = all.length;
      }
      const slice = all.slice(start, start + limit);
      const hasMore = start + slice.length < all.length;
      const last = slice.at(-1);
      return {
        data: slice.map((record) => store.toResource(record)),
        total: all.length,
        hasMore,
        ...(hasMore && last && { nextCursor: encodeCursor(last) }),
      };
    },
    descendants(keyId) {
      const order = [keyId];
      // Breadth first over parentKeyId links; the seen set guards against a corrupted cycle.
      const seen = new Set(order);
      for (let i = 0; i < order.length; i++) {
        for (const record of keys.values()) {
          if (record.parentKeyId === order[i] && !seen.has(record.keyId)) {
            seen.add(record.keyId);
            order.push(record.keyId);
          }
        }
      }
      return order;
    },
    async revoke(keyIds) {
      const at = new Date(now()).toISOString();
      const changed = keyIds.filter((keyId) => keys.get(keyId)?.revokedAt === null);
      for (const keyId of changed) keys.set(keyId, { ...(keys.get(keyId) as StoredApiKey), revokedAt: at });
      await Promise.all(changed.map(write));
    },
    touch(keyId, at = now()) {
      if (!keys.has(keyId)) return;
      lastUses.set(keyId, at);
      dirty.add(keyId);
      if (at - (lastFlushed.get(keyId) ?? 0) < LAST_USED_FLUSH_MS) return;
      write(keyId).catch((error) =>
        logger.warn('could not store an API key lastUsedAt', { keyId, error: String(error) }),
      );
    },
    async flush() {
      await Promise.all([...dirty].map(write));
    },
    statusOf: (record, at = now()) => apiKeyStatus(record, at),
    toResource(record) {
      const { digest: _digest, rateLimitMax, ...rest } = withLastUse(record);
      return {
        ...rest,
        displayPrefix: displayPrefixOf(record.keyId),
        status: apiKeyStatus(record, now()),
        scopes: [...record.scopes],
        ...(rateLimitMax !== undefined && { rateLimitMax }),
      };
    },
  };
  return store;
}
