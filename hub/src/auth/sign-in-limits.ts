import { createRateLimiter, type RateLimitDecision } from '../http/rate-limit';

/** Failed sign-ins per address and per username within the window before 429. */
export const LOGIN_FAILURE_LIMIT = 10;
const LOGIN_WINDOW_MS = 15 * 60_000;

/**
 * The brute-force limits of every way a password is tried: the sign-in route and HTTP Basic on the
 * compatibility routes share them, so a guesser gains nothing by switching between the two.
 */
export interface SignInLimits {
  /** The refusal to answer before any password is checked, or undefined while both windows allow one. */
  blocked(address: string, username: string): RateLimitDecision | undefined;
  /** Counts one failure against the address and the username. */
  recordFailure(address: string, username: string): void;
}

export function createSignInLimits(deps: { now: () => number }): SignInLimits {
  const { now } = deps;
  const byAddress = createRateLimiter({ limit: LOGIN_FAILURE_LIMIT, windowMs: LOGIN_WINDOW_MS, now });
  const byUsername = createRateLimiter({ limit: LOGIN_FAILURE_LIMIT, windowMs: LOGIN_WINDOW_MS, now });
  return {
    blocked: (address, username) =>
      [byAddress.peek(address), byUsername.peek(username)].find((decision) => !decision.allowed),
    recordFailure(address, username) {
      byAddress.take(address);
      byUsername.take(username);
    },
  };
}
