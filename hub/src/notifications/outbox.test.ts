import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_OUTBOX_TIMING, dueAt } from './outbox';

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

describe('outbox due time', () => {
  const now = Date.parse('2026-11-27T04:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  it('keeps any wait a backoff can set, the longest step with its jitter included', () => {
    expect(dueAt(undefined, now, DEFAULT_OUTBOX_TIMING)).toBe(now);
    expect(dueAt(iso(now + 30_000), now, DEFAULT_OUTBOX_TIMING)).toBe(now + 30_000);
    expect(dueAt(iso(now + 1_440_000), now, DEFAULT_OUTBOX_TIMING)).toBe(now + 1_440_000);
    expect(dueAt(iso(now - 5_000), now, DEFAULT_OUTBOX_TIMING)).toBe(now - 5_000);
  });

  it('makes an entry written before the clock was stepped back an hour due now (found by the soak)', () => {
    // A 30 s retry set while the clock read an hour ahead.
    expect(dueAt(iso(now + 3_600_000 + 30_000), now, DEFAULT_OUTBOX_TIMING)).toBe(now);
  });
});
