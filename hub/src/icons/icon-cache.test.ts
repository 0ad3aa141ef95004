import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { type CachedIcon, createIconCache } from './icon-cache';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const icon = (bytes: number, storedAt: number): CachedIcon => ({
  contentType: 'image/png',
  body: new Uint8Array(bytes).fill(7),
  storedAt,
});

describe('icon cache', () => {
  it('keeps icons in storage, so a new cache on the same storage (a restart) serves them', async () => {
    const storage = createStorage();
    await createIconCache(storage, logger).put('selfhst:a', icon(10, 1));
    const again = await createIconCache(storage, logger).get('selfhst:a');
    expect(again).toEqual(icon(10, 1));
  });

  it('evicts the oldest icons beyond the count bound', async () => {
    const cache = createIconCache(createStorage(), logger, { maxEntries: 2, maxBytes: 1000 });
    await cache.put('a', icon(1, 1));
    await cache.put('b', icon(1, 2));
    await cache.put('c', icon(1, 3));
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('b')).toBeDefined();
    expect(await cache.get('c')).toBeDefined();
    expect(await cache.stats()).toEqual({ entries: 2, bytes: 2, maxEntries: 2, maxBytes: 1000 });
  });

  it('evicts the oldest icons beyond the byte bound, deletes their records, and never keeps one bigger than the bound', async () => {
    const storage = createStorage();
    const cache = createIconCache(storage, logger, { maxEntries: 100, maxBytes: 100 });
    await cache.put('a', icon(40, 1));
    await cache.put('b', icon(40, 2));
    await cache.put('c', icon(40, 3));
    expect(await cache.get('a')).toBeUndefined();
    expect(await storage.getKeys('icons:file')).toEqual(['icons:file:b', 'icons:file:c']);
    await cache.put('huge', icon(101, 4));
    expect(await cache.get('huge')).toBeUndefined();
    expect((await cache.stats()).bytes).toBe(80);
  });

  it('clear() removes every icon, orphaned records included, and says how many were indexed', async () => {
    const storage = createStorage();
    const cache = createIconCache(storage, logger);
    await cache.put('a', icon(1, 1));
    await storage.setItem('icons:file:orphan', { contentType: 'image/png', data: 'AA==', storedAt: 0 });
    expect(await cache.clear()).toBe(1);
    expect(await storage.getKeys('icons')).toEqual(['icons:index']);
    expect(await cache.get('a')).toBeUndefined();
  });

  it('forgets an index entry whose record is gone or invalid, so the icon is fetched again', async () => {
    const storage = createStorage();
    const cache = createIconCache(storage, logger);
    await cache.put('a', icon(1, 1));
    await storage.setItem('icons:file:a', { contentType: 'text/html', data: 'PHNjcmlwdD4=', storedAt: 1 });
    expect(await cache.get('a')).toBeUndefined();
    expect((await cache.stats()).entries).toBe(0);
  });
});
