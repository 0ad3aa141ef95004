import { errorMessage } from '../../../shared/error-message';
import type { UpdateOperation } from '../../../shared/update-engine';
import { SupersededOperationError } from './operation-store';

/** First wait after a failed write, doubled up to the last. */
const RETRY_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000] as const;

export interface SaveRetryOptions {
  /** Aborted when the hub stops: the write is given up, the next start recovers from the store. */
  signal: AbortSignal;
  warn(message: string): void;
  delaysMs?: readonly number[];
}

/**
 * Writes an agent's report of an operation until the store takes it. A full disk (ENOSPC, EDQUOT)
 * or any other failed write passes; dropping the report would leave the operation in progress in
 * the hub for as long as the process lives, since the agent reports its end only once (the soak
 * found one stuck after its disk was full for 12 s). A write refused because the operation is
 * already settled is final and thrown at once.
 */
export async function saveUntilStored(
  save: (operation: UpdateOperation) => Promise<void>,
  operation: UpdateOperation,
  options: SaveRetryOptions,
): Promise<void> {
  const delays = options.delaysMs ?? RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await save(operation);
      return;
    } catch (error) {
      if (error instanceof SupersededOperationError || options.signal.aborted) throw error;
      const wait = delays[Math.min(attempt, delays.length - 1)] ?? 1_000;
      options.warn(
        `updates: operation ${operation.id} (${operation.status}, ${operation.phase}) not stored, trying again in ${wait} ms: ${errorMessage(error)}`,
      );
      if (!(await sleep(wait, options.signal))) throw error;
    }
  }
}

/** Resolves true after `ms`, false as soon as the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
