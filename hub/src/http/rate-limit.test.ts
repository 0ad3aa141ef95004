import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limit';

describe('fixed-window rate limiter', () => {
  it('allows the limit per window, then answers how long to wait', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ limit: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) expect(limiter.take('a')).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 60 });
    now += 59_001;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 999;
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('counts each key on its own', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 1_000, now: () => 0 });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('keeps at most maxKeys windows, sweeping expired ones first', () => {
    let now = 0;
    const limiter = createRateLimiter({ limit: 1, windowMs: 1_000, now: () => now, maxKeys: 2 });
    limiter.take('a');
    now = 500;
    limiter.take('b');
    now = 1_200;
    // a has expired and is swept; b stays limited.
    expect(limiter.take('c').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(false);
    // Full of live windows: the oldest (b) is dropped to make room.
    expect(limiter.take('d').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('peeks without counting, and takes a per-call limit', () => {
    let now = 0;
    const limiter = createRateLimiter({ limit: 100, windowMs: 10_000, now: () => now });
    expect(limiter.peek('a', 2).allowed).toBe(true);
    expect(limiter.take('a', 2).allowed).toBe(true);
    expect(limiter.take('a', 2).allowed).toBe(true);
    expect(limiter.peek('a', 2)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(limiter.take('a', 2).allowed).toBe(false);
    expect(limiter.peek('a').allowed).toBe(true);
    now = 10_000;
    expect(limiter.peek('a', 2).allowed).toBe(true);
  });
});
