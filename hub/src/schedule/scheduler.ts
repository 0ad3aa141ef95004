import type { Logger } from '../../../shared/logging/logger';
import type { RuntimeWakeUp } from '../hub-deps';
import type { ScheduledRun, ScheduleStore } from '../store/schedule-store';
import { createSerialQueue } from '../store/validated-storage';
import { CronCache } from './cron-cache';
import { type NextRun, nextRunOf, type Recurrence, recurrenceKey } from './recurrence';
import { type HeapRun, RunHeap } from './run-heap';

export interface ScheduledJob {
  readonly name: string;
  /** When the job runs next (ms since the epoch); undefined while it is not scheduled. */
  nextRunAt(): number | undefined;
  /**
   * Runs the job at `atMs` (now or earlier: at the next wake), replacing its next run; undefined
   * unschedules it. A recurring job goes back to its recurrence after that run.
   */
  runAt(atMs: number | undefined): void;
  /** Drops the handler and keeps the stored next run, for the next start or the next definition. */
  release(): void;
}

export interface Scheduler {
  /**
   * Defines a job (replacing one of the same name). A recurring job keeps a stored next run
   * computed from the same recurrence and computes one otherwise; a one-shot job keeps a stored
   * one. The handler must be idempotent (see createScheduler).
   */
  job(name: string, run: () => Promise<void>, recurrence?: Recurrence): ScheduledJob;
  /** Drops a job and its stored next run, defined or not (what it scheduled is gone for good). */
  forget(name: string): void;
  /** Reads the stored next runs; jobs defined before adopt theirs. */
  load(): Promise<void>;
  /** Arms the runtime's wake-up from now on (a job that fell due while the hub was down runs at once). */
  start(): void;
  /** Disarms, then waits for running jobs and pending writes. */
  stop(): Promise<void>;
  /** Runs every due job; the runtime's wake-up calls it, and it resolves once those jobs have finished. */
  runDue(): Promise<void>;
}

export interface SchedulerDeps {
  store: ScheduleStore;
  logger: Logger;
  now: () => number;
  random: () => number;
  wakeUp: (fire: () => Promise<void>) => RuntimeWakeUp;
  /**
   * Runs work on the loop's next turn, after pending I/O (Node: setImmediate). Given, due jobs are
   * started one a turn: ten thousand agents' first cycles fall due together after a fleet's sync,
   * and started in one go they held the loop for their whole synchronous part (issue 18).
   */
  nextTurn?: ((work: () => void) => void) | undefined;
}

interface Entry {
  name: string;
  run: () => Promise<void>;
  key: string | undefined;
  next: NextRun | undefined;
  running: boolean;
}

/**
 * The hub's durable schedules, on the runtime's one wake-up (a timer on Node, the Durable Object
 * alarm on Workers; issue 16 item 1): named jobs, each with one stored next-run time, and the
 * wake-up always armed at the earliest of them.
 *
 * At least once: a job's next run is stored after its run ends, so a run cut short by a crash or
 * an eviction is made again at the next start, and one that finished is not. Every job is
 * idempotent for it (a watch cycle observes again, the outbox wake attempts what its own records
 * say is due, a digest flush of an empty digest sends nothing). The opposite order (store the next
 * run, then run) would lose a due run to every crash in between, which is worse than repeating
 * one. A job missed while the hub was down runs once at start, then its recurrence continues from
 * that run: never once per missed period.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { store, logger, now } = deps;
  /** The stored next runs, defined or not: a job defined later (an agent's watcher) adopts its own. */
  const runs = new Map<string, ScheduledRun>();
  const entries = new Map<string, Entry>();
  /** Bumped whenever a job's next run is set: a run that ends after a move leaves the new time alone. */
  const versions = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const write = createSerialQueue();
  let writes: Promise<unknown> = Promise.resolve();
  let loaded = false;
  let started = false;
  let armedAt: number | undefined;
  let arming: Promise<void> = Promise.resolve();
  /** The loop starting due jobs, while it runs (runDue), and whether a wake-up came meanwhile. */
  let starting: Promise<void> | undefined;
  let startAgain = false;
  const wake = deps.wakeUp(() => scheduler.runDue());
  /** Every next run set, earliest first; outdated ones are dropped when they come to the top. */
  const heap = new RunHeap();
  const crons = new CronCache();

  /** A heap entry still names its job's next run, and the job is defined. */
  const isCurrent = (run: HeapRun) => entries.has(run.name) && runs.get(run.name)?.nextRunAt === run.at;

  function push(name: string, at: number): void {
    heap.push({ name, at });
    // Jobs that keep moving leave outdated entries deep in the heap; rebuilt when they outnumber the rest.
    if (heap.size > 4 * entries.size + 1024)
      heap.reset(
        [...entries.keys()].flatMap((job) => {
          const next = runs.get(job)?.nextRunAt;
          return next === undefined ? [] : [{ name: job, at: next }];
        }),
      );
  }

  function persist(name: string): void {
    writes = write(async () => {
      const run = runs.get(name);
      await (run ? store.put(run) : store.remove(name));
    }).catch((error: unknown) => logger.error('could not store a schedule', { job: name, error: String(error) }));
  }

  function setNext(name: string, at: number | undefined, key: string | undefined): void {
    versions.set(name, (versions.get(name) ?? 0) + 1);
    const previous = runs.get(name);
    if (at === undefined) runs.delete(name);
    else {
      runs.set(name, { name, nextRunAt: at, ...(key !== undefined && { recurrence: key }) });
      push(name, at);
    }
    if (previous?.nextRunAt !== at || previous?.recurrence !== key) persist(name);
    arm();
  }

  /** A stored next run still means what the definition says, or the definition computes one. */
  function adopt(entry: Entry): void {
    const stored = runs.get(entry.name);
    if (stored && stored.recurrence === entry.key) {
      push(entry.name, stored.nextRunAt);
      arm();
    } else setNext(entry.name, entry.next?.(now()), entry.key);
  }

  function arm(): void {
    if (!started) return;
    const earliest = earliestRun();
    if (earliest === armedAt) return;
    armedAt = earliest;
    const delay = earliest === undefined ? undefined : Math.max(0, earliest - now());
    arming = arming
      .then(() => wake.set(delay))
      .catch((error: unknown) => logger.error('could not arm the schedule wake-up', { error: String(error) }));
  }

  /**
   * The earliest next run of a job not running. A running job's own entry was taken by runDue; one
   * at the top is a time set while it runs (runAt), kept aside and put back.
   */
  function earliestRun(): number | undefined {
    const aside: HeapRun[] = [];
    let earliest: number | undefined;
    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      if (!isCurrent(top)) heap.pop();
      else if (entries.get(top.name)?.running) aside.push(heap.pop() as HeapRun);
      else {
        earliest = top.at;
        break;
      }
    }
    for (const run of aside) heap.push(run);
    return earliest;
  }

  async function runOne(entry: Entry): Promise<void> {
    entry.running = true;
    const version = versions.get(entry.name);
    try {
      await entry.run();
    } catch (error) {
      // A failed run counts as a run: retrying at once would hammer what failed (a registry, a receiver).
      logger.error('scheduled job failed', { job: entry.name, error: String(error) });
    } finally {
      entry.running = false;
    }
    if (versions.get(entry.name) === version) setNext(entry.name, entry.next?.(now()), entry.key);
    else arm();
  }

  /**
   * A defined job as its owner holds it. A class, not an object of closures: every watcher holds
   * one, 10,000 of them for an edge fleet, and each closure took its own memory (issue 30 item 3).
   */
  class JobHandle implements ScheduledJob {
    constructor(private readonly entry: Entry) {}

    get name(): string {
      return this.entry.name;
    }

    nextRunAt(): number | undefined {
      return runs.get(this.entry.name)?.nextRunAt;
    }

    runAt(atMs: number | undefined): void {
      setNext(this.entry.name, atMs, this.entry.key);
    }

    release(): void {
      if (entries.get(this.entry.name) !== this.entry) return;
      entries.delete(this.entry.name);
      arm();
    }
  }

  const scheduler: Scheduler = {
    job(name, run, recurrence) {
      const entry: Entry = {
        name,
        run,
        key: recurrence && recurrenceKey(recurrence),
        next: recurrence && nextRunOf(recurrence, deps.random, crons),
        running: false,
      };
      entries.set(name, entry);
      if (loaded) adopt(entry);
      return new JobHandle(entry);
    },
    forget(name) {
      entries.delete(name);
      setNext(name, undefined, undefined);
    },
    async load() {
      for (const [name, run] of await store.load()) if (!runs.has(name)) runs.set(name, run);
      loaded = true;
      for (const entry of entries.values()) adopt(entry);
    },
    start() {
      started = true;
      arm();
    },
    async stop() {
      started = false;
      armedAt = undefined;
      arming = arming.then(() => wake.set(undefined)).catch(() => undefined);
      await arming;
      await Promise.all(running);
      await writes;
    },
    async runDue() {
      // The wake-up that called this is spent: whatever is earliest now must be armed again.
      armedAt = undefined;
      if (!started) return;
      // Paced starts take turns: a wake-up meanwhile (a job that ended re-arms it) leaves the jobs
      // it finds due to the loop already starting them, which looks again once it is through.
      if (starting) {
        startAgain = true;
        await starting;
        return;
      }
      const due: Promise<void>[] = [];
      starting = (async () => {
        do {
          startAgain = false;
          await startDue(due);
        } while (startAgain && started);
      })();
      try {
        await starting;
      } finally {
        starting = undefined;
      }
      arm();
      await Promise.all(due);
      await writes;
    },
  };

  /** Starts every job due now, adding each run to `due`; one a turn where the runtime gives turns. */
  async function startDue(due: Promise<void>[]): Promise<void> {
    const at = now();
    const aside: HeapRun[] = [];
    const { nextTurn } = deps;
    let yieldFirst = false;
    try {
      for (;;) {
        if (nextTurn && yieldFirst) {
          yieldFirst = false;
          await new Promise<void>((resolve) => nextTurn(resolve));
          if (!started) return;
        }
        const top = heap.peek();
        if (top === undefined || top.at > at) return;
        heap.pop();
        const entry = entries.get(top.name);
        if (!entry || !isCurrent(top)) continue;
        // Set again while it runs: it runs at the next wake after this run.
        if (entry.running) {
          aside.push(top);
          continue;
        }
        const run = runOne(entry);
        running.add(run);
        due.push(run.finally(() => running.delete(run)));
        yieldFirst = true;
      }
    } finally {
      for (const run of aside) heap.push(run);
    }
  }
  return scheduler;
}
