/** Runs registry requests politely: a cap on requests in flight, optionally a token bucket. */
export interface RequestLimiter {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * At most `max` tasks at once; the rest wait in arrival order. The waiting line is an array read
 * from a moving head, compacted now and then: a fleet's sync queues tens of thousands of storage
 * writes here, and shift() copies the array once V8 has moved it to its large-object space.
 */
export function createConcurrencyLimiter(max: number): RequestLimiter {
  let active = 0;
  let waiting: (() => void)[] = [];
  let head = 0;
  // A finishing task hands its slot straight to the first waiter: were the slot freed first, a task
  // arriving before the waiter resumed would take it out of turn.
  const release = () => {
    const next = waiting[head];
    if (next === undefined) {
      active--;
      return;
    }
    waiting[head++] = undefined as never;
    if (head === waiting.length) {
      waiting = [];
      head = 0;
    } else if (head >= 1024 && head * 2 >= waiting.length) {
      waiting = waiting.slice(head);
      head = 0;
    }
    next();
  };
  return {
    async run(task) {
      if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
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
