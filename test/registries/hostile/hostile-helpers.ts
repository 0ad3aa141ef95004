import { createRegistryClient, type RegistryConnection } from '../../../shared/registry/create-registry-client';
import type { RegistryClient } from '../../../shared/registry/registry-client';
import { RegistryError } from '../../../shared/registry/registry-error';
import type { RegistryRequestEvent } from '../../../shared/registry/registry-transport';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';

export const CREDENTIALS = { username: 'alice', password: 's3cret-pw' };
export const BASIC_ALICE = `Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`;
export const LINUX_AMD64 = { os: 'linux', architecture: 'amd64' };

/** The deadline the suites that measure timeouts give their client (dead-registries.test.ts). */
export const SHORT_DEADLINE_MS = 300;

/**
 * A client of a fixture registry, and the requests it reports. Its deadline is short enough for a
 * hung fixture to fail a test quickly, and long enough that a busy CI machine answering a healthy
 * fixture late is not taken for one (300 ms was, now and then).
 */
export function hostileClient(
  host: string,
  options: Partial<Omit<RegistryConnection, 'registry'>> = {},
): { client: RegistryClient; events: RegistryRequestEvent[] } {
  const events: RegistryRequestEvent[] = [];
  const client = createRegistryClient({
    registry: host,
    limiter: createConcurrencyLimiter(8),
    timeoutMs: 2_000,
    onRequest: (event) => events.push(event),
    ...options,
  });
  return { client, events };
}

/** The RegistryError a promise rejects with; anything else (a success, a raw error) fails the test. */
export async function errorOf(promise: Promise<unknown>): Promise<RegistryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RegistryError) return error;
    throw new Error(`expected a RegistryError, got ${(error as Error)?.name}: ${(error as Error)?.message}`, {
      cause: error,
    });
  }
  throw new Error('expected a RegistryError, but the call succeeded');
}

/** Runs a call and measures it, in milliseconds of wall time. */
export async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}
