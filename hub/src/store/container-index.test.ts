import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import {
  CONTAINER_KIND_FILTERS,
  CONTAINER_SORTS,
  CONTAINER_STATUS_FILTERS,
  type ContainerQuery,
  queryContainers,
} from '../../../shared/containers/container-query';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../../test/support/container-fixture';
import { ContainerIndex } from './container-index';
import { createContainerStore } from './container-store';
import { SortedChunks } from './sorted-chunks';

/** Deterministic, so a failure names a seed that reproduces it. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

const STATES = ['running', 'exited', 'created', 'paused', 'restarting', 'dead'] as const;
const DIFFS = ['major', 'minor', 'patch'] as const;

function randomRecord(random: () => number, id: string): Container {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const update = random() < 0.4;
  const name = `c${Math.floor(random() * 50)}`; // repeated names: ties are broken by id
  return containerRecord({
    id,
    name,
    displayName: random() < 0.2 ? name.toUpperCase() : name,
    watcher: pick(['local', 'remote']),
    // Docker's records carry no watcherType; the others name theirs.
    ...(random() < 0.5 ? { watcherType: pick(['podman', 'file', 'swarm'] as const) } : {}),
    ...(random() < 0.5 ? { agent: pick(['edge-1', 'edge-2']) } : {}),
    status: pick(STATES),
    watched: random() < 0.8,
    updateAvailable: update,
    updateKind: update
      ? random() < 0.3
        ? { kind: 'digest', localValue: 'sha256:a', remoteValue: 'sha256:b' }
        : { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: pick(DIFFS) }
      : { kind: 'unknown' },
    ...(random() < 0.7 ? { updateMaturityLevel: pick(['hot', 'mature', 'established'] as const) } : {}),
    createdAt:
      random() < 0.05 ? 'not a date' : new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 1e9)).toISOString(),
  });
}

function randomQuery(random: () => number, ids: readonly string[]): ContainerQuery {
  const maybe = <T>(items: readonly T[]): T | undefined =>
    random() < 0.4 ? (items[Math.floor(random() * items.length)] as T) : undefined;
  const listed =
    random() < 0.15
      ? ids
          .filter(() => random() < 0.2)
          .concat('unknown-id')
          .join(',')
      : undefined;
  return {
    limit: Math.floor(random() * 4) === 0 ? 0 : 1 + Math.floor(random() * 30),
    offset: random() < 0.5 ? 0 : Math.floor(random() * 80),
    sort: maybe(CONTAINER_SORTS),
    order: maybe(['asc', 'desc'] as const),
    status: maybe(CONTAINER_STATUS_FILTERS),
    kind: maybe(CONTAINER_KIND_FILTERS),
    watcher: maybe(['local', 'remote', 'nowhere']),
    watcherType: maybe(['docker', 'podman', 'file', 'dockerfile'] as const),
    agent: maybe(['edge-1', 'edge-2', 'edge-9']),
    maturity: maybe(['hot', 'mature', 'established'] as const),
    containerIds: listed,
  };
}

describe('ContainerIndex', () => {
  it.each([1, 2, 3, 4, 5])(
    'answers every query as the plain reference does, through random writes (seed %i)',
    (seed) => {
      const random = lcg(seed);
      const records = new Map<string, Container>();
      const index = new ContainerIndex((id) => records.get(id));
      for (let i = 0; i < 300; i++) {
        const record = randomRecord(random, `id-${i}`);
        records.set(record.id, record);
      }
      index.reset([...records.values()]);
      for (let step = 0; step < 400; step++) {
        const ids = [...records.keys()];
        const roll = random();
        if (roll < 0.3) {
          const id = ids[Math.floor(random() * ids.length)] as string;
          const next = randomRecord(random, id);
          index.replace(records.get(id), next);
          records.set(id, next);
        } else if (roll < 0.4) {
          const id = ids[Math.floor(random() * ids.length)] as string;
          index.remove(records.get(id) as Container);
          records.delete(id);
        } else if (roll < 0.5) {
          const next = randomRecord(random, `new-${step}`);
          index.replace(undefined, next);
          records.set(next.id, next);
        } else {
          const query = randomQuery(random, ids);
          const expected = queryContainers([...records.values()], query);
          const actual = index.query(query);
          expect({ step, query, total: actual.total, ids: actual.data.map((c) => c.id) }).toEqual({
            step,
            query,
            total: expected.total,
            ids: expected.data.map((c) => c.id),
          });
        }
      }
    },
  );
});

describe('SortedChunks', () => {
  it('stays sorted by key then id, and complete, through thousands of inserts and deletes, across chunk splits', () => {
    const random = lcg(42);
    const list = new SortedChunks();
    const reference: { key: number; id: string }[] = [];
    list.reset([]);
    for (let i = 0; i < 6000; i++) {
      if (reference.length > 0 && random() < 0.3) {
        const entry = reference[Math.floor(random() * reference.length)] as { key: number; id: string };
        expect(list.delete(entry.key, entry.id)).toBe(true);
        reference.splice(reference.indexOf(entry), 1);
      } else {
        // Few distinct keys, so that the id decides the order of many entries.
        const entry = { key: Math.floor(random() * 500), id: `id-${i}` };
        list.insert(entry.key, entry.id);
        reference.push(entry);
      }
    }
    reference.sort((a, b) => a.key - b.key || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const ids = reference.map((entry) => entry.id);
    expect(list.size).toBe(reference.length);
    expect(list.slice(0, reference.length, false)).toEqual(ids);
    expect(list.slice(17, 100, true)).toEqual([...ids].reverse().slice(17, 117));
    const walked: string[] = [];
    list.walk(true, (id) => walked.push(id) < 50);
    expect(walked).toEqual([...ids].reverse().slice(0, 50));
    expect(list.delete(-1, 'id-0')).toBe(false);
    // The right id under another key is not the entry.
    const first = reference[0] as { key: number; id: string };
    expect(list.delete(first.key + 1000, first.id)).toBe(false);
  });

  it('loads in bulk as it inserts one by one', () => {
    const random = lcg(7);
    const entries = Array.from({ length: 3000 }, (_, i) => ({ key: `k${Math.floor(random() * 300)}`, id: `id-${i}` }));
    const bulk = new SortedChunks();
    bulk.reset([...entries]);
    const oneByOne = new SortedChunks();
    for (const { key, id } of entries) oneByOne.insert(key, id);
    expect(bulk.slice(0, 3000, false)).toEqual(oneByOne.slice(0, 3000, false));
    expect(bulk.size).toBe(3000);
  });
});

describe('ContainerStore.ofSource', () => {
  it('gives exactly the records of an agent (or of the hub’s own hosts) and watcher, through writes and removals', async () => {
    const random = lcg(11);
    const store = createContainerStore(
      createStorage(),
      createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink }),
    );
    const live = new Map<string, Container>();
    for (let step = 0; step < 600; step++) {
      const id = `id-${Math.floor(random() * 150)}`;
      if (random() < 0.2 && live.has(id)) {
        await store.remove(id);
        live.delete(id);
      } else {
        const record = randomRecord(random, id);
        await store.put(record);
        live.set(id, record);
      }
      if (step % 50 !== 49) continue;
      for (const agent of [undefined, 'edge-1', 'edge-2', 'edge-3'])
        for (const watcher of [undefined, 'local', 'remote']) {
          const expected = [...live.values()]
            .filter((c) => c.agent === agent && (watcher === undefined || c.watcher === watcher))
            .map((c) => c.id)
            .sort();
          expect({
            agent,
            watcher,
            ids: store
              .ofSource(agent, watcher)
              .map((c) => c.id)
              .sort(),
          }).toEqual({
            agent,
            watcher,
            ids: expected,
          });
        }
    }
  });
});
