import { describe, expect, it } from 'vitest';
import { createBackoff, DEFAULT_BACKOFF } from './backoff';

describe('reconnect backoff', () => {
  it('draws each delay between half and all of the step, doubling the step up to the maximum', () => {
    const lowest = createBackoff({ ...DEFAULT_BACKOFF, random: () => 0 });
    const highest = createBackoff({ ...DEFAULT_BACKOFF, random: () => 0.999999 });
    const low = Array.from({ length: 9 }, () => lowest.next());
    const high = Array.from({ length: 9 }, () => highest.next());
    expect(low).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(high).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('spreads a fleet: random draws land anywhere in [step/2, step]', () => {
    const backoff = createBackoff(DEFAULT_BACKOFF);
    const delays = Array.from({ length: 200 }, () => {
      backoff.reset();
      return backoff.next();
    });
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1_000);
    expect(new Set(delays).size).toBeGreaterThan(50);
  });

  it('resets after a session that lasted a minute, not after a shorter one', () => {
    const backoff = createBackoff({ ...DEFAULT_BACKOFF, random: () => 0.999999 });
    backoff.next();
    backoff.next();
    expect(backoff.stepMs).toBe(4_000);
    backoff.sessionEnded(59_999);
    expect(backoff.stepMs).toBe(4_000);
    backoff.sessionEnded(60_000);
    expect(backoff.next()).toBe(1_000);
  });

  it('jumps to the longest step for refusals that will not clear soon', () => {
    const backoff = createBackoff({ ...DEFAULT_BACKOFF, random: () => 0 });
    backoff.jumpToMax();
    expect(backoff.next()).toBe(30_000);
    expect(backoff.stepMs).toBe(60_000);
  });

  it('refuses bounds that make no sense', () => {
    expect(() => createBackoff({ minMs: 0, maxMs: 10, resetAfterMs: 0 })).toThrow(/backoff/);
    expect(() => createBackoff({ minMs: 10, maxMs: 5, resetAfterMs: 0 })).toThrow(/backoff/);
  });
});
