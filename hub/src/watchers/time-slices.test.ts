import { describe, expect, it } from 'vitest';
import { createTimeSlices } from './time-slices';

describe('createTimeSlices (a long run of continuations yields to the event loop, issue 29)', () => {
  it('answers no pause while a slice lasts, then one turn that every caller shares', async () => {
    let now = 0;
    const turns: (() => void)[] = [];
    const slices = createTimeSlices(
      8,
      () => now,
      (callback) => turns.push(callback),
    );
    expect(slices.pause()).toBeUndefined();
    now = 7;
    expect(slices.pause()).toBeUndefined();
    now = 8;
    const first = slices.pause();
    expect(first).toBeInstanceOf(Promise);
    expect(slices.pause()).toBe(first);
    expect(turns).toHaveLength(1);
    now = 20;
    turns[0]?.();
    await first;
    // A new slice starts when the turn comes.
    expect(slices.pause()).toBeUndefined();
    now = 28;
    expect(slices.pause()).toBeInstanceOf(Promise);
  });

  it('lets what was waiting for the event loop run before the run goes on', async () => {
    const order: string[] = [];
    let now = 0;
    const slices = createTimeSlices(
      1,
      () => now,
      (callback) => setTimeout(callback, 0),
    );
    setTimeout(() => order.push('waiting'), 0);
    for (let step = 0; step < 3; step++) {
      now += 2; // each step takes longer than a slice
      await slices.pause();
      order.push(`step ${step}`);
    }
    expect(order).toEqual(['waiting', 'step 0', 'step 1', 'step 2']);
  });

  it('without a pause due, runs on in the same turn', async () => {
    const order: string[] = [];
    const slices = createTimeSlices(1_000);
    setTimeout(() => order.push('waiting'), 0);
    for (let step = 0; step < 3; step++) {
      await slices.pause();
      order.push(`step ${step}`);
    }
    expect(order).toEqual(['step 0', 'step 1', 'step 2']);
  });
});
