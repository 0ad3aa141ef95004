import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import {
  isTerminal,
  type UpdateJournal,
  type UpdateOperation,
  UpdateOperationSchema,
} from '../../../shared/update-engine';
import { createSerialQueue, readValidated } from '../store/validated-storage';

const PREFIX = 'update-operations';
const keyOf = (id: string) => `${PREFIX}:${id}`;
/** Settled operations kept for the history routes; the oldest go first. */
export const MAX_SETTLED_OPERATIONS = 2_000;

/** A write to an operation that is already settled: whoever sent it was superseded (http-interface §3.2), and is refused. */
export class SupersededOperationError extends Error {
  constructor(id: string) {
    super(`update operation ${id} is already settled; a late write was refused`);
    this.name = 'SupersededOperationError';
  }
}

/** Newest first: creation time, then id. */
export function newestFirst(a: UpdateOperation, b: UpdateOperation): number {
  return a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;
}

/** The update journal in the hub's storage (decisions §3: every write atomic), mirrored in memory. */
export interface UpdateOperationStore extends UpdateJournal {
  load(): Promise<void>;
  get(id: string): UpdateOperation | undefined;
  all(): UpdateOperation[];
  /** Queued or in progress. */
  unsettled(): UpdateOperation[];
}

export function createUpdateOperationStore(storage: Storage, logger: Logger): UpdateOperationStore {
  const operations = new Map<string, UpdateOperation>();
  const serial = createSerialQueue();

  async function trim(): Promise<void> {
    const settled = [...operations.values()].filter(isTerminal).sort(newestFirst);
    for (const old of settled.slice(MAX_SETTLED_OPERATIONS)) {
      await storage.removeItem(keyOf(old.id));
      operations.delete(old.id);
    }
  }

  return {
    async load() {
      operations.clear();
      const keys = await storage.getKeys(PREFIX);
      const loaded = await Promise.all(keys.map((key) => readValidated(storage, key, UpdateOperationSchema, logger)));
      for (const operation of loaded) if (operation) operations.set(operation.id, operation);
    },
    get: (id) => operations.get(id),
    all: () => [...operations.values()].sort(newestFirst),
    unsettled: () =>
      [...operations.values()].filter((operation) => !isTerminal(operation)).sort((a, b) => -newestFirst(a, b)),
    save(operation) {
      return serial(async () => {
        const stored = operations.get(operation.id);
        // A settled operation is final: a run that lost its claim (a cancel, a restart) cannot rewrite it.
        if (stored && isTerminal(stored)) throw new SupersededOperationError(operation.id);
        await storage.setItem(keyOf(operation.id), operation);
        operations.set(operation.id, operation);
        if (isTerminal(operation)) await trim();
      });
    },
  };
}
