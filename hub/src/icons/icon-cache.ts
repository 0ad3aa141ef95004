import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { createSerialQueue, readValidated } from '../store/validated-storage';

/** The two kinds of icon the hub serves, by their content type. */
export const ICON_CONTENT_TYPES = ['image/svg+xml', 'image/png'] as const;
export type IconContentType = (typeof ICON_CONTENT_TYPES)[number];

export interface CachedIcon {
  contentType: IconContentType;
  body: Uint8Array;
  /** When it was fetched, ms since the epoch. */
  storedAt: number;
}

export interface IconCacheLimits {
  /** At most this many icons are kept; the oldest go first. */
  maxEntries: number;
  /** At most this many bytes of icons together; the oldest go first. */
  maxBytes: number;
}

/** 500 icons or 16 MiB: a large dashboard's worth, small beside the hub's other records. */
export const DEFAULT_ICON_CACHE_LIMITS: IconCacheLimits = { maxEntries: 500, maxBytes: 16 * 1024 * 1024 };

export interface IconCacheStats {
  entries: number;
  bytes: number;
  maxEntries: number;
  maxBytes: number;
}

export interface IconCache {
  get(key: string): Promise<CachedIcon | undefined>;
  put(key: string, icon: CachedIcon): Promise<void>;
  /** Removes every cached icon; returns how many there were. */
  clear(): Promise<number>;
  stats(): Promise<IconCacheStats>;
}

const INDEX_KEY = 'icons:index';
const FILE_PREFIX = 'icons:file';

const IndexSchema = v.object({
  entries: v.array(v.object({ key: v.string(), bytes: v.number(), storedAt: v.number() })),
});
type IconIndex = v.InferOutput<typeof IndexSchema>;

const FileSchema = v.object({
  contentType: v.picklist(ICON_CONTENT_TYPES),
  /** The bytes in base64: every storage driver keeps JSON. */
  data: v.string(),
  storedAt: v.number(),
});

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The icon cache in the hub's storage, so it survives restarts and works on every runtime (files,
 * redis, a Durable Object): one record per icon and one index of them all, bounded by count and by
 * bytes (oldest evicted first). Writes run one at a time. A crash between a file and the index
 * leaves at worst an icon that is fetched again or a file no index names, which clear() removes.
 */
export function createIconCache(
  storage: Storage,
  logger: Logger,
  limits: IconCacheLimits = DEFAULT_ICON_CACHE_LIMITS,
): IconCache {
  const serial = createSerialQueue();
  let index: IconIndex | undefined;
  const fileKey = (key: string) => `${FILE_PREFIX}:${key}`;

  const loadIndex = async (): Promise<IconIndex> => {
    index ??= (await readValidated(storage, INDEX_KEY, IndexSchema, logger)) ?? { entries: [] };
    return index;
  };

  const forget = async (key: string) => {
    const current = await loadIndex();
    const kept = current.entries.filter((entry) => entry.key !== key);
    if (kept.length === current.entries.length) return;
    index = { entries: kept };
    await storage.setItem(INDEX_KEY, index);
  };

  return {
    async get(key) {
      const current = await loadIndex();
      if (!current.entries.some((entry) => entry.key === key)) return undefined;
      const file = await readValidated(storage, fileKey(key), FileSchema, logger);
      if (!file) {
        // The index outlived its file (a crash, a cleared store): fetch it again next time.
        await serial(() => forget(key));
        return undefined;
      }
      return { contentType: file.contentType, body: fromBase64(file.data), storedAt: file.storedAt };
    },
    put: (key, icon) =>
      serial(async () => {
        // Bigger than the whole cache: not kept (the route caps icons far below this anyway).
        if (icon.body.length > limits.maxBytes) return;
        const current = await loadIndex();
        const entries = current.entries.filter((entry) => entry.key !== key);
        entries.push({ key, bytes: icon.body.length, storedAt: icon.storedAt });
        entries.sort((a, b) => a.storedAt - b.storedAt);
        let bytes = entries.reduce((sum, entry) => sum + entry.bytes, 0);
        const evicted: string[] = [];
        while (entries.length > limits.maxEntries || bytes > limits.maxBytes) {
          const oldest = entries.shift();
          if (!oldest) break;
          bytes -= oldest.bytes;
          evicted.push(oldest.key);
        }
        await storage.setItem(fileKey(key), {
          contentType: icon.contentType,
          data: toBase64(icon.body),
          storedAt: icon.storedAt,
        });
        // The index first, then the evicted files: a crash in between leaves orphans, never a dangling entry.
        index = { entries };
        await storage.setItem(INDEX_KEY, index);
        await Promise.all(evicted.filter((old) => old !== key).map((old) => storage.removeItem(fileKey(old))));
      }),
    clear: () =>
      serial(async () => {
        const current = await loadIndex();
        const count = current.entries.length;
        index = { entries: [] };
        await storage.setItem(INDEX_KEY, index);
        const files = await storage.getKeys(FILE_PREFIX);
        await Promise.all(files.map((key) => storage.removeItem(key)));
        return count;
      }),
    async stats() {
      const current = await loadIndex();
      return {
        entries: current.entries.length,
        bytes: current.entries.reduce((sum, entry) => sum + entry.bytes, 0),
        ...limits,
      };
    },
  };
}
