import { describe, expect, it } from 'vitest';
import {
  createSignInLimits,
  LOGIN_FAILURE_LIMIT,
  LOGIN_WINDOW_MS,
  USERNAME_FREE_FAILURES,
  USERNAME_MAX_DELAY_MS,
  usernameDelayMs,
} from './sign-in-limits';

/** Limits on a clock of their own: the server's waits are recorded and move the clock. */
function bed() {
  let clock = 1_000_000;
  const waits: number[] = [];
  const limits = createSignInLimits({
    now: () => clock,
    wait: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
  });
  return {
    limits,
    waits,
    advance(ms: number) {
      clock += ms;
    },
  };
}

/** One failure each from as many addresses (10.1.0.x), as a spread guesser does. */
function spreadFailures(limits: ReturnType<typeof bed>['limits'], username: string, count: number): void {
  for (let i = 0; i < count; i++) limits.recordFailure(`10.1.${Math.floor(i / 250)}.${i % 250}`, username);
}

describe('sign-in limits', () => {
  it('grows the wait of a username past its free failures: 1 s, 2 s, 4 s, then capped', () => {
    expect(usernameDelayMs(USERNAME_FREE_FAILURES - 1)).toBe(0);
    expect([0, 1, 2, 3, 20].map((extra) => usernameDelayMs(USERNAME_FREE_FAILURES + extra))).toEqual([
      1_000,
      2_000,
      4_000,
      USERNAME_MAX_DELAY_MS,
      USERNAME_MAX_DELAY_MS,
    ]);
  });

  it('refuses an address past its failures, for every username, until its window passes', async () => {
    const b = bed();
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) {
      expect(await b.limits.admit('10.0.0.9', `user-${i}`)).toBeUndefined();
      b.limits.recordFailure('10.0.0.9', `user-${i}`);
    }
    const refused = await b.limits.admit('10.0.0.9', 'someone-else');
    expect(refused?.allowed).toBe(false);
    expect(refused?.retryAfterSeconds).toBeGreaterThan(0);
    expect(b.limits.addressBlocked('10.0.0.9')).toBeDefined();
    expect(await b.limits.admit('10.0.0.10', 'user-0')).toBeUndefined();
    b.advance(LOGIN_WINDOW_MS);
    expect(await b.limits.admit('10.0.0.9', 'someone-else')).toBeUndefined();
  });

  // Issue 33 item 5: ten failures of a username refused its owner everywhere for 15 minutes.
  it("the attacker's view: an address that failed gets 429 until the username's growing wait passes, one try each", async () => {
    const b = bed();
    spreadFailures(b.limits, 'alice', USERNAME_FREE_FAILURES);
    const attacker = '10.1.0.0';
    const retries: number[] = [];
    for (let round = 0; round < 4; round++) {
      const refused = await b.limits.admit(attacker, 'alice');
      expect(refused?.allowed).toBe(false);
      retries.push(refused?.retryAfterSeconds ?? 0);
      b.advance((refused?.retryAfterSeconds ?? 0) * 1000);
      expect(await b.limits.admit(attacker, 'alice')).toBeUndefined();
      // Sent at once beside it: refused, so a burst gets one try per wait.
      expect((await b.limits.admit('10.1.0.1', 'alice'))?.allowed).toBe(false);
      b.limits.recordFailure(attacker, 'alice');
    }
    expect(retries).toEqual([1, 2, 4, 4]);
    expect(b.waits).toEqual([]);
  });

  it("the owner's view: an address that has not failed is never refused; the server waits a few seconds at most", async () => {
    const b = bed();
    spreadFailures(b.limits, 'alice', 200);
    expect(await b.limits.admit('192.0.2.7', 'alice')).toBeUndefined();
    expect(b.waits).toHaveLength(1);
    expect(b.waits[0]).toBeGreaterThan(0);
    expect(b.waits[0]).toBeLessThanOrEqual(USERNAME_MAX_DELAY_MS);
    // Other usernames are not slowed down at all.
    expect(await b.limits.admit('192.0.2.8', 'bob')).toBeUndefined();
    expect(b.waits).toHaveLength(1);
    // A quiet window forgets the username's failures.
    b.advance(LOGIN_WINDOW_MS);
    expect(await b.limits.admit('10.1.0.0', 'alice')).toBeUndefined();
    expect(b.waits).toHaveLength(1);
  });
});
