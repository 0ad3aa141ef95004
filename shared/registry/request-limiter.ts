/** Runs registry requests politely: a cap on requests in flight, optionally a token bucket. */
export interface RequestLimiter {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** At most `max` tasks at once; the rest wait in arrival order. */
export function createConcurrencyLimiter(max: number): RequestLimiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  return {
    async run(task) {
      if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
      active++;
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

export interface TokenBucketOptions {
  ratePerSecond: number;
  burst: number;
  concurrency: number;
  now?: () => number;
  sleep?: Sleep;
}

/**
 * A token bucket in front of a concurrency cap (decisions §7: public registries). Tokens may go
 * negative: each caller reserves the next free slot and sleeps until it, so waiters are served in
 * arrival order without a timer per bucket.
 */
export function createTokenBucketLimiter(options: TokenBucketOptions): RequestLimiter {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const inFlight = createConcurrencyLimiter(options.concurrency);
  let tokens = options.burst;
  let last = now();
  const take = (): number => {
    const t = now();
    tokens = Math.min(options.burst, tokens + ((t - last) * options.ratePerSecond) / 1000);
    last = t;
    tokens -= 1;
    return tokens >= 0 ? 0 : (-tokens * 1000) / options.ratePerSecond;
  };
  return {
    async run(task) {
      const wait = take();
      if (wait > 0) await sleep(wait);
      return inFlight.run(task);
    },
  };
}
