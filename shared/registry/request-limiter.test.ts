import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './registry-transport';
import { createConcurrencyLimiter, createTokenBucketLimiter } from './request-limiter';

describe('limiters', () => {
  it('never runs more than the cap at once', async () => {
    const limiter = createConcurrencyLimiter(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        limiter.run(async () => {
          peak = Math.max(peak, ++active);
          await new Promise((resolve) => setTimeout(resolve, 1));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });

  it('starts a long line of waiters in arrival order, across the compactions of its line', async () => {
    const limiter = createConcurrencyLimiter(2);
    const started: number[] = [];
    let active = 0;
    let peak = 0;
    // Waiters also join while the line drains, so compaction happens with some still waiting.
    const run = (index: number) =>
      limiter.run(async () => {
        started.push(index);
        peak = Math.max(peak, ++active);
        await Promise.resolve();
        active--;
      });
    const first = Array.from({ length: 5_000 }, (_, index) => run(index));
    await first[3_000];
    const second = Array.from({ length: 5_000 }, (_, index) => run(5_000 + index));
    await Promise.all([...first, ...second]);
    expect(started).toEqual(Array.from({ length: 10_000 }, (_, index) => index));
    expect(peak).toBe(2);
  });

  it('lets a burst through, then spaces requests at the rate', async () => {
    let clock = 0;
    const waits: number[] = [];
    const limiter = createTokenBucketLimiter({
      ratePerSecond: 2,
      burst: 3,
      concurrency: 10,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    for (let i = 0; i < 6; i++) await limiter.run(async () => undefined);
    expect(waits).toEqual([500, 1000, 1500]);
    clock += 10_000;
    waits.length = 0;
    await limiter.run(async () => undefined);
    expect(waits).toEqual([]);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores garbage', () => {
    const now = Date.UTC(2026, 10, 21, 12, 0, 0);
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
