import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import { readValidated } from './validated-storage';

const PREFIX = 'schedule';
const keyOf = (name: string) => `${PREFIX}:${encodeURIComponent(name)}`;

export const ScheduledRunSchema = v.object({
  name: v.string(),
  /** Milliseconds since the epoch, jitter included: a restart does not draw the jitter again. */
  nextRunAt: v.number(),
  /** The recurrence the time was computed from; a job defined with another one computes afresh. */
  recurrence: v.optional(v.string()),
});
export type ScheduledRun = v.InferOutput<typeof ScheduledRunSchema>;

/** One key per scheduled job (docs/workers.md "Schedules"): a job's next run is one small write. */
export interface ScheduleStore {
  load(): Promise<Map<string, ScheduledRun>>;
  put(run: ScheduledRun): Promise<void>;
  remove(name: string): Promise<void>;
}

export function createScheduleStore(storage: Storage, logger: Logger): ScheduleStore {
  return {
    async load() {
      const runs = new Map<string, ScheduledRun>();
      for (const key of await storage.getKeys(PREFIX)) {
        const run = await readValidated(storage, key, ScheduledRunSchema, logger);
        if (run) runs.set(run.name, run);
      }
      return runs;
    },
    put: (run) => storage.setItem(keyOf(run.name), run),
    remove: (name) => storage.removeItem(keyOf(name)),
  };
}
