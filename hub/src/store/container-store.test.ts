import { createStorage, type Storage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../../test/support/container-fixture';
import { PACK_SIZE } from './container-packs';
import { createContainerStore } from './container-store';

function logger() {
  const ring = createLogRing();
  return { ring, logger: createLogger({ level: 'info', ring, sink: silentSink }) };
}

const record = (id: string, agent: string | undefined, name = id): Container =>
  containerRecord({ id, name, ...(agent === undefined ? {} : { agent }) });

const sorted = (containers: readonly Container[]) =>
  containers.map((container) => `${container.id}=${container.name}`).sort();

async function reloaded(storage: Storage) {
  const store = createContainerStore(storage, logger().logger);
  await store.load();
  return store;
}

/** Storage whose batches finish in a shuffled order: later writes can overtake earlier ones. */
function shuffledStorage(): Storage {
  const storage = createStorage();
  const setItems = storage.setItems.bind(storage);
  storage.setItems = async (items, options) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    return setItems(items, options);
  };
  return storage;
}

describe('container store: agents records in packs', () => {
  it('stores an agent record in its packs and the hub own a key each, and loads them back', async () => {
    const storage = createStorage();
    const store = await reloaded(storage);
    const fleet = [
      ...Array.from({ length: 70 }, (_, i) => record(`a${i}`, 'edge-a')),
      ...Array.from({ length: 5 }, (_, i) => record(`b${i}`, 'edge:b/c')),
      ...Array.from({ length: 3 }, (_, i) => record(`l${i}`, undefined)),
    ];
    await store.putMany(fleet);

    expect((await storage.getKeys('container-packs')).sort()).toEqual([
      'container-packs:edge%3Ab%2Fc:0',
      'container-packs:edge-a:0',
      'container-packs:edge-a:1',
      'container-packs:edge-a:2',
    ]);
    expect((await storage.getKeys('containers')).sort()).toEqual(['containers:l0', 'containers:l1', 'containers:l2']);
    const again = await reloaded(storage);
    expect(sorted(again.all())).toEqual(sorted(fleet));
    expect(again.ofSource('edge-a')).toHaveLength(70);
    expect(again.ofSource(undefined, 'local')).toHaveLength(3);
  });

  it('loses no record when writes of one agent packs finish out of order', async () => {
    const storage = shuffledStorage();
    const store = await reloaded(storage);
    // 40 writers at once, each adding its records and renaming one of the first writer's.
    await Promise.all(
      Array.from({ length: 40 }, (_, writer) =>
        store.putMany([
          record(`w${writer}-x`, 'edge-a'),
          record(`w${writer}-y`, 'edge-a'),
          record('shared', 'edge-a', `by-${writer}`),
        ]),
      ),
    );
    const again = await reloaded(storage);
    expect(again.all()).toHaveLength(81);
    expect(sorted(again.all())).toEqual(sorted(store.all()));
    expect(again.get('shared')?.name).toBe('by-39');
  });

  it('rewrites a pack without removed records and deletes a pack left empty', async () => {
    const storage = createStorage();
    const store = await reloaded(storage);
    await store.putMany(Array.from({ length: PACK_SIZE + 2 }, (_, i) => record(`a${i}`, 'edge-a')));
    await store.removeMany([`a${PACK_SIZE}`, `a${PACK_SIZE + 1}`, 'a0']);
    await store.remove('a1');

    expect(await storage.getKeys('container-packs')).toEqual(['container-packs:edge-a:0']);
    const again = await reloaded(storage);
    expect(again.all()).toHaveLength(PACK_SIZE - 2);
    expect(again.get('a0')).toBeUndefined();
    // A new record fills the room the removals left before a pack is opened.
    await again.put(record('new', 'edge-a'));
    expect(await storage.getKeys('container-packs')).toEqual(['container-packs:edge-a:0']);
  });

  it('moves agents records stored a key each (before packs) into packs at load', async () => {
    const storage = createStorage();
    for (let i = 0; i < 4; i++) await storage.setItem(`containers:old${i}`, record(`old${i}`, 'edge-a'));
    await storage.setItem('containers:local', record('local', undefined));
    const store = await reloaded(storage);
    await store.put(record('old0', 'edge-a', 'renamed'));
    // A crash between the pack's write and the old keys' removal leaves both: the pack wins.
    await storage.setItem('containers:old0', record('old0', 'edge-a', 'stale'));

    const again = await reloaded(storage);
    expect(again.all()).toHaveLength(5);
    expect(again.get('old0')?.name).toBe('renamed');
    expect(await storage.getKeys('containers')).toEqual(['containers:local']);
    expect(await storage.getKeys('container-packs')).toEqual(['container-packs:edge-a:0']);
  });

  it('skips a corrupt record in a pack with an error log and keeps the others', async () => {
    const storage = createStorage();
    const store = await reloaded(storage);
    await store.putMany([record('a', 'edge-a'), record('b', 'edge-a')]);
    const pack = (await storage.getItem('container-packs:edge-a:0')) as { containers: unknown[] };
    pack.containers.splice(1, 0, { id: 'broken', status: 'sideways' });
    await storage.setItem('container-packs:edge-a:0', pack as never);

    const { ring, logger: log } = logger();
    const again = createContainerStore(storage, log);
    await again.load();
    expect(sorted(again.all())).toEqual(['a=a', 'b=b']);
    expect(ring.query({ level: 'error' })).toEqual([
      expect.objectContaining({ msg: 'stored container record failed validation; ignoring it' }),
    ]);
  });

  it('keeps a failed write out of memory and out of the next write of its pack', async () => {
    const storage = createStorage();
    const store = await reloaded(storage);
    await store.put(record('a', 'edge-a'));
    const setItems = storage.setItems.bind(storage);
    storage.setItems = async () => {
      throw new Error('ENOSPC');
    };
    await expect(store.put(record('lost', 'edge-a'))).rejects.toThrow('ENOSPC');
    storage.setItems = setItems;
    await store.put(record('b', 'edge-a'));

    expect(store.get('lost')).toBeUndefined();
    expect(sorted((await reloaded(storage)).all())).toEqual(['a=a', 'b=b']);
  });
});
