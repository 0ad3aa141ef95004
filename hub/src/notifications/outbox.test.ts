import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_OUTBOX_TIMING } from './outbox';

describe('outbox backoff', () => {
  const at = (random: number) => ({ ...DEFAULT_OUTBOX_TIMING, random: () => random });

  it('waits ×4 per failure from 30 s, capped at 20 min: about half an hour to dead-letter', () => {
    const middle = at(0.5);
    expect([1, 2, 3, 4, 5].map((failures) => backoffDelay(failures, middle))).toEqual([
      30_000, 120_000, 480_000, 1_200_000, 1_200_000,
    ]);
    const total = [1, 2, 3, 4].reduce((sum, failures) => sum + backoffDelay(failures, middle), 0);
    expect(total).toBe(1_830_000);
  });

  it('jitters each wait by ±20 %', () => {
    expect(backoffDelay(1, at(0))).toBe(24_000);
    expect(backoffDelay(1, at(0.999_999))).toBe(36_000);
  });

  it('honours the receiver’s Retry-After, up to the longest step', () => {
    expect(backoffDelay(1, at(0.5), 90_000)).toBe(90_000);
    expect(backoffDelay(1, at(0.5), 1_000)).toBe(30_000);
    expect(backoffDelay(1, at(0.5), 86_400_000)).toBe(1_200_000);
  });
});
