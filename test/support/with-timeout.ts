/**
 * Rejects with "hang: …" when `promise` has not settled within `ms`: a fuzzed request that never
 * gets an answer is a finding (the hub hung), not a test that waits until vitest gives up.
 */
export async function withTimeout<T>(promise: Promise<T>, label: string, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`hang: no answer within ${ms} ms to ${label}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
