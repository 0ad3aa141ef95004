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

const quietLogger = () => createLogger({ level: 'info', ring: createLogRing(), sink: silentSink });
const T1 = '2026-11-27T10:00:00.000Z';
const T2 = '2026-11-27T11:00:00.000Z';

describe('container store: a full cycle check time stored once (putChecked)', () => {
  it('writes one stamp instead of the records, and a restart reads every checked record at its time', async () => {
    const storage = createStorage();
    const store = createContainerStore(storage, quietLogger());
    await store.load();
    const records = ['a', 'b', 'c'].map((n) => containerRecord({ id: n.repeat(64), name: n, checkedAt: T1 }));
    const elsewhere = containerRecord({ id: 'e'.repeat(64), name: 'e', watcher: 'other', checkedAt: T1 });
    await store.putMany([...records, elsewhere]);

    // The cycle at T2 checked a and b; c failed its check and keeps T1.
    const checked = records.slice(0, 2).map((record) => ({ ...record, checkedAt: T2 }));
    await store.putChecked({ watcher: 'local' }, T2, checked);
    // The records in storage are as they were; one stamp holds the new time.
    expect(((await storage.getItem(`containers:${'a'.repeat(64)}`)) as { checkedAt: string }).checkedAt).toBe(T1);
    expect(await storage.getKeys('container-checks')).toEqual(['container-checks:hub:local']);
    expect(store.get('a'.repeat(64))?.checkedAt).toBe(T2);

    const restarted = createContainerStore(storage, quietLogger());
    await restarted.load();
    expect(['a', 'b', 'c', 'e'].map((n) => restarted.get(n.repeat(64))?.checkedAt)).toEqual([T2, T2, T1, T1]);
    // The rest of each record is what was written.
    expect({ ...restarted.get('a'.repeat(64)), checkedAt: T1 }).toEqual(records[0]);
  });

  it('stores the stamp again only when the stored one is 15 minutes old or leaves out other records', async () => {
    const storage = createStorage();
    const store = createContainerStore(storage, quietLogger());
    await store.load();
    const records = ['a', 'b'].map((n) => containerRecord({ id: n.repeat(64), name: n, checkedAt: T1 }));
    await store.putMany(records);
    const at = (minutes: number) => new Date(Date.parse(T2) + minutes * 60_000).toISOString();
    const stored = async () => ((await storage.getItem('container-checks:hub:local')) as { at: string }).at;
    const cycle = (minutes: number, checked = records) =>
      store.putChecked(
        { watcher: 'local' },
        at(minutes),
        checked.map((record) => ({ ...record, checkedAt: at(minutes) })),
      );

    await cycle(0);
    expect(await stored()).toBe(at(0));
    // A minute later nothing else moved: memory has the new time, storage keeps the stamp it has.
    await cycle(1);
    expect(await stored()).toBe(at(0));
    expect(store.get('a'.repeat(64))?.checkedAt).toBe(at(1));
    // b not checked this time: the stored stamp must not give it this cycle's time.
    await cycle(2, records.slice(0, 1));
    expect(await storage.getItem('container-checks:hub:local')).toMatchObject({ at: at(2), except: ['b'.repeat(64)] });
    await cycle(3, records.slice(0, 1));
    expect(await stored()).toBe(at(2));
    await cycle(17, records.slice(0, 1));
    expect(await stored()).toBe(at(17));
    // A restart reads the stored stamp: a record checked since, in memory only, shows its stored time.
    await cycle(18, records.slice(0, 1));
    const restarted = createContainerStore(storage, quietLogger());
    await restarted.load();
    expect(restarted.get('a'.repeat(64))?.checkedAt).toBe(at(17));
    await restarted.putChecked(
      { watcher: 'local' },
      at(19),
      records.slice(0, 1).map((record) => ({ ...record, checkedAt: at(19) })),
    );
    expect(await stored()).toBe(at(17));
  });

  it('leaves a record alone that was written with a later check time after the stamp', async () => {
    const storage = createStorage();
    const store = createContainerStore(storage, quietLogger());
    await store.load();
    const record = containerRecord({ checkedAt: T1 });
    await store.putMany([record]);
    await store.putChecked({ watcher: 'local' }, T1, [record]);
    await store.putMany([{ ...record, checkedAt: T2 }]);
    const restarted = createContainerStore(storage, quietLogger());
    await restarted.load();
    expect(restarted.get(record.id)?.checkedAt).toBe(T2);
  });

  it('does not bring back a record removed while its cycle ran', async () => {
    const storage = createStorage();
    const store = createContainerStore(storage, quietLogger());
    await store.load();
    const record = containerRecord({ checkedAt: T1 });
    await store.putMany([record]);
    await store.remove(record.id);
    await store.putChecked({ watcher: 'local' }, T2, [{ ...record, checkedAt: T2 }]);
    expect(store.get(record.id)).toBeUndefined();
    expect(store.all()).toEqual([]);
  });

  it('gives an agent watcher stamp to the records of its packs at a restart', async () => {
    const storage = createStorage();
    const store = createContainerStore(storage, quietLogger());
    await store.load();
    const records = ['a', 'b'].map((n) =>
      containerRecord({ id: n.repeat(64), name: n, agent: 'edge-a', checkedAt: T1 }),
    );
    await store.putMany(records);
    await store.putChecked(
      { agent: 'edge-a', watcher: 'local' },
      T2,
      records.map((r) => ({ ...r, checkedAt: T2 })),
    );
    const restarted = createContainerStore(storage, quietLogger());
    await restarted.load();
    expect(restarted.ofSource('edge-a').map((record) => record.checkedAt)).toEqual([T2, T2]);
  });
});

describe('container store: deletions on request (DELETE /containers/{id})', () => {
  it('tells a deletion after a mark, and forgets it once the record is stored again', async () => {
    const store = await reloaded(createStorage());
    await store.putMany([record('a', undefined), record('b', undefined)]);
    const before = store.removalsOnRequest();
    await store.remove('a');
    expect(store.removedOnRequestSince('a', before)).toBe(true);
    expect(store.removedOnRequestSince('b', before)).toBe(false);
    // A mark taken after the deletion does not see it.
    expect(store.removedOnRequestSince('a', store.removalsOnRequest())).toBe(false);
    // Deletions by the watcher (removeMany: a container gone) are not deletions on request.
    await store.removeMany(['b']);
    expect(store.removedOnRequestSince('b', before)).toBe(false);
    await store.put(record('a', undefined));
    expect(store.removedOnRequestSince('a', before)).toBe(false);
  });

  it('keeps the 10,000 latest deletions, the oldest dropped first', async () => {
    const store = await reloaded(createStorage());
    const before = store.removalsOnRequest();
    for (let i = 0; i <= 10_000; i++) await store.remove(`gone-${i}`);
    expect(store.removedOnRequestSince('gone-0', before)).toBe(false);
    expect(store.removedOnRequestSince('gone-1', before)).toBe(true);
    expect(store.removedOnRequestSince('gone-10000', before)).toBe(true);
  });
});
