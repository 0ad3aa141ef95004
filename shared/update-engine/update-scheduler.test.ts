import { describe, expect, it } from 'vitest';
import { type ScheduledJob, UpdateScheduler } from './update-scheduler';

/** A job that runs until released, recording when it started. */
function gatedJob(id: string, lockKey: string, groupKey: string | undefined, started: string[]) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let signal: AbortSignal | undefined;
  const job: ScheduledJob = {
    id,
    lockKey,
    groupKey,
    async run(given) {
      signal = given;
      started.push(id);
      await gate;
    },
  };
  return { job, release, signalOf: () => signal };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('UpdateScheduler', () => {
  it('runs up to maxConcurrent at once, first come first served, and reports positions', async () => {
    const started: string[] = [];
    const scheduler = new UpdateScheduler({ maxConcurrent: 2 });
    const jobs = ['a', 'b', 'c'].map((id) => gatedJob(id, id, undefined, started));
    for (const { job } of jobs) scheduler.enqueue(job);
    expect(started).toEqual(['a', 'b']);
    expect(scheduler.position('a')).toEqual({ queuePosition: 0, queueTotal: 3 });
    expect(scheduler.position('c')).toEqual({ queuePosition: 1, queueTotal: 3 });
    jobs[0]?.release();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(scheduler.position('a')).toBeUndefined();
    jobs[1]?.release();
    jobs[2]?.release();
    await scheduler.idle();
    expect(scheduler.total()).toBe(0);
  });

  it('serializes a container and a compose project, and lets other work pass a blocked job', async () => {
    const started: string[] = [];
    const scheduler = new UpdateScheduler({ maxConcurrent: 4 });
    const first = gatedJob('a1', 'a', 'stack', started);
    const sameProject = gatedJob('b1', 'b', 'stack', started);
    const sameContainer = gatedJob('a2', 'a', undefined, started);
    const other = gatedJob('c1', 'c', undefined, started);
    for (const { job } of [first, sameProject, sameContainer, other]) scheduler.enqueue(job);
    expect(started).toEqual(['a1', 'c1']);
    expect(scheduler.isLocked('b')).toBe(true);
    first.release();
    await tick();
    expect(started).toEqual(['a1', 'c1', 'b1', 'a2']);
    for (const gate of [sameProject, sameContainer, other]) gate.release();
    await scheduler.idle();
  });

  it('dequeues a waiting job on cancel, signals a running one, and stops: waiting ids back, running ones aborted', async () => {
    const started: string[] = [];
    const changes: number[] = [];
    const scheduler = new UpdateScheduler({ maxConcurrent: 1, onChange: () => changes.push(scheduler.total()) });
    const running = gatedJob('r', 'r', undefined, started);
    const waiting = gatedJob('w', 'w', undefined, started);
    const kept = gatedJob('k', 'k', undefined, started);
    for (const { job } of [running, waiting, kept]) scheduler.enqueue(job);
    expect(scheduler.cancel('w', 'by test')).toBe('dequeued');
    expect(scheduler.cancel('nope', 'by test')).toBe('unknown');
    expect(scheduler.cancel('r', 'by test')).toBe('signalled');
    expect(running.signalOf()?.reason).toBe('by test');
    expect(changes.length).toBeGreaterThan(0);
    const stopping = scheduler.stop('stopping');
    running.release();
    expect(await stopping).toEqual(['k']);
    expect(started).toEqual(['r']);
    expect(() => scheduler.enqueue(kept.job)).toThrow(/stopped/);
  });

  it('shuts down in two steps: running jobs end on their own within the grace, the rest are signalled, what still runs is answered', async () => {
    const started: string[] = [];
    const scheduler = new UpdateScheduler({ maxConcurrent: 2 });
    const quick = gatedJob('quick', 'q', undefined, started);
    const stuck = gatedJob('stuck', 's', undefined, started);
    const queued = gatedJob('queued', 'x', undefined, started);
    for (const { job } of [quick, stuck, queued]) scheduler.enqueue(job);
    const shuttingDown = scheduler.shutDown('the hub is stopping', { graceMs: 200, signalledMs: 50 });
    await tick();
    // Within the grace nothing is signalled: the quick job ends as it would have.
    expect(stuck.signalOf()?.aborted).toBe(false);
    quick.release();
    const outcome = await shuttingDown;
    expect(stuck.signalOf()?.reason).toBe('the hub is stopping');
    expect(outcome).toEqual({ dropped: ['queued'], unfinished: ['stuck'] });
    expect(started).toEqual(['quick', 'stuck']);
    stuck.release();
  });

  it('waits without a limit when signalledMs is Infinity (regression: setTimeout took Infinity as 1 ms)', async () => {
    const scheduler = new UpdateScheduler({ maxConcurrent: 1 });
    const slow = gatedJob('slow', 's', undefined, []);
    scheduler.enqueue(slow.job);
    let done = false;
    const shuttingDown = scheduler
      .shutDown('stopping', { graceMs: 0, signalledMs: Number.POSITIVE_INFINITY })
      .then((outcome) => {
        done = true;
        return outcome;
      });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    slow.release();
    expect(await shuttingDown).toEqual({ dropped: [], unfinished: [] });
  });
});
