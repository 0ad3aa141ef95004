/** The clock and timers the link runs on: injected, so tests can run heartbeats and backoff fast. */
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Resolves after `ms`, or at once when the signal aborts (never rejects). */
export function sleep(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      timers.clearTimeout(handle);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const handle = timers.setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
