import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import type { DockerContainerDetails, DockerHost } from '../../../shared/docker/docker-host';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { containerIdentity } from '../../../shared/update/update-clock';
import { fakeDockerHost } from '../../../test/support/fake-docker-host';
import type { ImageCheckResult } from '../checks/check-image';
import { FleetLookups } from '../checks/fleet-lookups';
import type { RegistryService } from '../registries/registry-service';
import { createContainerStore } from '../store/container-store';
import { TagPolicyCache } from './container-check';
import { observeInventory } from './inventory-sync';

/**
 * A cycle's records are stored together once the last registry answer came: a record checked
 * early waits for the others. These tests change a container's update policy in that wait (as
 * PATCH …/update-policy does) and look at what the cycle would store. The registry is a fixed
 * answer per question (the registry checks are tested against a real one elsewhere).
 */

const container = (name: string): DockerContainerDetails => ({
  id: name.repeat(64).slice(0, 64),
  name,
  image: `example.com/${name}:1.0.0`,
  imageId: `sha256:${name}`,
  state: 'running',
  labels: {},
  createdAt: 0,
  env: [],
  restartCount: 0,
});

function hostOf(containers: DockerContainerDetails[]): DockerHost {
  return fakeDockerHost({
    listContainers: async () => containers,
    inspectContainer: async (id) => containers.find((found) => found.id === id),
    inspectImage: async (id) => ({ id, repoTags: [], repoDigests: [], os: 'linux', architecture: 'amd64' }),
  });
}

const minor = (tag: string | undefined): ImageCheckResult => ({
  tagWatched: true,
  digestWatched: false,
  ...(tag && { candidate: { tag, semverDiff: 'minor' as const } }),
  digestChanged: false,
  errors: [],
});

/** An empty container store in memory, loaded. */
async function loadedStore() {
  const store = createContainerStore(
    createStorage(),
    createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink }),
  );
  await store.load();
  return store;
}

describe('a watch cycle and an update policy changed during it', () => {
  it('stores the record of a container checked early with the policy set while the cycle waited', async () => {
    const store = await loadedStore();
    const web = container('w');
    const db = container('d');
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const asked: string[] = [];
    const lookups = {
      // The requests started from the listing (prefetchListed): the checks below ask through imageCheck.
      tags: async () => [],
      tagDigest: async () => ({ digest: 'sha256:0', mediaType: undefined }),
      imageCheck: async <T>(_policy: unknown, key: string) => {
        asked.push(key);
        // db's registry is slow; web's answers at once, and with 1.1.0 skipped has no update.
        if (key.includes('"repository":"d"')) await slow;
        return minor(key.endsWith('["1.1.0"]') ? undefined : '1.1.0') as T;
      },
    } as unknown as FleetLookups;
    const observing = observeInventory({
      host: hostOf([web, db]),
      watcher: 'local',
      watchAll: false,
      watchByDefault: true,
      previous: new Map(),
      policies: new TagPolicyCache(),
      check: { lookups, store, thresholdDays: 0, now: Date.parse('2026-11-27T10:00:00Z') },
      now: Date.parse('2026-11-27T10:00:00Z'),
    });
    await waitUntil(() => asked.length === 2);
    // web's check is over; the cycle waits for db's. The user skips web's candidate now.
    const identity = containerIdentity({ watcher: 'local', name: 'w' });
    await store.setIdentityState(identity, { ...store.identityState(identity), policy: { skipTags: ['1.1.0'] } });
    release();
    const observed = await observing;
    const stored = observed.records.find((record) => record.name === 'w');
    expect(stored?.updatePolicy).toEqual({ skipTags: ['1.1.0'] });
    expect(stored?.updateAvailable).toBe(false);
    // The clock the check wrote is kept under the new policy, not lost with it.
    expect(store.identityState(identity).policy).toEqual({ skipTags: ['1.1.0'] });
    // db, whose policy did not change, was checked once; web asked again with its skip.
    expect(asked.filter((key) => key.includes('"repository":"d"'))).toHaveLength(1);
    expect(
      asked
        .filter((key) => key.includes('"repository":"w"'))
        .at(-1)
        ?.endsWith('["1.1.0"]'),
    ).toBe(true);
    expect(observed.records.find((record) => record.name === 'd')?.updateAvailable).toBe(true);
  });
});

describe('a cycle with containers it has no record of', () => {
  it('asks the registry as soon as Docker lists them, before their images are inspected, once per reference', async () => {
    const store = await loadedStore();
    const versioned = [container('a'), { ...container('b'), image: 'example.com/a:1.0.0' }];
    const rolling = { ...container('c'), image: 'example.com/c:latest' };
    const unwatched = { ...container('u'), labels: { 'dd.watch': 'false' } };
    const renamed = { ...container('l'), labels: { 'dd.registry.lookup.image': 'mirror.example.com/l:1.0.0' } };
    const stopped = { ...container('s'), state: 'exited' as const };
    const containers = [...versioned, rolling, unwatched, renamed, stopped];
    let releaseImages: () => void = () => undefined;
    const imagesHeld = new Promise<void>((resolve) => {
      releaseImages = resolve;
    });
    const asked: string[] = [];
    const registries = {
      clientFor: async (registry: string) => ({
        provider: {},
        client: {
          listTags: async (repository: string) => {
            asked.push(`tags ${registry}/${repository}`);
            return ['1.0.0'];
          },
          headManifest: async (repository: string, tag: string) => {
            asked.push(`head ${registry}/${repository}:${tag}`);
            return { digest: 'sha256:1', mediaType: undefined };
          },
        },
      }),
    } as unknown as RegistryService;
    const lookups = new FleetLookups(registries);
    lookups.beginCycle();
    const host = fakeDockerHost({
      listContainers: async () => containers,
      inspectContainer: async (id) => containers.find((found) => found.id === id),
      inspectImage: async (id) => {
        await imagesHeld;
        return { id, repoTags: [], repoDigests: [], os: 'linux', architecture: 'amd64' };
      },
    });
    const now = Date.parse('2026-12-07T07:00:00Z');
    const observing = observeInventory(firstCycle(host, { lookups, store, thresholdDays: 0, now }));
    const expected = ['tags example.com/a', 'head example.com/c:latest', 'tags mirror.example.com/l'];
    await waitUntil(() => asked.length === expected.length);
    expect(asked.sort()).toEqual(expected.sort());
    releaseImages();
    const observed = await observing;
    // The checks found the answers in flight: no reference was asked twice, none more was asked.
    expect(asked.sort()).toEqual(expected.sort());
    expect(observed.errors).toEqual([]);
    expect(observed.records.map((record) => record.name).sort()).toEqual(['a', 'b', 'c', 'l', 'u']);
    expect(observed.records.find((record) => record.name === 'c')?.image.digest.watch).toBe(true);
  });

  it('builds each record once where inspects answer from memory (an edge agent mirror): nothing to start ahead of them', async () => {
    const store = await loadedStore();
    const containers = [container('a'), container('b'), { ...container('c'), image: 'example.com/c:latest' }];
    const registries = {
      clientFor: async () => ({
        provider: {},
        client: {
          listTags: async () => ['1.0.0'],
          headManifest: async () => ({ digest: 'sha256:1', mediaType: undefined }),
        },
      }),
    } as unknown as RegistryService;
    const builds = async (inspectsInMemory: boolean) => {
      const lookups = new FleetLookups(registries);
      lookups.beginCycle();
      let overridesAsked = 0;
      const now = Date.parse('2026-12-07T10:40:00Z');
      const host = fakeDockerHost({
        inspectsInMemory,
        listContainers: async () => containers,
        inspectContainer: async (id) => containers.find((found) => found.id === id),
        inspectImage: async (id) => ({ id, repoTags: [], repoDigests: [], os: 'linux', architecture: 'amd64' }),
      });
      const observed = await observeInventory({
        ...firstCycle(host, { lookups, store, thresholdDays: 0, now }),
        // Asked once for every record built: the count of builds.
        labelOverrides: () => {
          overridesAsked += 1;
          return {};
        },
      });
      expect(observed.records).toHaveLength(3);
      return overridesAsked;
    };
    // From the listing (one each, with overrides) and again from the inspects.
    expect(await builds(false)).toBe(6);
    expect(await builds(true)).toBe(3);
  });
});

/** A first checked cycle of a host the watcher has no record of. */
function firstCycle(host: DockerHost, check: NonNullable<Parameters<typeof observeInventory>[0]['check']>) {
  return {
    host,
    watcher: 'local',
    watchAll: false,
    watchByDefault: true,
    previous: new Map(),
    policies: new TagPolicyCache(),
    check,
    now: check.now,
  };
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !condition(); turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  if (!condition()) throw new Error('condition never held');
}
