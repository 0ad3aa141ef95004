/**
 * Reconnect delays (docs/edge-protocol.md): each delay is drawn between half and all of the current
 * step, the step doubles after each failure up to the maximum, and a session that lasted long
 * enough resets it. Jitter spreads a fleet's reconnects after a hub restart.
 */
export interface BackoffOptions {
  minMs: number;
  maxMs: number;
  /** A session at least this long counts as healthy: the next failure starts again at minMs. */
  resetAfterMs: number;
  /** [0, 1); injectable for tests. */
  random?: () => number;
}

export interface Backoff {
  readonly stepMs: number;
  /** The delay before the next attempt; doubles the step for the one after. */
  next(): number;
  /** A session ended after `durationMs`: a long one resets the step. */
  sessionEnded(durationMs: number): void;
  /** Refusals that will not go away soon (a revoked key): wait the longest. */
  jumpToMax(): void;
  reset(): void;
}

export const DEFAULT_BACKOFF = { minMs: 1_000, maxMs: 60_000, resetAfterMs: 60_000 } as const;

export function createBackoff(options: BackoffOptions): Backoff {
  if (!(options.minMs > 0) || options.maxMs < options.minMs)
    throw new Error(`backoff: need 0 < minMs <= maxMs (got ${options.minMs}, ${options.maxMs})`);
  const random = options.random ?? Math.random;
  let step = options.minMs;
  return {
    get stepMs() {
      return step;
    },
    next() {
      const delay = step / 2 + random() * (step / 2);
      step = Math.min(options.maxMs, step * 2);
      return Math.round(delay);
    },
    sessionEnded(durationMs) {
      if (durationMs >= options.resetAfterMs) step = options.minMs;
    },
    jumpToMax() {
      step = options.maxMs;
    },
    reset() {
      step = options.minMs;
    },
  };
}
