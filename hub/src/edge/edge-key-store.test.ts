import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { parseEdgePublicKey } from './authorized-keys';
import { createEdgeKeyStore } from './edge-key-store';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const keyOf = (fill: number, label = 'k') => {
  const parsed = parseEdgePublicKey(btoa(String.fromCharCode(...new Uint8Array(32).fill(fill)))) as NonNullable<
    ReturnType<typeof parseEdgePublicKey>
  >;
  return { ...parsed, label };
};

describe('edge key store', () => {
  it('registers an authorized-keys file in one batch, skipping keys it has, and reads them back', async () => {
    const storage = createStorage();
    const batches: number[] = [];
    const setItems = storage.setItems.bind(storage);
    storage.setItems = async (items, options) => {
      batches.push(items.length);
      return setItems(items, options);
    };
    const store = createEdgeKeyStore(storage, () => Date.UTC(2026, 0, 1), logger);
    await store.load();
    await store.register(keyOf(1, 'known'));
    const file = [keyOf(1, 'renamed'), keyOf(2, 'a'), keyOf(3, 'b'), keyOf(2, 'twice')];
    expect(await store.registerMany(file)).toBe(2);
    expect(await store.registerMany(file)).toBe(0);
    expect(batches).toEqual([2]);

    const reloaded = createEdgeKeyStore(storage, () => Date.UTC(2026, 0, 1), logger);
    await reloaded.load();
    expect(
      reloaded
        .list()
        .map((key) => key.label)
        .sort(),
    ).toEqual(['a', 'b', 'known']);
  });

  it('registers once, revokes once, and reads everything back after a restart', async () => {
    const storage = createStorage();
    let now = Date.UTC(2026, 0, 1);
    const store = createEdgeKeyStore(storage, () => now, logger);
    await store.load();
    const registered = await store.register(keyOf(1, 'nas'));
    expect(registered).toMatchObject({ label: 'nas', revokedAt: null, createdAt: '2026-01-01T00:00:00.000Z' });
    expect(await store.register(keyOf(1, 'again'))).toBe('exists');
    now += 1000;
    await store.register(keyOf(2));
    expect(store.list().map((key) => key.label)).toEqual(['k', 'nas']);
    now += 1000;
    const revoked = await store.revoke(keyOf(1).keyId);
    expect(revoked?.revokedAt).toBe('2026-01-01T00:00:02.000Z');
    now += 1000;
    expect((await store.revoke(keyOf(1).keyId))?.revokedAt).toBe('2026-01-01T00:00:02.000Z');
    expect(await store.revoke('0000000000000000')).toBeUndefined();

    const reloaded = createEdgeKeyStore(storage, () => now, logger);
    await reloaded.load();
    expect(reloaded.get(keyOf(1).keyId)?.revokedAt).toBe('2026-01-01T00:00:02.000Z');
    expect(reloaded.publicKeyBytes(keyOf(2).keyId)).toEqual(new Uint8Array(32).fill(2));
  });

  it('binds a name to the first key that claims it, also when two claim it at once', async () => {
    const storage = createStorage();
    const store = createEdgeKeyStore(storage, () => 0, logger);
    await store.load();
    const [a, b] = [keyOf(1).keyId, keyOf(2).keyId];
    const claims = await Promise.all([store.claimName('nas', a), store.claimName('nas', b)]);
    expect(claims).toEqual(['bound', 'taken']);
    expect(await store.claimName('nas', a)).toBe('bound');
    expect(store.namesOf(a)).toEqual(['nas']);
    const reloaded = createEdgeKeyStore(storage, () => 0, logger);
    await reloaded.load();
    expect(reloaded.bindingOf('nas')?.keyId).toBe(a);
  });

  it('ignores stored records that fail validation, or sit under another key', async () => {
    const storage = createStorage();
    await storage.setItem('edge-keys:0123456789abcdef', { keyId: '0123456789abcdef', label: 5 });
    const good = keyOf(3);
    await storage.setItem('edge-keys:ffffffffffffffff', {
      ...good,
      createdAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
    });
    await storage.setItem('edge-names:nas', { agentName: 'nas', keyId: 'nope', boundAt: '2026-01-01T00:00:00.000Z' });
    const store = createEdgeKeyStore(storage, () => 0, logger);
    await store.load();
    expect(store.list()).toEqual([]);
    expect(store.bindingOf('nas')).toBeUndefined();
  });
});
