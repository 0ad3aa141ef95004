import { createStorage } from 'unstorage';
import { describe, expect, it, vi } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { StoredApiKey } from '../../../shared/schemas/api-key';
import { apiKeyStatus, createApiKeyStore, LAST_USED_FLUSH_MS } from './api-key-store';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const record = (keyId: string, createdAt: string, extra: Partial<StoredApiKey> = {}): StoredApiKey => ({
  keyId,
  name: keyId,
  scopes: ['read'],
  digest: '0'.repeat(64),
  createdAt,
  createdBy: 'user:anonymous',
  parentKeyId: null,
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  ...extra,
});

describe('API key store', () => {
  it('derives status at read time; revoked wins over expired', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(apiKeyStatus(record('a'.repeat(12), '2026-01-01T00:00:00.000Z'), now)).toBe('active');
    const expired = record('a'.repeat(12), '2026-01-01T00:00:00.000Z', { expiresAt: '2026-01-01T12:00:00.000Z' });
    expect(apiKeyStatus(expired, now)).toBe('expired');
    expect(apiKeyStatus({ ...expired, revokedAt: '2026-01-01T13:00:00.000Z' }, now)).toBe('revoked');
  });

  it('keeps expiring a key whose expiry it has already parsed', () => {
    const expiring = record('a'.repeat(12), '2026-01-01T00:00:00.000Z', { expiresAt: '2026-01-01T12:00:00.000Z' });
    const expiry = Date.parse('2026-01-01T12:00:00.000Z');
    expect(apiKeyStatus(expiring, expiry - 1)).toBe('active');
    expect(apiKeyStatus(expiring, expiry)).toBe('expired');
    // A record changed in place (no caller does) must not keep the expiry parsed before.
    expiring.expiresAt = '2026-01-01T06:00:00.000Z';
    expect(apiKeyStatus(expiring, expiry - 1)).toBe('expired');
  });

  it('shows a use at once in the resource, and stores it with the next write', async () => {
    const storage = createStorage();
    let now = 1_000_000;
    const store = createApiKeyStore(storage, () => now, logger);
    const created = await store.create(record('aaaaaaaaaaaa', new Date(now).toISOString()));
    now += 5_000;
    store.touch('aaaaaaaaaaaa');
    expect(store.toResource(created).lastUsedAt).toBe(new Date(now).toISOString());
    expect(store.page(10, undefined)?.data[0]?.lastUsedAt).toBe(new Date(now).toISOString());
    store.touch('aaaaaaaaaaaa', now + 1);
    await store.revoke(['aaaaaaaaaaaa']);
    expect(await storage.getItem('api-keys:aaaaaaaaaaaa')).toMatchObject({
      lastUsedAt: new Date(now + 1).toISOString(),
      revokedAt: new Date(now).toISOString(),
    });
    expect(store.get('aaaaaaaaaaaa')?.lastUsedAt).toBe(new Date(now + 1).toISOString());
  });

  it('writes lastUsedAt at most once a minute per key, and the rest at flush', async () => {
    const storage = createStorage();
    let now = 1_000_000;
    const store = createApiKeyStore(storage, () => now, logger);
    await store.create(record('aaaaaaaaaaaa', new Date(now).toISOString()));
    const setItem = vi.spyOn(storage, 'setItem');
    for (let i = 0; i < 50; i++) {
      now += 100;
      store.touch('aaaaaaaaaaaa');
    }
    expect(setItem).not.toHaveBeenCalled();
    now += LAST_USED_FLUSH_MS;
    store.touch('aaaaaaaaaaaa');
    await store.flush();
    expect(setItem).toHaveBeenCalledTimes(1);
    store.touch('aaaaaaaaaaaa');
    await store.flush();
    expect(setItem).toHaveBeenCalledTimes(2);
    const reloaded = createApiKeyStore(storage, () => now, logger);
    await reloaded.load();
    expect(reloaded.get('aaaaaaaaaaaa')?.lastUsedAt).toBe(new Date(now).toISOString());
  });

  it('pages newest first with a cursor that must come back unaltered', async () => {
    const store = createApiKeyStore(createStorage(), () => 0, logger);
    // Two keys in the same millisecond: keyId breaks the tie so no page repeats or skips one.
    for (const [id, at] of [
      ['k00000000001', '2026-01-01T00:00:00.000Z'],
      ['k00000000002', '2026-01-01T00:00:00.000Z'],
      ['k00000000003', '2026-01-02T00:00:00.000Z'],
    ] as const) {
      await store.create(record(id, at));
    }
    const first = store.page(2, undefined);
    expect(first?.data.map((key) => key.keyId)).toEqual(['k00000000003', 'k00000000002']);
    const cursor = first?.nextCursor as string;
    expect(store.page(2, cursor)).toMatchObject({ hasMore: false, total: 3, data: [{ keyId: 'k00000000001' }] });
    for (const bad of [
      `${cursor}=`,
      `${cursor}A`,
      cursor.slice(1),
      cursor.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      btoa('v1|x|y'),
    ]) {
      expect(store.page(2, bad)).toBeUndefined();
    }
  });
});
