/**
 * Bulk update (http-interface §4.8) on the hub in memory: what it answers before anything reaches
 * Docker. The accepted path runs on a real dockerd in test/integration/images-bulk-updates.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { expectJsonError, jsonInit } from '../../support/hub-harness';
import { pendingRecord, useMemoryHubWith } from '../support/memory-hub-with';

const TRIGGER = { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '2', DD_ACTION_DOCKER_UPDATE_PRUNE: 'true' };
const pending = (over: Partial<Container> = {}) => pendingRecord({ tag: '2.0.0', digest: 'sha256:feed' }, over);

describe('POST /api/v1/containers/update (bulk)', () => {
  const hubWith = useMemoryHubWith();

  it('answers 202 with each container refused as a single update would be, and no batch when none was queued', async () => {
    const excluded = pending({ id: 'b'.repeat(64), name: 'excluded', labels: { 'dd.action.exclude': 'update' } });
    const client = await hubWith(TRIGGER, pending(), excluded);
    const response = await client.request(
      '/api/v1/containers/update',
      jsonInit('POST', { containerIds: [pending().id, excluded.id, 'nope'] }),
    );
    expect(response.status).toBe(202);
    const body = (await response.json()) as {
      batchId: string | null;
      results: Record<string, unknown>[];
      [key: string]: unknown;
    };
    expect(body).toMatchObject({ batchId: null, total: 3, accepted: 0, refused: 3 });
    expect(body.results).toEqual([
      expect.objectContaining({ containerId: pending().id, containerName: 'web', result: 'refused', status: 503 }),
      expect.objectContaining({
        containerName: 'excluded',
        result: 'refused',
        status: 409,
        details: expect.objectContaining({ reason: 'excluded-by-labels' }),
      }),
      expect.objectContaining({ containerId: 'nope', result: 'refused', status: 404 }),
    ]);
  });

  it('refuses a malformed body with 400', async () => {
    const client = await hubWith(TRIGGER);
    for (const body of [
      {},
      { containerIds: [] },
      { containerIds: ['a', 'a'] },
      { containerIds: Array.from({ length: 101 }, (_, i) => `c${i}`) },
      ['a'],
    ]) {
      await expectJsonError(await client.request('/api/v1/containers/update', jsonInit('POST', body)), 400);
    }
    const route = client.hub.parts.routes.routes.find(
      (candidate) => candidate.fullPath === '/api/v1/containers/update',
    );
    expect(route?.spec.access).toBe('containers:update');
  });
});
