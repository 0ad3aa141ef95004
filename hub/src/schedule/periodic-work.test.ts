import { afterEach, describe, expect, it, vi } from 'vitest';
import { repeatWork } from './periodic-work';
import type { Recurrence } from './recurrence';

afterEach(() => {
  vi.useRealTimers();
});

describe('repeatWork', () => {
  it('runs on an interval of its own without a scheduler, until stopped', () => {
    vi.useFakeTimers();
    let runs = 0;
    const stop = repeatWork(() => void runs++, { scheduler: undefined, job: 'x', everyMs: 60_000, intervalMs: 100 });
    vi.advanceTimersByTime(350);
    expect(runs).toBe(3);
    stop();
    vi.advanceTimersByTime(1_000);
    expect(runs).toBe(3);
  });

  it('is a job of the scheduler where one is given, and keeps no interval that would hold a hibernating object awake', async () => {
    vi.useFakeTimers();
    const jobs: { name: string; run: () => Promise<void>; recurrence: Recurrence | undefined }[] = [];
    const scheduler = {
      job: (name: string, run: () => Promise<void>, recurrence?: Recurrence) => {
        jobs.push({ name, run, recurrence });
        return { name, nextRunAt: () => undefined, runAt: () => undefined, release: () => undefined };
      },
    };
    let runs = 0;
    repeatWork(() => void runs++, { scheduler, job: 'edge.liveness', everyMs: 60_000, intervalMs: 100 });
    expect(vi.getTimerCount()).toBe(0);
    expect(jobs.map(({ name, recurrence }) => ({ name, recurrence }))).toEqual([
      { name: 'edge.liveness', recurrence: { everyMs: 60_000 } },
    ]);
    await jobs[0]?.run();
    expect(runs).toBe(1);
  });
});
