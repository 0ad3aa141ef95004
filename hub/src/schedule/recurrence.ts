import { CronCache } from './cron-cache';

/** How a recurring job repeats: a cron expression (the process's time zone) or a fixed interval, each with jitter. */
export type Recurrence = { cron: string; jitterMs?: number } | { everyMs: number; jitterMs?: number };

/** A recurring job's next run after `from`, jitter drawn once here; undefined when the cron has no further run. */
export type NextRun = (from: number) => number | undefined;

/**
 * The next-run function of a recurrence. croner only computes here: a paused Cron with no
 * callback holds no timer, the scheduler's one wake-up does the waiting. Jobs of one scheduler
 * share the parsed expression (`crons`).
 */
export function nextRunOf(recurrence: Recurrence, random: () => number, crons = new CronCache()): NextRun {
  const jitter = () => Math.floor(random() * (recurrence.jitterMs ?? 0));
  if ('everyMs' in recurrence) return (from) => from + recurrence.everyMs + jitter();
  const cron = crons.of(recurrence.cron);
  return (from) => {
    const next = cron.nextRun(new Date(from))?.getTime();
    return next === undefined ? undefined : next + jitter();
  };
}

/** What a stored next run was computed from: a job defined with another recurrence computes afresh. */
export function recurrenceKey(recurrence: Recurrence): string {
  const jitter = recurrence.jitterMs ?? 0;
  return 'everyMs' in recurrence ? `every ${recurrence.everyMs} ~${jitter}` : `cron ${recurrence.cron} ~${jitter}`;
}
