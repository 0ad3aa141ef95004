import { createStorage, type Storage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { RuntimeWakeUp } from '../hub-deps';
import { createScheduleStore } from '../store/schedule-store';
import { createScheduler, type Scheduler } from './scheduler';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);

/** A clock the test moves, and the wake-up the scheduler arms: the delay it asked for, and the fire it gave. */
function fakeRuntime(start = T0) {
  const clock = { now: start };
  const wake: { delayMs: number | undefined; fire: (() => Promise<void>) | undefined; sets: number } = {
    delayMs: undefined,
    fire: undefined,
    sets: 0,
  };
  const wakeUp = (fire: () => Promise<void>): RuntimeWakeUp => {
    wake.fire = fire;
    return {
      async set(delayMs) {
        wake.sets++;
        wake.delayMs = delayMs;
      },
    };
  };
  return { clock, wake, wakeUp };
}

function schedulerOver(storage: Storage, runtime: ReturnType<typeof fakeRuntime>, random = () => 0): Scheduler {
  const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
  return createScheduler({
    store: createScheduleStore(storage, logger),
    logger,
    now: () => runtime.clock.now,
    random,
    wakeUp: runtime.wakeUp,
  });
}

/** Moves the clock to the armed wake and fires it, as the runtime would. */
async function wakeAtArmedTime(runtime: ReturnType<typeof fakeRuntime>): Promise<void> {
  const { delayMs, fire } = runtime.wake;
  if (delayMs === undefined || !fire) throw new Error('nothing is armed');
  runtime.clock.now += delayMs;
  await fire();
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the scheduler', () => {
  it('computes a cron job’s next run from the cron, with its jitter, and arms the wake-up for it', async () => {
    const runtime = fakeRuntime();
    const scheduler = schedulerOver(createStorage(), runtime, () => 0.5);
    await scheduler.load();
    scheduler.start();
    const job = scheduler.job('watch', async () => undefined, { cron: '0 * * * *', jitterMs: 60_000 });
    expect(job.nextRunAt()).toBe(T0 + HOUR + 30_000);
    await settle();
    expect(runtime.wake.delayMs).toBe(HOUR + 30_000);
  });

  it('runs a recurring job when due and then at its next cron time', async () => {
    const runtime = fakeRuntime();
    const scheduler = schedulerOver(createStorage(), runtime);
    await scheduler.load();
    scheduler.start();
    const ran: number[] = [];
    const job = scheduler.job('tick', async () => void ran.push(runtime.clock.now), { cron: '*/15 * * * *' });
    await settle();
    await wakeAtArmedTime(runtime);
    expect(ran).toEqual([T0 + 15 * 60_000]);
    expect(job.nextRunAt()).toBe(T0 + 30 * 60_000);
    await settle();
    expect(runtime.wake.delayMs).toBe(15 * 60_000);
  });

  it('arms one wake-up at the earliest job, re-armed as jobs change', async () => {
    const runtime = fakeRuntime();
    const scheduler = schedulerOver(createStorage(), runtime);
    await scheduler.load();
    scheduler.start();
    scheduler.job('hourly', async () => undefined, { cron: '0 * * * *' });
    const once = scheduler.job('once', async () => undefined);
    once.runAt(T0 + 5_000);
    await settle();
    expect(runtime.wake.delayMs).toBe(5_000);
    once.runAt(undefined);
    await settle();
    expect(runtime.wake.delayMs).toBe(HOUR);
    once.release();
    scheduler.job('every', async () => undefined, { everyMs: 60_000 });
    await settle();
    expect(runtime.wake.delayMs).toBe(60_000);
  });

  it('after a restart, runs a job that fell due during the downtime exactly once, and not a job that is not due', async () => {
    const storage = createStorage();
    const before = fakeRuntime();
    const first = schedulerOver(storage, before);
    await first.load();
    first.start();
    first.job('hourly', async () => undefined, { cron: '0 * * * *' });
    first.job('daily', async () => undefined, { cron: '0 0 * * *' });
    first.job('retry', async () => undefined).runAt(T0 + 10 * 60_000);
    await first.stop();

    // Down for five hours: the hourly job missed five periods, the retry one, the daily job none.
    const after = fakeRuntime(T0 + 5 * HOUR + 1_000);
    const second = schedulerOver(storage, after);
    const ran: string[] = [];
    const track = (name: string) => async () => void ran.push(name);
    await second.load();
    const hourly = second.job('hourly', track('hourly'), { cron: '0 * * * *' });
    const daily = second.job('daily', track('daily'), { cron: '0 0 * * *' });
    const retry = second.job('retry', track('retry'));
    second.start();
    await settle();
    expect(after.wake.delayMs).toBe(0);
    await after.wake.fire?.();
    expect(ran.sort()).toEqual(['hourly', 'retry']);
    expect(hourly.nextRunAt()).toBe(T0 + 6 * HOUR);
    expect(retry.nextRunAt()).toBeUndefined();
    expect(daily.nextRunAt()).toBe(Date.UTC(2026, 0, 2));
    // A second wake at the same moment finds nothing due.
    await after.wake.fire?.();
    expect(ran).toHaveLength(2);
    await second.stop();

    // And a third start does not run them again: the runs were stored.
    const third = schedulerOver(storage, fakeRuntime(T0 + 5 * HOUR + 2_000));
    await third.load();
    const again: string[] = [];
    third.job('hourly', async () => void again.push('hourly'), { cron: '0 * * * *' });
    third.job('retry', async () => void again.push('retry'));
    third.start();
    await third.runDue();
    expect(again).toEqual([]);
  });

  it('runs a job again at the next start when the process died during its run (at least once)', async () => {
    const storage = createStorage();
    const before = fakeRuntime();
    const first = schedulerOver(storage, before);
    await first.load();
    first.start();
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    first.job('cycle', () => hanging, { everyMs: 60_000 });
    await settle();
    before.clock.now += 60_000;
    void before.wake.fire?.();
    // The process dies here: a new scheduler over the same storage, the first never finishes.
    const second = schedulerOver(storage, fakeRuntime(T0 + 70_000));
    await second.load();
    const ran: string[] = [];
    second.job('cycle', async () => void ran.push('cycle'), { everyMs: 60_000 });
    second.start();
    await second.runDue();
    expect(ran).toEqual(['cycle']);
    release();
  });

  it('computes afresh when the recurrence changed while the hub was down', async () => {
    const storage = createStorage();
    const first = schedulerOver(storage, fakeRuntime());
    await first.load();
    first.start();
    first.job('watch', async () => undefined, { cron: '0 0 * * *' });
    await first.stop();
    const second = schedulerOver(storage, fakeRuntime(T0 + 1_000));
    await second.load();
    const job = second.job('watch', async () => undefined, { cron: '*/5 * * * *' });
    expect(job.nextRunAt()).toBe(T0 + 5 * 60_000);
  });

  it('keeps a next run the job set during its own run, and does not run a job twice while it runs', async () => {
    const runtime = fakeRuntime();
    const scheduler = schedulerOver(createStorage(), runtime);
    await scheduler.load();
    scheduler.start();
    let runs = 0;
    const job = scheduler.job('outbox', async () => {
      runs++;
      // A second wake while this run is in progress must not start it again.
      await scheduler.runDue();
      job.runAt(runtime.clock.now + 30_000);
    });
    job.runAt(T0);
    await scheduler.runDue();
    expect(runs).toBe(1);
    expect(job.nextRunAt()).toBe(T0 + 30_000);
  });

  it('ignores a stored job nobody defined, and keeps its next run for when one does', async () => {
    const storage = createStorage();
    const first = schedulerOver(storage, fakeRuntime());
    await first.load();
    first.start();
    first.job('agent-watch', async () => undefined).runAt(T0 + 1_000);
    await first.stop();
    const runtime = fakeRuntime(T0 + 2_000);
    const second = schedulerOver(storage, runtime);
    await second.load();
    second.start();
    await settle();
    expect(runtime.wake.delayMs).toBeUndefined();
    const ran: string[] = [];
    second.job('agent-watch', async () => void ran.push('ran'));
    await settle();
    expect(runtime.wake.delayMs).toBe(0);
    await runtime.wake.fire?.();
    expect(ran).toEqual(['ran']);
  });

  it('forgets a job and its stored next run for good, defined or not', async () => {
    const storage = createStorage();
    const first = schedulerOver(storage, fakeRuntime());
    await first.load();
    first.start();
    first.job('watch.nas/docker.gone', async () => undefined, { cron: '0 * * * *' });
    first.job('watch.nas/docker.old', async () => undefined).runAt(T0 + 1_000);
    first.job('watch.nas/docker.old', async () => undefined).release();
    first.forget('watch.nas/docker.gone');
    first.forget('watch.nas/docker.old');
    await first.stop();
    expect(await storage.getKeys('schedule')).toEqual([]);
  });

  it('counts a failed run as a run: the next one is at the next period, not at once', async () => {
    const runtime = fakeRuntime();
    const scheduler = schedulerOver(createStorage(), runtime);
    await scheduler.load();
    scheduler.start();
    const job = scheduler.job(
      'failing',
      async () => {
        throw new Error('registry down');
      },
      { everyMs: 60_000 },
    );
    await settle();
    await wakeAtArmedTime(runtime);
    expect(job.nextRunAt()).toBe(T0 + 120_000);
  });

  it('arms the earliest of a thousand jobs as they are defined, moved and released, and runs the due ones', async () => {
    const runtime = fakeRuntime();
    const scheduler = schedulerOver(createStorage(), runtime);
    await scheduler.load();
    scheduler.start();
    const ran: string[] = [];
    const jobs = Array.from({ length: 1_000 }, (_, index) =>
      scheduler.job(`job-${index}`, async () => void ran.push(`job-${index}`)),
    );
    // A fixed pseudo-random walk of moves and releases; after each, the armed delay is the earliest left.
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
      return state;
    };
    const released = new Set<number>();
    const live = () => jobs.filter((job, i) => !released.has(i) && job.nextRunAt() !== undefined);
    for (let step = 0; step < 2_000; step++) {
      const index = next() % jobs.length;
      const job = jobs[index] as (typeof jobs)[number];
      if (next() % 10 === 0) {
        job.release();
        released.add(index);
      } else if (!released.has(index)) job.runAt(T0 + 1_000 + (next() % 5_000));
      await settle();
      const times = live().map((candidate) => candidate.nextRunAt() as number);
      const earliest = times.length === 0 ? undefined : Math.min(...times) - T0;
      if (runtime.wake.delayMs !== earliest)
        throw new Error(`step ${step}: armed ${runtime.wake.delayMs}, earliest ${earliest}`);
    }
    const earliestAt = Math.min(...live().map((job) => job.nextRunAt() as number));
    const dueFirst = live()
      .filter((job) => job.nextRunAt() === earliestAt)
      .map((job) => job.name)
      .sort();
    await wakeAtArmedTime(runtime);
    expect(dueFirst.length).toBeGreaterThan(0);
    expect([...ran].sort()).toEqual(dueFirst);
  });
});

describe('the scheduler with loop turns (Node)', () => {
  it('starts due jobs one a turn, and a wake-up meanwhile leaves them to the loop already starting them', async () => {
    const runtime = fakeRuntime();
    const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
    const turns: (() => void)[] = [];
    const scheduler = createScheduler({
      store: createScheduleStore(createStorage(), logger),
      logger,
      now: () => runtime.clock.now,
      random: () => 0,
      wakeUp: runtime.wakeUp,
      nextTurn: (work) => void turns.push(work),
    });
    await scheduler.load();
    scheduler.start();
    const started: string[] = [];
    for (const name of ['a', 'b', 'c']) scheduler.job(name, async () => void started.push(name)).runAt(T0);
    await settle();
    const first = runtime.wake.fire?.();
    await settle();
    expect(started).toEqual(['a']);
    // A second wake-up while the first is starting jobs: it starts none of its own.
    const second = runtime.wake.fire?.();
    await settle();
    expect(started).toEqual(['a']);
    expect(turns).toHaveLength(1);
    turns.shift()?.();
    await settle();
    expect(started).toEqual(['a', 'b']);
    turns.shift()?.();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    // The loop looks once more for what the second wake-up found: nothing left, nothing run twice.
    while (turns.length > 0) {
      turns.shift()?.();
      await settle();
    }
    await Promise.all([first, second]);
    expect(started).toEqual(['a', 'b', 'c']);
  });
});
