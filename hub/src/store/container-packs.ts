import * as v from 'valibot';

/**
 * An agent's container records are stored together, up to PACK_SIZE a key
 * (`container-packs:<agent>:<n>`), rather than a key each: a 10,000-agent fleet's first sync wrote
 * 200,000 record files on fs, each its own temp file and rename (issue 18). The hub's own hosts
 * keep a key a record: their watcher may hold a thousand containers, and an event on one of them
 * would rewrite its whole pack.
 */
export const PACK_PREFIX = 'container-packs';
/** 32 records of 60 KB stay under a Durable Object value's 2 MB; an agent's snapshot is one pack or a few. */
export const PACK_SIZE = 32;

// Each record is checked on its own at load: one bad record does not cost its pack.
export const ContainerPackSchema = v.object({ agent: v.string(), containers: v.array(v.unknown()) });

/** A pack as the next write leaves it: `ids` empty means the key is deleted. */
export interface PackPlan {
  key: string;
  agent: string;
  ids: string[];
}

const packKey = (agent: string, slot: number) => `${PACK_PREFIX}:${encodeURIComponent(agent)}:${slot}`;

/**
 * Which pack holds which agent record, and the order of the writes to an agent's packs. A pack is
 * rewritten whole from memory, so two writes of one agent's packs run one after another: a later
 * one, built from what the earlier one left, must not be overtaken by it.
 */
export class ContainerPacks {
  private readonly packOf = new Map<string, string>();
  private readonly members = new Map<string, Set<string>>();
  private readonly agentOf = new Map<string, string>();
  private readonly slotsOf = new Map<string, Set<number>>();
  private readonly tails = new Map<string, Promise<void>>();

  keyOf(id: string): string | undefined {
    return this.packOf.get(id);
  }

  /** The agent whose packs hold `id`, if any. */
  agentHolding(id: string): string | undefined {
    const key = this.packOf.get(id);
    return key === undefined ? undefined : this.agentOf.get(key);
  }

  clear(): void {
    this.packOf.clear();
    this.members.clear();
    this.agentOf.clear();
    this.slotsOf.clear();
  }

  /** A pack read at load. */
  adopt(key: string, agent: string, ids: readonly string[]): void {
    this.commit([{ key, agent, ids: [...ids] }]);
  }

  /**
   * The packs a write touches, as they will be once `placed` records are in their agent's packs
   * (a record already in one stays there; a new one goes to the first with room) and `dropped`
   * ids are out of any. Built from the packs as the writes before this one left them.
   */
  plan(placed: readonly { id: string; agent: string }[], dropped: readonly string[]): PackPlan[] {
    const touched = new Map<string, PackPlan>();
    const touch = (key: string): PackPlan => {
      let plan = touched.get(key);
      if (!plan) {
        plan = { key, agent: this.agentOf.get(key) ?? '', ids: [...(this.members.get(key) ?? [])] };
        touched.set(key, plan);
      }
      return plan;
    };
    const leave = (id: string) => {
      const key = this.packOf.get(id);
      if (key === undefined) return;
      const plan = touch(key);
      plan.ids = plan.ids.filter((member) => member !== id);
    };
    for (const id of dropped) leave(id);
    const placedIn = new Map<string, string>();
    for (const { id, agent } of placed) {
      const current = placedIn.get(id) ?? this.packOf.get(id);
      if (current !== undefined && (touched.get(current)?.agent ?? this.agentOf.get(current)) === agent) {
        touch(current);
        continue;
      }
      if (current !== undefined) leave(id);
      const plan = this.roomFor(agent, touched, touch);
      plan.ids.push(id);
      placedIn.set(id, plan.key);
    }
    return [...touched.values()];
  }

  /** What a stored plan leaves: its ids are the packs' members from now on. */
  commit(plans: readonly PackPlan[]): void {
    for (const { key, agent, ids } of plans) {
      for (const id of this.members.get(key) ?? []) if (this.packOf.get(id) === key) this.packOf.delete(id);
      // A key this class did not name (no slot number) keeps its records but is never chosen for new ones.
      const slot = Number(key.slice(key.lastIndexOf(':') + 1));
      if (ids.length === 0) {
        this.members.delete(key);
        this.agentOf.delete(key);
        this.slotsOf.get(agent)?.delete(slot);
        continue;
      }
      this.members.set(key, new Set(ids));
      this.agentOf.set(key, agent);
      for (const id of ids) this.packOf.set(id, key);
      if (!Number.isSafeInteger(slot) || slot < 0) continue;
      const slots = this.slotsOf.get(agent) ?? new Set<number>();
      slots.add(slot);
      this.slotsOf.set(agent, slots);
    }
  }

  /**
   * Waits for the writes already queued for these agents' packs and queues this one: `after`
   * settles when they are over, `settled` must be called once this write is over (stored or not).
   */
  queue(agents: Iterable<string>): { after: Promise<unknown>; settled: () => void } {
    const before: Promise<void>[] = [];
    let resolve!: () => void;
    const done = new Promise<void>((settle) => {
      resolve = settle;
    });
    const queued = new Set(agents);
    for (const agent of queued) {
      const tail = this.tails.get(agent);
      if (tail) before.push(tail);
      this.tails.set(agent, done);
    }
    return {
      after: Promise.all(before),
      settled: () => {
        resolve();
        for (const agent of queued) if (this.tails.get(agent) === done) this.tails.delete(agent);
      },
    };
  }

  private roomFor(agent: string, touched: Map<string, PackPlan>, touch: (key: string) => PackPlan): PackPlan {
    const slots = this.slotsOf.get(agent) ?? new Set<number>();
    for (const slot of [...slots].sort((a, b) => a - b)) {
      const key = packKey(agent, slot);
      const size = touched.get(key)?.ids.length ?? this.members.get(key)?.size ?? 0;
      if (size < PACK_SIZE) return touch(key);
    }
    // Slots this write already opened are not in slotsOf yet.
    for (let slot = 0; ; slot++) {
      if (slots.has(slot)) continue;
      const key = packKey(agent, slot);
      const opened = touched.get(key);
      if (opened && opened.ids.length >= PACK_SIZE) continue;
      if (opened) return opened;
      const plan: PackPlan = { key, agent, ids: [] };
      touched.set(key, plan);
      return plan;
    }
  }
}
