import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { containerRecord } from '../../../test/support/container-fixture';
import { createContainerStore } from './container-store';

const logger = () => createLogger({ level: 'info', ring: createLogRing(), sink: silentSink });
const T1 = '2026-11-27T10:00:00.000Z';
const T2 = '2026-11-27T11:00:00.000Z';

describe('container store: a full cycle check time stored once (putChecked)', () => {
  it('writes one stamp instead of the records, and a restart reads every checked record at its time', async () => {
    const storage = createStorage();
    const store = createContainerStore(storage, logger());
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

    const restarted = createContainerStore(storage, logger());
    await restarted.load();
    expect(['a', 'b', 'c', 'e'].map((n) => restarted.get(n.repeat(64))?.checkedAt)).toEqual([T2, T2, T1, T1]);
    // The rest of each record is what was written.
    expect({ ...restarted.get('a'.repeat(64)), checkedAt: T1 }).toEqual(records[0]);
  });

  it('leaves a record alone that was written with a later check time after the stamp', async () => {
    const storage = createStorage();
    const store = createContainerStore(storage, logger());
    await store.load();
    const record = containerRecord({ checkedAt: T1 });
    await store.putMany([record]);
    await store.putChecked({ watcher: 'local' }, T1, [record]);
    await store.putMany([{ ...record, checkedAt: T2 }]);
    const restarted = createContainerStore(storage, logger());
    await restarted.load();
    expect(restarted.get(record.id)?.checkedAt).toBe(T2);
  });
});
