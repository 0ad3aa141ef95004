import type { Scheduler } from './scheduler';

export interface PeriodicClock {
  /**
   * Given where the runtime hibernates (Workers): the work is this job of the hub's scheduler,
   * which wakes the object only when it falls due. An interval there would keep it awake.
   */
  scheduler: Pick<Scheduler, 'job'> | undefined;
  /** The job's name, and how often it runs on the scheduler. */
  job: string;
  everyMs: number;
  /** Without a scheduler: the period of the interval of its own (often shorter: it costs nothing there). */
  intervalMs: number;
}

/**
 * Runs `work` periodically on the clock that suits the runtime: a scheduler job where one is given,
 * else an interval. The returned function ends an interval; a job ends with its scheduler.
 */
export function repeatWork(work: () => void, clock: PeriodicClock): () => void {
  if (clock.scheduler) {
    clock.scheduler.job(clock.job, async () => work(), { everyMs: clock.everyMs });
    return () => undefined;
  }
  const timer = setInterval(work, clock.intervalMs);
  return () => clearInterval(timer);
}
