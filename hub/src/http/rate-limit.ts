export interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until the caller's window resets; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /**
   * Counts one attempt for this key and says whether it is within the limit; `limit` overrides
   * the limiter's own for this key (a per-key ceiling such as an API key's rateLimitMax).
   */
  take(key: string, limit?: number): RateLimitDecision;
  /** Says whether the next attempt would be allowed, without counting one. */
  peek(key: string, limit?: number): RateLimitDecision;
}

export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  now?: () => number;
  /** Keys kept at most; beyond it expired windows are swept, then the oldest dropped. */
  maxKeys?: number;
}

interface Window {
  startedAt: number;
  count: number;
}

const DEFAULT_MAX_KEYS = 10_000;
// One shared answer for the common case: limiters run on every request, and callers only read it.
const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

/**
 * A fixed-window counter per key, in memory: simple, portable, and exact enough for limits such
 * as "10 per minute" (a caller may get up to twice the limit across a window boundary, which
 * these limits tolerate). Memory is bounded by maxKeys so that many clients cannot grow it.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const windows = new Map<string, Window>();

  const sweep = (at: number) => {
    for (const [key, window] of windows) if (at - window.startedAt >= options.windowMs) windows.delete(key);
    // Still full of live windows: drop the oldest (a reset for that caller beats unbounded memory).
    for (const key of windows.keys()) {
      if (windows.size < maxKeys) break;
      windows.delete(key);
    }
  };

  const current = (key: string, at: number): Window | undefined => {
    const window = windows.get(key);
    return window && at - window.startedAt < options.windowMs ? window : undefined;
  };
  const refusal = (window: Window, at: number): RateLimitDecision => {
    const left = window.startedAt + options.windowMs - at;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) };
  };

  return {
    take(key, limit = options.limit) {
      const at = now();
      let window = current(key, at);
      if (!window) {
        windows.delete(key);
        if (windows.size >= maxKeys) sweep(at);
        window = { startedAt: at, count: 0 };
        windows.set(key, window);
      }
      if (window.count >= limit) return refusal(window, at);
      window.count++;
      return ALLOWED;
    },
    peek(key, limit = options.limit) {
      const at = now();
      const window = current(key, at);
      return window && window.count >= limit ? refusal(window, at) : ALLOWED;
    },
  };
}
