import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import { FINISHED_ROLLOUT_STATES, type Rollout, RolloutSchema } from '../../../shared/schemas/rollout';
import type { Publish } from '../events/event-bus';
import type { AuditStore } from '../store/audit-store';
import { createSerialQueue, readValidated } from '../store/validated-storage';

const PREFIX = 'rollouts';
const keyOf = (id: string) => `${PREFIX}:${id}`;
/** Finished rollouts kept for the list; the oldest go first. */
const MAX_FINISHED = 200;

export interface RolloutStoreDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
}

/** An audit entry of action `rollout`: its `status` says what happened. */
export interface RolloutAuditNote {
  status: string;
  details: string;
}

/**
 * The rollouts' records (`rollouts:<id>`), everything a rollout is: its waves, its hosts and their
 * containers with the operations they were given, the end of its pause. A restarted hub (or a
 * re-created Durable Object) carries on from these alone. Every change is stored, and its audit
 * entries appended, before it is shown (get, list) and announced (`dd:rollout-started`,
 * `dd:rollout-updated`): a client that sees a rollout completed finds `completed` in the audit.
 */
export interface RolloutStore {
  load(): Promise<void>;
  /** Newest first. */
  list(): Rollout[];
  get(id: string): Rollout | undefined;
  /** Runs `work` in turn with every change: a check that must hold while a rollout is added. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Stores a new rollout (inside `exclusive`) with its audit entry, announces it and drops the oldest finished ones. */
  add(rollout: Rollout, note: RolloutAuditNote): Promise<void>;
  /**
   * Read-modify-write of one rollout, one at a time: `edit` answers the next record, or undefined
   * to leave it; `notes` the audit entries of the change, written with it. Answers the stored
   * record; undefined for an unknown id.
   */
  change(
    id: string,
    edit: (rollout: Rollout) => Rollout | undefined,
    notes?: (changed: Rollout) => readonly RolloutAuditNote[],
  ): Promise<Rollout | undefined>;
}

const newestFirst = (a: Rollout, b: Rollout) => (a.createdAt === b.createdAt ? 0 : a.createdAt < b.createdAt ? 1 : -1);

export function createRolloutStore(deps: RolloutStoreDeps): RolloutStore {
  const logger = deps.logger.child('rollouts');
  const rollouts = new Map<string, Rollout>();
  const exclusive = createSerialQueue();

  async function save(
    rollout: Rollout,
    event: 'dd:rollout-started' | 'dd:rollout-updated',
    notes: readonly RolloutAuditNote[],
  ): Promise<void> {
    await deps.storage.setItem(keyOf(rollout.id), rollout);
    for (const { status, details } of notes)
      await deps.audit.append({
        action: 'rollout',
        containerImage: `${rollout.image}:${rollout.toVersion}`,
        toVersion: rollout.toVersion,
        status,
        details: `rollout ${rollout.id}: ${details}`.slice(0, 1000),
      });
    rollouts.set(rollout.id, rollout);
    deps.publish(event, rollout);
  }

  async function trim(): Promise<void> {
    const finished = [...rollouts.values()]
      .filter((rollout) => FINISHED_ROLLOUT_STATES.includes(rollout.state))
      .sort(newestFirst);
    for (const old of finished.slice(MAX_FINISHED)) {
      await deps.storage.removeItem(keyOf(old.id));
      rollouts.delete(old.id);
    }
  }

  return {
    async load() {
      rollouts.clear();
      for (const key of await deps.storage.getKeys(PREFIX)) {
        const rollout = await readValidated(deps.storage, key, RolloutSchema, logger);
        if (rollout) rollouts.set(rollout.id, rollout);
      }
    },
    list: () => [...rollouts.values()].sort(newestFirst),
    get: (id) => rollouts.get(id),
    exclusive,
    async add(rollout, note) {
      await save(rollout, 'dd:rollout-started', [note]);
      await trim();
    },
    change: (id, edit, notes) =>
      exclusive(async () => {
        const current = rollouts.get(id);
        if (!current) return undefined;
        const next = edit(current);
        if (!next) return current;
        const saved = { ...next, updatedAt: new Date(deps.now()).toISOString() };
        await save(saved, 'dd:rollout-updated', notes?.(saved) ?? []);
        return saved;
      }),
  };
}
