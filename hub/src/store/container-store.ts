import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { type Container, ContainerSchema } from '../../../shared/schemas/container';
import { type UpdatePolicy, UpdatePolicySchema } from '../../../shared/schemas/update-policy';
import { UpdateClockSchema } from '../../../shared/update/update-clock';
import type { ContainerQuery } from '../watchers/container-query';
import { ContainerIndex } from './container-index';
import { type StagedWrite, writeTogether } from './staged-writes';
import { readAllValidated } from './validated-storage';

const GateSchema = v.object({
  state: v.picklist(['held', 'applicable']),
  clockStartedAt: v.number(),
  liftableAt: v.exactOptional(v.number()),
});

/** What outlives a container id: kept by identity (`agent::watcher::name`), so re-creation keeps it. */
export const IdentityStateSchema = v.object({
  clock: v.optional(UpdateClockSchema),
  gate: v.optional(GateSchema),
  /** Policy set through the API (PATCH update-policy); labels add to it, this wins. */
  policy: v.optional(UpdatePolicySchema),
});
export type IdentityState = v.InferOutput<typeof IdentityStateSchema>;

const containerKey = (id: string) => `containers:${id}`;

/**
 * A full watch cycle's check time for one source (an agent, or none, and a watcher), stored once
 * instead of rewriting every record whose only change is its checkedAt: at load, every record of
 * the source with an older checkedAt takes `at`, except the ones listed (not checked by that cycle).
 */
const CheckedStampSchema = v.object({
  agent: v.optional(v.string()),
  watcher: v.string(),
  at: v.string(),
  except: v.array(v.string()),
});
export interface CheckedSource {
  agent?: string | undefined;
  watcher: string;
}
const checkedKey = (source: CheckedSource) =>
  `container-checks:${source.agent === undefined ? 'hub' : `agent-${encodeURIComponent(source.agent)}`}:${encodeURIComponent(source.watcher)}`;
// Identities hold '::' and names: encoded so they stay one key segment on every driver.
const identityKey = (identity: string) => `identities:${encodeURIComponent(identity)}`;

export interface ContainerStore {
  load(): Promise<void>;
  all(): Container[];
  get(id: string): Container | undefined;
  /**
   * The records of one agent (undefined: the hub's own hosts), of one of its watchers if named,
   * from the indexes: a watch cycle and an agent's counts once passed over the whole fleet, which
   * made a 10,000-agent sign-in quadratic (bench edge-agents).
   */
  ofSource(agent: string | undefined, watcher?: string): Container[];
  /** GET /api/v1/containers: filtered, sorted and paged from indexes, without copying the fleet. */
  query(query: ContainerQuery): { data: Container[]; total: number };
  put(container: Container): Promise<void>;
  /** Several records in one storage batch (`setItems`): one transaction on Workers, one group commit on fs. */
  putMany(containers: readonly Container[]): Promise<void>;
  /** The same records staged, for a batch with another store's writes (writeTogether). */
  stageMany(containers: readonly Container[]): StagedWrite;
  /**
   * Records a full watch cycle of `source` checked at `at` and found otherwise unchanged: kept in
   * memory, and stored as one stamp for the source rather than one write per record (issue 18).
   */
  putChecked(source: CheckedSource, at: string, records: readonly Container[]): Promise<void>;
  remove(id: string): Promise<void>;
  identityState(identity: string): IdentityState;
  setIdentityState(identity: string, state: IdentityState): Promise<void>;
  policyOf(identity: string): UpdatePolicy;
}

/** Container records in memory (reads cost nothing), each written through to storage as it changes. */
export function createContainerStore(storage: Storage, logger: Logger): ContainerStore {
  const containers = new Map<string, Container>();
  const identities = new Map<string, IdentityState>();
  const index = new ContainerIndex((id) => containers.get(id));
  const keep = (container: Container) => {
    index.replace(containers.get(container.id), container);
    containers.set(container.id, container);
  };
  const stageMany = (batch: readonly Container[]): StagedWrite => ({
    items: batch.map((container) => ({ key: containerKey(container.id), value: container })),
    apply: () => {
      for (const container of batch) keep(container);
    },
  });
  const ofSource = (agent: string | undefined, watcher?: string): Container[] => {
    // An agent's own set is small; the hub's own are found by watcher name (agents' watchers may share it).
    const facet = agent !== undefined ? `agent:${agent}` : watcher !== undefined ? `watcher:${watcher}` : undefined;
    const candidates =
      facet === undefined
        ? containers.values()
        : [...(index.idsWith(facet) ?? [])].flatMap((id) => containers.get(id) ?? []);
    const matching: Container[] = [];
    for (const container of candidates)
      if (container.agent === agent && (watcher === undefined || container.watcher === watcher))
        matching.push(container);
    return matching;
  };
  return {
    async load() {
      const stored = await readAllValidated(storage, await storage.getKeys('containers'), ContainerSchema, logger);
      for (const { value: container } of stored) containers.set(container.id, container);
      const stamps = await readAllValidated(
        storage,
        await storage.getKeys('container-checks'),
        CheckedStampSchema,
        logger,
      );
      for (const { value: stamp } of stamps) {
        const except = new Set(stamp.except);
        for (const container of containers.values()) {
          if (container.agent !== stamp.agent || container.watcher !== stamp.watcher || except.has(container.id))
            continue;
          if (container.checkedAt !== undefined && container.checkedAt < stamp.at)
            containers.set(container.id, { ...container, checkedAt: stamp.at });
        }
      }
      index.reset([...containers.values()]);
      const states = await readAllValidated(storage, await storage.getKeys('identities'), IdentityStateSchema, logger);
      for (const { key, value } of states) identities.set(decodeURIComponent(key.slice('identities:'.length)), value);
    },
    all: () => [...containers.values()],
    get: (id) => containers.get(id),
    ofSource,
    query: (query) => index.query(query),
    async put(container) {
      await storage.setItem(containerKey(container.id), container);
      keep(container);
    },
    stageMany,
    async putMany(batch) {
      await writeTogether(storage, stageMany(batch));
    },
    async putChecked(source, at, batch) {
      const touched = new Map(batch.map((container) => [container.id, container]));
      // The source's records this cycle did not check at `at` keep their own checkedAt at load.
      const except = ofSource(source.agent, source.watcher)
        .map((container) => touched.get(container.id) ?? container)
        .filter((container) => container.checkedAt !== undefined && container.checkedAt !== at)
        .map((container) => container.id);
      const stamp = { ...(source.agent !== undefined && { agent: source.agent }), watcher: source.watcher, at, except };
      await writeTogether(storage, {
        items: [{ key: checkedKey(source), value: stamp }],
        apply: () => {
          // Only checkedAt differs from the stored record, which no index reads: their places stay.
          for (const container of batch)
            if (containers.has(container.id)) containers.set(container.id, container);
            else keep(container);
        },
      });
    },
    async remove(id) {
      await storage.removeItem(containerKey(id));
      const previous = containers.get(id);
      if (previous) index.remove(previous);
      containers.delete(id);
    },
    identityState: (identity) => identities.get(identity) ?? {},
    async setIdentityState(identity, state) {
      await storage.setItem(identityKey(identity), state);
      identities.set(identity, state);
    },
    policyOf: (identity) => identities.get(identity)?.policy ?? {},
  };
}
