import { createRateLimiter, type RateLimitDecision } from '../http/rate-limit';

/** Failed sign-ins from one address within the window before that address gets 429 (whatever the username). */
export const LOGIN_FAILURE_LIMIT = 10;
/** Failed sign-ins of one username, from anywhere, within the window that slow nothing down (typos, a stale client). */
export const USERNAME_FREE_FAILURES = 10;
/** The wait after the first failure past the free ones; it doubles with each further failure… */
export const USERNAME_FIRST_DELAY_MS = 1_000;
/** …up to this: a sign-in is never held open longer because of someone else's failures. */
export const USERNAME_MAX_DELAY_MS = 4_000;
export const LOGIN_WINDOW_MS = 15 * 60_000;
const MAX_USERNAMES = 10_000;

/**
 * The brute-force limits of every way a password is tried: the sign-in route and HTTP Basic on the
 * compatibility routes share them, so a guesser gains nothing by switching between the two
 * (docs/security.md "Failed sign-ins").
 *
 * An address is refused (429) after LOGIN_FAILURE_LIMIT failures. A username is never refused for
 * everyone, which would let anyone lock its owner out (OWASP's advice): past its free failures each
 * further one adds a growing, capped wait before the next password of that username is checked.
 * An address that has failed is answered 429 with `Retry-After` until then, and it gets one try per
 * wait; an address that has not failed waits on the server (at most USERNAME_MAX_DELAY_MS) and goes on.
 */
export interface SignInLimits {
  /** The 429 of an address past its failures, or undefined. */
  addressBlocked(address: string): RateLimitDecision | undefined;
  /** Whether a sign-in from this address failed within the window. */
  hasFailed(address: string): boolean;
  /**
   * Admits one try of a password: the refusal to answer (429), or undefined once the try may be
   * checked, after the wait its username's failures impose on an address that has not failed.
   */
  admit(address: string, username: string): Promise<RateLimitDecision | undefined>;
  /** Counts one failure against the address and the username. */
  recordFailure(address: string, username: string): void;
}

export interface SignInLimitsDeps {
  now: () => number;
  /** How the server waits (a timer by default); tests pass one that moves their clock. */
  wait?: ((ms: number) => Promise<void>) | undefined;
}

interface UsernameFailures {
  count: number;
  lastAt: number;
  /** No password of this username is checked for an address that has failed before this instant. */
  nextAt: number;
}

/** The wait that `count` failures of one username impose: none, then 1 s, 2 s, 4 s, 4 s… */
export function usernameDelayMs(count: number): number {
  if (count < USERNAME_FREE_FAILURES) return 0;
  return Math.min(USERNAME_MAX_DELAY_MS, USERNAME_FIRST_DELAY_MS * 2 ** (count - USERNAME_FREE_FAILURES));
}

const timerWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const refusal = (ms: number): RateLimitDecision => ({
  allowed: false,
  retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)),
});

export function createSignInLimits(deps: SignInLimitsDeps): SignInLimits {
  const { now } = deps;
  const wait = deps.wait ?? timerWait;
  const byAddress = createRateLimiter({ limit: LOGIN_FAILURE_LIMIT, windowMs: LOGIN_WINDOW_MS, now });
  const byUsername = new Map<string, UsernameFailures>();

  // A username's failures last until the window passes without one.
  const current = (username: string, at: number): UsernameFailures | undefined => {
    const failures = byUsername.get(username);
    if (failures && at - failures.lastAt < LOGIN_WINDOW_MS) return failures;
    byUsername.delete(username);
    return undefined;
  };
  const makeRoom = (at: number) => {
    if (byUsername.size < MAX_USERNAMES) return;
    for (const [name, failures] of byUsername) if (at - failures.lastAt >= LOGIN_WINDOW_MS) byUsername.delete(name);
    // Still full: the least recently failed go (memory stays bounded whatever names are tried).
    for (const name of byUsername.keys()) {
      if (byUsername.size < MAX_USERNAMES) break;
      byUsername.delete(name);
    }
  };
  const addressBlocked = (address: string) => {
    const decision = byAddress.peek(address);
    return decision.allowed ? undefined : decision;
  };
  const hasFailed = (address: string) => !byAddress.peek(address, 1).allowed;

  return {
    addressBlocked,
    hasFailed,
    async admit(address, username) {
      const blocked = addressBlocked(address);
      if (blocked) return blocked;
      const at = now();
      const failures = current(username, at);
      const delay = failures ? usernameDelayMs(failures.count) : 0;
      if (!failures || delay === 0) return undefined;
      const left = failures.nextAt - at;
      // Any failure from this address within the window: it may be the guesser.
      if (hasFailed(address)) {
        if (left > 0) return refusal(left);
        // One try per wait from addresses that failed, however many they send at once.
        failures.nextAt = at + delay;
        return undefined;
      }
      if (left > 0) await wait(Math.min(left, USERNAME_MAX_DELAY_MS));
      return undefined;
    },
    recordFailure(address, username) {
      byAddress.take(address);
      const at = now();
      let failures = current(username, at);
      if (!failures) {
        makeRoom(at);
        failures = { count: 0, lastAt: at, nextAt: at };
      }
      // Re-inserted, so the map's order is the order of the last failure.
      byUsername.delete(username);
      byUsername.set(username, failures);
      failures.count += 1;
      failures.lastAt = at;
      failures.nextAt = Math.max(failures.nextAt, at + usernameDelayMs(failures.count));
    },
  };
}
