import { createStorage, type Storage, type StorageValue } from 'unstorage';
import { describe, expect, it } from 'vitest';
import type { DockerContainerDetails } from '../../../shared/docker/docker-host';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { EdgeDockerHost } from '../agents/edge-docker-host';
import { createScheduler } from '../schedule/scheduler';
import { timerWakeUp } from '../schedule/timer-wake-up';
import { createAuditStore } from '../store/audit-store';
import { createContainerStore } from '../store/container-store';
import { inventoryWriter } from '../store/inventory-writer';
import { createScheduleStore } from '../store/schedule-store';
import { TagPolicyCache } from './container-check';
import { DockerWatcher } from './docker-watcher';

const IMAGE_ID = `sha256:${'1'.repeat(64)}`;

function container(i: number): DockerContainerDetails {
  return {
    id: i.toString(16).padStart(64, '0'),
    name: `app-${i}`,
    image: 'example.com/app:1.0.0',
    imageId: IMAGE_ID,
    state: 'running',
    labels: {},
    createdAt: 0,
    env: [],
    restartCount: 0,
  };
}

/** Memory storage whose single and batched writes are counted, each batch with its size. */
function countedStorage() {
  const storage: Storage = createStorage();
  const writes = { setItem: [] as string[], setItems: [] as number[] };
  const setItem = storage.setItem.bind(storage);
  const setItems = storage.setItems.bind(storage);
  storage.setItem = ((key: string, value: StorageValue) => {
    writes.setItem.push(key);
    return setItem(key, value);
  }) as Storage['setItem'];
  storage.setItems = (items, ...rest) => {
    writes.setItems.push(items.length);
    return setItems(items, ...rest);
  };
  return { storage, writes };
}

/** An edge agent's watcher as the hub runs it: its host fed by snapshots, a DockerWatcher over it. */
function agentWatcher(storage: Storage) {
  const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
  const store = createContainerStore(storage, logger);
  const audit = createAuditStore(storage, { retentionDays: 90, maxEntries: 10_000 }, Date.now, logger);
  const host = new EdgeDockerHost({
    agentName: 'edge-1',
    watcherName: 'local',
    endpoint: 'unix:///var/run/docker.sock',
    requestTimeoutMs: 1_000,
    now: Date.now,
  });
  host.setLink({ request: async () => undefined });
  const published: string[] = [];
  const watcher = new DockerWatcher({
    config: {
      name: 'local',
      endpoint: { socketPath: '/unused.sock' },
      cron: '0 * * * *',
      jitterSeconds: 0,
      watchByDefault: false,
      watchAll: true,
    },
    host,
    agent: 'edge-1',
    store,
    lookups: undefined,
    policies: new TagPolicyCache(),
    thresholdDays: 7,
    logger,
    now: Date.now,
    publish: (type) => published.push(type),
    audit: (records) => audit.appendMany(records),
    write: inventoryWriter(storage, store, audit),
    schedule: createScheduler({
      store: createScheduleStore(storage, logger),
      logger,
      now: Date.now,
      random: Math.random,
      wakeUp: timerWakeUp,
    }),
  });
  return { host, watcher, store, audit, published };
}

describe('applying an edge agent snapshot', () => {
  it('stores 300 new containers and their 300 audit entries as one storage batch of packs', async () => {
    const { storage, writes } = countedStorage();
    const { host, watcher, store, audit, published } = agentWatcher(storage);
    host.applySnapshot(
      Array.from({ length: 300 }, (_, i) => container(i)),
      [{ id: IMAGE_ID, repoTags: ['example.com/app:1.0.0'], repoDigests: [], os: 'linux', architecture: 'amd64' }],
    );
    await watcher.refreshInventory(() => true);

    // 300 records in packs of 32 (10 keys), 300 entries in batches of 64 (5 keys): one batch of 15.
    expect(writes).toEqual({ setItem: [], setItems: [15] });
    expect(await storage.getKeys('container-packs')).toHaveLength(10);
    expect(await storage.getKeys('audit-batches')).toHaveLength(5);
    expect(await storage.getKeys('containers')).toEqual([]);
    expect(store.all()).toHaveLength(300);
    expect(audit.query({ offset: 0, limit: 1_000, actions: ['container-added'] }).total).toBe(300);
    // Announced only once stored and audited, one event per container.
    expect(published.filter((type) => type === 'dd:container-added')).toHaveLength(300);

    // The same snapshot again changes nothing: nothing is written.
    await watcher.refreshInventory(() => true);
    expect(writes).toEqual({ setItem: [], setItems: [15] });
  });
});
