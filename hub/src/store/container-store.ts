import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { ContainerQuery } from '../../../shared/containers/container-query';
import type { Logger } from '../../../shared/logging/logger';
import { type Container, ContainerSchema } from '../../../shared/schemas/container';
import { type UpdatePolicy, UpdatePolicySchema } from '../../../shared/schemas/update-policy';
import { UpdateClockSchema } from '../../../shared/update/update-clock';
import { StoredStamps } from './checked-stamps';
import { ContainerIndex } from './container-index';
import { ContainerPackSchema, ContainerPacks, PACK_PREFIX, type PackPlan } from './container-packs';
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
   * memory, and stored as one stamp for the source rather than one write per record (issue 18);
   * not stored again while the stored stamp is recent and leaves out the same records
   * (checked-stamps.ts, issue 30).
   */
  putChecked(source: CheckedSource, at: string, records: readonly Container[]): Promise<void>;
  /**
   * A record deleted on request (DELETE /containers/{id}, http-interface §4.5): noted, so that an
   * event refresh already under way when it was deleted does not put it back (removedOnRequestSince).
   */
  remove(id: string): Promise<void>;
  /** How many records were deleted on request so far: a mark for removedOnRequestSince. */
  removalsOnRequest(): number;
  /** Whether `id` was deleted on request after `mark` (removalsOnRequest) and not stored again since. */
  removedOnRequestSince(id: string, mark: number): boolean;
  /** Several records deleted, each agent's packs rewritten once. */
  removeMany(ids: readonly string[]): Promise<void>;
  identityState(identity: string): IdentityState;
  setIdentityState(identity: string, state: IdentityState): Promise<void>;
  policyOf(identity: string): UpdatePolicy;
}

const MAX_REMOVALS_ON_REQUEST_KEPT = 10_000;

/** The state of an identity with none stored: one object, so callers can tell an unchanged state by identity. */
const NO_STATE: IdentityState = Object.freeze({});

/**
 * Container records in memory (reads cost nothing), each written through to storage as it changes:
 * the hub's own hosts' records a key each, agents' records in packs (container-packs.ts).
 */
export function createContainerStore(storage: Storage, logger: Logger): ContainerStore {
  const containers = new Map<string, Container>();
  const identities = new Map<string, IdentityState>();
  const index = new ContainerIndex((id) => containers.get(id));
  const packs = new ContainerPacks();
  const storedStamps = new StoredStamps();
  // Deleted on request: id -> its removalsOnRequest count; the oldest dropped past the cap (an
  // event refresh takes a second, not ten thousand deletions).
  const removedOnRequest = new Map<string, number>();
  let removalsOnRequest = 0;
  const keep = (container: Container) => {
    removedOnRequest.delete(container.id);
    index.replace(containers.get(container.id), container);
    containers.set(container.id, container);
  };
  const forget = (id: string) => {
    const previous = containers.get(id);
    if (previous) index.remove(previous);
    containers.delete(id);
  };
  const packItem = (plan: PackPlan, staged: ReadonlyMap<string, Container>) => ({
    key: plan.key,
    value: {
      agent: plan.agent,
      containers: plan.ids.flatMap((id) => staged.get(id) ?? containers.get(id) ?? []),
    },
  });

  const stageMany = (batch: readonly Container[]): StagedWrite => {
    const staged = new Map(batch.map((container) => [container.id, container]));
    // A record's agent can change only if two hosts report one container id; its old pack is rewritten too.
    const agents = new Set<string>();
    for (const container of staged.values()) {
      if (container.agent !== undefined) agents.add(container.agent);
      const holder = packs.agentHolding(container.id);
      if (holder !== undefined) agents.add(holder);
    }
    const queued = agents.size > 0 ? packs.queue(agents) : undefined;
    let plans: PackPlan[] = [];
    return {
      after: queued?.after,
      items: () => {
        const singles: Container[] = [];
        const placed: { id: string; agent: string }[] = [];
        const unpacked: string[] = [];
        for (const container of staged.values()) {
          if (container.agent !== undefined) placed.push({ id: container.id, agent: container.agent });
          else {
            singles.push(container);
            if (packs.keyOf(container.id) !== undefined) unpacked.push(container.id);
          }
        }
        plans = packs.plan(placed, unpacked);
        return [
          ...singles.map((container) => ({ key: containerKey(container.id), value: container })),
          ...plans.map((plan) => packItem(plan, staged)),
        ];
      },
      apply: () => {
        packs.commit(plans);
        for (const container of staged.values()) keep(container);
      },
      settled: queued?.settled,
    };
  };

  const removeMany = async (ids: readonly string[]) => {
    const packed = ids.filter((id) => packs.keyOf(id) !== undefined);
    const single = ids.filter((id) => packs.keyOf(id) === undefined);
    await Promise.all(single.map((id) => storage.removeItem(containerKey(id))));
    for (const id of single) forget(id);
    if (packed.length === 0) return;
    const queued = packs.queue(packed.flatMap((id) => packs.agentHolding(id) ?? []));
    try {
      await queued.after;
      const plans = packs.plan([], packed);
      const kept = plans.filter((plan) => plan.ids.length > 0);
      if (kept.length > 0)
        await storage.setItems(kept.map((plan) => packItem(plan, new Map())) as { key: string; value: never }[]);
      await Promise.all(plans.filter((plan) => plan.ids.length === 0).map((plan) => storage.removeItem(plan.key)));
      packs.commit(plans);
      for (const id of packed) forget(id);
    } finally {
      queued.settled();
    }
  };

  /** Agents' records a version before packs stored a key each: moved into packs, then their keys deleted. */
  const packLegacyRecords = async (legacy: readonly Container[], shadowedKeys: readonly string[]) => {
    if (legacy.length > 0) await writeTogether(storage, stageMany(legacy));
    const obsolete = [...legacy.map((container) => containerKey(container.id)), ...shadowedKeys];
    for (let i = 0; i < obsolete.length; i += 256)
      await Promise.all(obsolete.slice(i, i + 256).map((key) => storage.removeItem(key)));
    if (obsolete.length > 0) logger.info("moved agents' container records into packs", { records: obsolete.length });
  };

  const loadPacks = async () => {
    const stored = await readAllValidated(storage, await storage.getKeys(PACK_PREFIX), ContainerPackSchema, logger);
    for (const { key, value } of stored) {
      const ids: string[] = [];
      for (const [position, raw] of value.containers.entries()) {
        const result = v.safeParse(ContainerSchema, raw);
        if (!result.success) {
          logger.error('stored container record failed validation; ignoring it', {
            key,
            position,
            issue: result.issues[0]?.message,
          });
          continue;
        }
        containers.set(result.output.id, result.output);
        ids.push(result.output.id);
      }
      packs.adopt(key, value.agent, ids);
    }
  };

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

  /**
   * Each source's stamp (putChecked) given to its records with an older checkedAt, records to be
   * packed (`legacy`) included: they join `containers` here. Grouped by source first: one pass
   * over the records, not one per stamp (an agent's watcher has a stamp, and a fleet 10,000 agents).
   */
  const applyCheckedStamps = async (legacy: readonly Container[]): Promise<Container[]> => {
    for (const container of legacy) containers.set(container.id, container);
    const sourceOf = (agent: string | undefined, watcher: string) => `${agent ?? ''}\u0000${watcher}`;
    const bySource = new Map<string, Container[]>();
    for (const container of containers.values()) {
      const source = sourceOf(container.agent, container.watcher);
      const group = bySource.get(source);
      if (group) group.push(container);
      else bySource.set(source, [container]);
    }
    const stamps = await readAllValidated(
      storage,
      await storage.getKeys('container-checks'),
      CheckedStampSchema,
      logger,
    );
    for (const { key, value: stamp } of stamps) {
      storedStamps.remember(key, stamp.at, stamp.except);
      const except = new Set(stamp.except);
      for (const container of bySource.get(sourceOf(stamp.agent, stamp.watcher)) ?? []) {
        if (except.has(container.id)) continue;
        if (container.checkedAt !== undefined && container.checkedAt < stamp.at)
          containers.set(container.id, { ...container, checkedAt: stamp.at });
      }
    }
    const stamped = legacy.map((container) => containers.get(container.id) ?? container);
    for (const container of legacy) containers.delete(container.id);
    return stamped;
  };

  return {
    async load() {
      containers.clear();
      packs.clear();
      storedStamps.clear();
      await loadPacks();
      const singles = await readAllValidated(storage, await storage.getKeys('containers'), ContainerSchema, logger);
      const legacy: Container[] = [];
      const shadowedKeys: string[] = [];
      for (const { key, value: container } of singles) {
        if (packs.keyOf(container.id) !== undefined) shadowedKeys.push(key);
        else if (container.agent !== undefined) legacy.push(container);
        else containers.set(container.id, container);
      }
      const stampedLegacy = await applyCheckedStamps(legacy);
      index.reset([...containers.values()]);
      await packLegacyRecords(stampedLegacy, shadowedKeys);
      const states = await readAllValidated(storage, await storage.getKeys('identities'), IdentityStateSchema, logger);
      for (const { key, value } of states) identities.set(decodeURIComponent(key.slice('identities:'.length)), value);
    },
    all: () => [...containers.values()],
    get: (id) => containers.get(id),
    ofSource,
    query: (query) => index.query(query),
    async put(container) {
      await writeTogether(storage, stageMany([container]));
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
      const key = checkedKey(source);
      const apply = () => {
        // Only checkedAt differs from the stored record, which no index reads: their places stay. A
        // record removed meanwhile stays removed: the stamp could not bring it back at load.
        for (const container of batch) if (containers.has(container.id)) containers.set(container.id, container);
      };
      // A stamp stored a moment ago says nearly as much: an unchanged fleet's warm cycle writes nothing.
      if (!storedStamps.due(key, at, except)) return apply();
      await writeTogether(storage, {
        items: () => [{ key, value: stamp }],
        apply: () => {
          apply();
          storedStamps.remember(key, at, except);
        },
      });
    },
    async remove(id) {
      await removeMany([id]);
      removedOnRequest.delete(id);
      removedOnRequest.set(id, ++removalsOnRequest);
      if (removedOnRequest.size > MAX_REMOVALS_ON_REQUEST_KEPT) {
        const oldest = removedOnRequest.keys().next().value;
        if (oldest !== undefined) removedOnRequest.delete(oldest);
      }
    },
    removalsOnRequest: () => removalsOnRequest,
    removedOnRequestSince: (id, mark) => (removedOnRequest.get(id) ?? 0) > mark,
    removeMany,
    identityState: (identity) => identities.get(identity) ?? NO_STATE,
    async setIdentityState(identity, state) {
      await storage.setItem(identityKey(identity), state);
      identities.set(identity, state);
    },
    policyOf: (identity) => identities.get(identity)?.policy ?? {},
  };
}
