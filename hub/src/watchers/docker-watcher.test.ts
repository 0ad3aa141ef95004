import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import type {
  ContainerState,
  DockerContainerDetails,
  DockerEventHandlers,
  DockerHost,
} from '../../../shared/docker/docker-host';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { containerIdentity } from '../../../shared/update/update-clock';
import { fakeDockerHost } from '../../../test/support/fake-docker-host';
import type { ImageCheckResult } from '../checks/check-image';
import type { FleetLookups } from '../checks/fleet-lookups';
import { createScheduler } from '../schedule/scheduler';
import { timerWakeUp } from '../schedule/timer-wake-up';
import { createContainerStore } from '../store/container-store';
import { createLabelOverrideStore } from '../store/label-override-store';
import { createScheduleStore } from '../store/schedule-store';
import { TagPolicyCache } from './container-check';
import { DockerWatcher, type DockerWatcherDeps } from './docker-watcher';

const ID = 'c'.repeat(64);

/** A Docker host with one container whose state the test sets; everything else is never called. */
function fakeHost(state: { current: ContainerState | 'gone' }): DockerHost {
  const details = (): DockerContainerDetails | undefined =>
    state.current === 'gone'
      ? undefined
      : {
          id: ID,
          name: 'web',
          image: 'example.com/web:1.0.0',
          imageId: 'sha256:1',
          state: state.current,
          labels: {},
          createdAt: 0,
          env: ['MODE=prod'],
          restartCount: 0,
        };
  return fakeDockerHost({
    listContainers: async (all) => {
      const found = details();
      return found && (all || found.state === 'running') ? [found] : [];
    },
    inspectContainer: async () => details(),
    inspectImage: async () => ({ id: 'sha256:1', repoTags: [], repoDigests: [], os: 'linux', architecture: 'amd64' }),
  });
}

function watcherOn(
  host: DockerHost,
  watchAll: boolean,
  timing: { startDelayMs?: number; eventDebounceMs?: number } = {},
  overrides: Partial<Pick<DockerWatcherDeps, 'lookups' | 'write' | 'labelOverrides' | 'labelOverridesRevision'>> = {},
) {
  const logRing = createLogRing();
  const logger = createLogger({ level: 'fatal', ring: logRing, sink: silentSink });
  const storage = createStorage();
  const store = createContainerStore(storage, logger);
  // Never started: these tests drive the watcher themselves, no scheduled cycle runs.
  const schedule = createScheduler({
    store: createScheduleStore(storage, logger),
    logger,
    now: Date.now,
    random: Math.random,
    wakeUp: timerWakeUp,
  });
  const published: string[] = [];
  // Any use of the registry lookups fails the test: a refresh must not check registries.
  const lookups = new Proxy({} as FleetLookups, {
    get: () => {
      throw new Error('a refresh must not check registries');
    },
  });
  const watcher = new DockerWatcher({
    config: {
      name: 'local',
      endpoint: { socketPath: '/fake.sock' },
      cron: '0 * * * *',
      jitterSeconds: 0,
      watchByDefault: true,
      watchAll,
    },
    host,
    store,
    lookups,
    policies: new TagPolicyCache(),
    thresholdDays: 7,
    logger,
    now: () => Date.UTC(2026, 0, 1),
    publish: (type) => published.push(type),
    audit: async () => undefined,
    schedule,
    ...timing,
    ...overrides,
  });
  return { watcher, store, published };
}

describe('DockerWatcher.refreshContainer', () => {
  it('stores the container as Docker reports it now, without registry checks', async () => {
    const state: { current: ContainerState | 'gone' } = { current: 'running' };
    const { watcher, store, published } = watcherOn(fakeHost(state), true);
    expect(await watcher.refreshContainer(ID)).toMatchObject({ id: ID, name: 'web', status: 'running' });
    state.current = 'exited';
    expect(await watcher.refreshContainer(ID)).toMatchObject({ status: 'exited' });
    expect(store.get(ID)?.status).toBe('exited');
    expect(published).toEqual(['dd:container-added', 'dd:container-updated']);
  });

  it('drops the record of a container that stopped without WATCHALL, or that is gone', async () => {
    const state: { current: ContainerState | 'gone' } = { current: 'running' };
    const { watcher, store, published } = watcherOn(fakeHost(state), false);
    await watcher.refreshContainer(ID);
    state.current = 'exited';
    expect(await watcher.refreshContainer(ID)).toBeUndefined();
    expect(store.get(ID)).toBeUndefined();
    state.current = 'running';
    await watcher.refreshContainer(ID);
    state.current = 'gone';
    expect(await watcher.refreshContainer(ID)).toBeUndefined();
    expect(published).toEqual([
      'dd:container-added',
      'dd:container-removed',
      'dd:container-added',
      'dd:container-removed',
    ]);
  });
});

describe('DockerWatcher events', () => {
  it('does not bring back a record deleted through the API while its earlier event waited', async () => {
    const state: { current: ContainerState | 'gone' } = { current: 'running' };
    let handlers: DockerEventHandlers | undefined;
    const host: DockerHost = {
      ...fakeHost(state),
      subscribeEvents: (given) => {
        handlers = given;
        return { close: () => undefined };
      },
    };
    const { watcher, store, published } = watcherOn(host, true, { startDelayMs: 3_600_000, eventDebounceMs: 5 });
    await watcher.refreshContainer(ID);
    watcher.start();
    try {
      const flushed = () => new Promise((resolve) => setTimeout(resolve, 50));
      handlers?.onEvent({ id: ID, action: 'start', time: Date.now(), attributes: {} });
      await store.remove(ID);
      await flushed();
      expect(store.get(ID)).toBeUndefined();

      // A known container's event still refreshes its record.
      await watcher.refreshContainer(ID);
      state.current = 'exited';
      handlers?.onEvent({ id: ID, action: 'die', time: Date.now(), attributes: {} });
      await flushed();
      expect(store.get(ID)?.status).toBe('exited');
      expect(published).toEqual(['dd:container-added', 'dd:container-added', 'dd:container-updated']);
    } finally {
      await watcher.stop();
    }
  });
});

describe('DockerWatcher events, after the stream was cut', () => {
  /** fakeHost, with each event subscription the watcher makes kept (the test ends the first). */
  function resubscribingHost(state: { current: ContainerState | 'gone' }) {
    const subscriptions: DockerEventHandlers[] = [];
    const host: DockerHost = {
      ...fakeHost(state),
      subscribeEvents: (given) => {
        subscriptions.push(given);
        return { close: () => undefined };
      },
    };
    return { host, subscriptions };
  }

  it('observes its containers again once the stream reopens, without registry checks', async () => {
    const state: { current: ContainerState | 'gone' } = { current: 'running' };
    const { host, subscriptions } = resubscribingHost(state);
    // The lookups throw on any use: a check of the known container would fail the refresh.
    const { watcher, store, published } = watcherOn(host, true, { startDelayMs: 3_600_000 });
    await watcher.refreshContainer(ID);
    watcher.start();
    try {
      // dockerd restarts: the stream ends, and the container stops meanwhile, its events lost.
      subscriptions[0]?.onClose(new Error('the Engine went away'));
      state.current = 'exited';
      // The stream reopens after its backoff (0.5 to 1 s), and the records are observed again.
      const deadline = Date.now() + 5_000;
      while (store.get(ID)?.status !== 'exited' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(subscriptions).toHaveLength(2);
      expect(store.get(ID)).toMatchObject({ status: 'exited' });
      expect(published).toEqual(['dd:container-added', 'dd:container-updated']);
    } finally {
      await watcher.stop();
    }
  });

  it('checks against its registry a container that appeared while the stream was down', async () => {
    const state: { current: ContainerState | 'gone' } = { current: 'gone' };
    const { host, subscriptions } = resubscribingHost(state);
    const lookups = {
      beginCycle: () => undefined,
      tags: async () => [],
      tagDigest: async () => ({ digest: 'sha256:0', mediaType: undefined }),
      imageCheck: async <T>() =>
        ({
          tagWatched: true,
          digestWatched: false,
          candidate: { tag: '1.1.0', semverDiff: 'minor' },
          digestChanged: false,
          errors: [],
        }) as T,
    } as unknown as FleetLookups;
    const { watcher, store } = watcherOn(host, true, { startDelayMs: 3_600_000 }, { lookups });
    watcher.start();
    try {
      subscriptions[0]?.onClose(new Error('the Engine went away'));
      state.current = 'running';
      const deadline = Date.now() + 5_000;
      while (!store.get(ID)?.updateAvailable && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(store.get(ID)).toMatchObject({ status: 'running', updateAvailable: true });
    } finally {
      await watcher.stop();
    }
  });
});

describe('DockerWatcher events, a deletion during the refresh of a new container', () => {
  it('does not store again a record deleted while the refresh of its earlier event was observing', async () => {
    const state: { current: ContainerState | 'gone' } = { current: 'running' };
    const base = fakeHost(state);
    let handlers: DockerEventHandlers | undefined;
    // The event refresh's inspect is held until the record has been stored by another refresh and deleted.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inspects = 0;
    const host: DockerHost = {
      ...base,
      inspectContainer: async (id) => {
        inspects += 1;
        if (inspects === 1) await held;
        return base.inspectContainer(id);
      },
      subscribeEvents: (given) => {
        handlers = given;
        return { close: () => undefined };
      },
    };
    const lookups = {
      beginCycle: () => undefined,
      tags: async () => [],
      tagDigest: async () => ({ digest: 'sha256:0', mediaType: undefined }),
      imageCheck: async <T>() => ({ tagWatched: true, digestWatched: false, digestChanged: false, errors: [] }) as T,
    } as unknown as FleetLookups;
    const { watcher, store, published } = watcherOn(
      host,
      true,
      { startDelayMs: 3_600_000, eventDebounceMs: 5 },
      { lookups },
    );
    watcher.start();
    try {
      // The container's create: no record yet, so its refresh checks it too, and waits on the held inspect.
      handlers?.onEvent({ id: ID, action: 'create', time: Date.now(), attributes: {} });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(inspects).toBe(1);
      // Meanwhile the record is stored (another refresh), and deleted through the API.
      expect(await watcher.refreshContainer(ID)).toMatchObject({ id: ID });
      await store.remove(ID);
      release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(store.get(ID)).toBeUndefined();
      expect(published).toEqual(['dd:container-added']);
    } finally {
      release();
      await watcher.stop();
    }
  });
});

describe('DockerWatcher cycles', () => {
  it('checks again a record whose update policy changed while the cycle stored it', async () => {
    const state: { current: ContainerState | 'gone' } = { current: 'running' };
    // 1.1.0 is the candidate, unless skipped.
    const answer = (key: string): ImageCheckResult => ({
      tagWatched: true,
      digestWatched: false,
      ...(!key.endsWith('["1.1.0"]') && { candidate: { tag: '1.1.0', semverDiff: 'minor' as const } }),
      digestChanged: false,
      errors: [],
    });
    const lookups = {
      beginCycle: () => undefined,
      // The requests started from the listing (inventory-sync.ts prefetchListed); the check asks through imageCheck.
      tags: async () => [],
      tagDigest: async () => ({ digest: 'sha256:0', mediaType: undefined }),
      imageCheck: async <T>(_policy: unknown, key: string) => answer(key) as T,
    } as unknown as FleetLookups;
    let changeDuringWrite: (() => Promise<void>) | undefined;
    const rig = watcherOn(
      fakeHost(state),
      false,
      {},
      {
        lookups,
        // The cycle's storage write, with a PATCH of the policy landing while it is in flight.
        write: async (records) => {
          const change = changeDuringWrite;
          changeDuringWrite = undefined;
          await change?.();
          await rig.store.putMany(records);
        },
      },
    );
    const { watcher, store } = rig;
    const identity = containerIdentity({ watcher: 'local', name: 'web' });
    changeDuringWrite = () =>
      store.setIdentityState(identity, { ...store.identityState(identity), policy: { skipTags: ['1.1.0'] } });
    await watcher.watch();
    expect(changeDuringWrite).toBeUndefined();
    expect(store.get(ID)).toMatchObject({ updateAvailable: false, updatePolicy: { skipTags: ['1.1.0'] } });
  });
});

describe('DockerWatcher and label overrides changed during an observation', () => {
  const identity = containerIdentity({ watcher: 'local', name: 'web' });

  /**
   * `web` under an override dd.watch=true over its own dd.watch=false label; the override is cleared
   * once, while the watcher waits for the registry's answer or while it writes the record.
   */
  async function overridden(during: 'check' | 'write') {
    const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
    const overrides = createLabelOverrideStore(createStorage(), logger);
    await overrides.setOfIdentity(identity, { 'dd.watch': 'true' });
    const state: { current: ContainerState | 'gone' } = { current: 'running' };
    const base = fakeHost(state);
    const host: DockerHost = {
      ...base,
      inspectContainer: async (id) => {
        const details = await base.inspectContainer(id);
        return details && { ...details, labels: { 'dd.watch': 'false' } };
      },
    };
    let change: (() => Promise<void>) | undefined = () => overrides.setOfIdentity(identity, {});
    const once = async (at: 'check' | 'write') => {
      if (at !== during || !change) return;
      const run = change;
      change = undefined;
      await run();
    };
    let observations = 0;
    const lookups = {
      beginCycle: () => undefined,
      tags: async () => [],
      tagDigest: async () => ({ digest: 'sha256:0', mediaType: undefined }),
      imageCheck: async <T>() => {
        await once('check');
        return { tagWatched: true, digestWatched: false, digestChanged: false, errors: [] } as T;
      },
    } as unknown as FleetLookups;
    const rig = watcherOn(
      {
        ...host,
        listContainers: (all) => {
          observations += 1;
          return host.listContainers(all);
        },
      },
      true,
      {},
      {
        lookups,
        labelOverrides: (record) => overrides.resolve(containerIdentity(record), record),
        labelOverridesRevision: () => overrides.revision(),
        write: async (records) => {
          await once('write');
          await rig.store.putMany(records);
        },
      },
    );
    return { ...rig, changed: () => change === undefined, observations: () => observations };
  }

  const unwatched = { watched: false, updateAvailable: false };
  const ownLabel = { value: 'false', source: 'label' };

  it('builds again a record whose override was cleared while its registry check ran, before storing it', async () => {
    const { watcher, store, changed, observations } = await overridden('check');
    expect((await watcher.watchContainer(ID)).container).toMatchObject(unwatched);
    expect(changed()).toBe(true);
    expect(observations()).toBe(2);
    expect(store.get(ID)?.effectiveLabels?.['dd.watch']).toEqual(ownLabel);
  });

  it('observes again when the override was cleared while the record was being stored', async () => {
    const { watcher, store, changed, observations } = await overridden('write');
    await watcher.watchContainer(ID);
    expect(changed()).toBe(true);
    expect(observations()).toBe(2);
    expect(store.get(ID)).toMatchObject(unwatched);
    expect(store.get(ID)?.effectiveLabels?.['dd.watch']).toEqual(ownLabel);
  });

  it('after the change, observes once per call again', async () => {
    const { watcher, store, observations } = await overridden('check');
    await watcher.watchContainer(ID);
    await watcher.watchContainer(ID);
    expect(observations()).toBe(3);
    expect(store.get(ID)).toMatchObject(unwatched);
  });
});
