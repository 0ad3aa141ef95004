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
  overrides: Partial<Pick<DockerWatcherDeps, 'lookups' | 'write'>> = {},
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
