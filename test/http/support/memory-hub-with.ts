import { afterEach } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { createMemoryHub, type HubClient } from '../../support/hub-harness';

/**
 * The route tests' set-up: `hubWith(env, ...records)` starts a hub in memory holding those container records.
 * One hub at a time: starting another closes the last, and the last is closed after each test.
 */
export function useMemoryHubWith(): (env: Record<string, string>, ...records: Container[]) => Promise<HubClient> {
  let client: HubClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  return async (env, ...records) => {
    await client?.close();
    client = await createMemoryHub(env);
    for (const record of records) await client.hub.parts.containers.put(record);
    return client;
  };
}

/** A record with an update pending from 1.0.0 to 2.0.0 (major), as a watch cycle leaves it; `result` is the remote. */
export const pendingRecord = (result: NonNullable<Container['result']>, over: Partial<Container> = {}): Container =>
  containerRecord({
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
    result,
    ...over,
  });
