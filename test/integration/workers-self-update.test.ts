import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkersHub, type WorkersHub } from '../support/workers-hub';

/**
 * The self-update routes on Workers (docs/workers.md, docs/updates.md "Self-update"): the hub runs
 * in no container, so nothing is ever announced or pending. The routes answer as for an unknown
 * operation: the ack 202 `ignored` (400 without its credentials), the status 404.
 */
describe('self-update on Workers', () => {
  let hub: WorkersHub;
  const operationId = '00000000-0000-4000-8000-000000000000';

  beforeAll(async () => {
    hub = await startWorkersHub({ vars: { DD_SERVER_HOST: '0.0.0.0' } });
  }, 120_000);

  afterAll(async () => {
    await hub?.dispose();
  });

  const ack = (body: unknown) =>
    hub.fetch(`/api/v1/events/ui/self-update/${operationId}/ack`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('ignores an ack, refuses one without credentials, and knows no self-update', async () => {
    const ignored = await ack({ clientId: 'a-client', clientToken: 'a-token' });
    expect(ignored.status).toBe(202);
    expect(await ignored.json()).toEqual({ status: 'ignored', operationId });
    const missing = await ack({ clientId: 'a-client' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: expect.any(String) });
    const status = await hub.fetch(`/api/v1/self-update/${operationId}/status`);
    expect(status.status).toBe(404);
    expect(await status.json()).toMatchObject({ error: expect.any(String) });
  });
});
