import { expect, it } from 'vitest';
import { newEdgeIdentity } from '../../support/edge-peer';
import { describeRuntimeMatrix, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

/**
 * The edge key registry (decisions §6) as an administrator drives it, with no agent connected: the
 * sign-in and revocation of live sessions are in http/edge/edge-endpoint.test.ts and, under
 * workerd, in integration/edge-workers and workers-hibernation.
 */

interface EdgeKeyResource {
  keyId: string;
  label: string;
  publicKey: string;
  createdAt: string;
  revokedAt?: string | null;
  agentNames: string[];
}

const register = (client: HubClient, publicKey: string, label: string, headers: Record<string, string> = {}) =>
  client.request('/api/v1/edge/keys', jsonInit('POST', { publicKey, label }, headers));

async function listed(client: HubClient): Promise<{ data: EdgeKeyResource[]; total: number }> {
  const response = await client.request('/api/v1/edge/keys');
  expect(response.status).toBe(200);
  return response.json();
}

async function apiKey(client: HubClient, scopes: string[]): Promise<Record<string, string>> {
  const response = await client.request('/api/v1/api-keys', jsonInit('POST', { name: 'edge-keys', scopes }));
  expect(response.status).toBe(201);
  return { authorization: `Bearer ${(await response.json()).apiKey}` };
}

describeRuntimeMatrix('edge keys', (client) => {
  it('registers a raw 32-byte key once (201, then 409) and lists it newest first with its public key', async () => {
    const first = await newEdgeIdentity();
    const second = await newEdgeIdentity();
    const created = await register(client(), first.publicKeyBase64, 'nas');
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ keyId: first.keyId, label: 'nas', createdAt: expect.any(String) });
    expect((await register(client(), second.publicKeyBase64, 'pi')).status).toBe(201);
    const again = await expectJsonError(await register(client(), first.publicKeyBase64, 'nas again'), 409);
    expect(again.details).toEqual({ keyId: first.keyId, revoked: false });
    const { data, total } = await listed(client());
    expect(total).toBe(data.length);
    expect(data.map((key) => key.keyId).slice(0, 2)).toEqual([second.keyId, first.keyId]);
    expect(data.find((key) => key.keyId === first.keyId)).toMatchObject({
      label: 'nas',
      publicKey: first.publicKeyBase64,
      agentNames: [],
    });
  });

  it('refuses anything but the base64 of 32 bytes, and unknown fields, with 400', async () => {
    const identity = await newEdgeIdentity();
    for (const publicKey of [
      Buffer.alloc(31, 1).toString('base64'),
      Buffer.alloc(33, 1).toString('base64'),
      'not base64!!',
      '',
    ]) {
      const body = await expectJsonError(await register(client(), publicKey, 'x'), 400);
      if (publicKey !== '') expect(body.details?.field).toBe('publicKey');
    }
    await expectJsonError(
      await client().request(
        '/api/v1/edge/keys',
        jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'x', owner: 'me' }),
      ),
      400,
    );
    expect((await listed(client())).data.map((key) => key.keyId)).not.toContain(identity.keyId);
  });

  it('revokes a key once (audited once), keeps it listed with revokedAt, and answers 404 for an unknown one', async () => {
    const identity = await newEdgeIdentity();
    expect((await register(client(), identity.publicKeyBase64, 'to revoke')).status).toBe(201);
    const revoked = await client().request(`/api/v1/edge/keys/${identity.keyId}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ keyId: identity.keyId, revokedAt: expect.any(String) });
    // Revoking again changes nothing and writes no second entry.
    expect((await client().request(`/api/v1/edge/keys/${identity.keyId}`, { method: 'DELETE' })).status).toBe(200);
    expect((await listed(client())).data.find((key) => key.keyId === identity.keyId)?.revokedAt).toEqual(
      expect.any(String),
    );
    const reRegistered = await expectJsonError(await register(client(), identity.publicKeyBase64, 'back'), 409);
    expect(reRegistered.details).toEqual({ keyId: identity.keyId, revoked: true });
    await expectJsonError(await client().request('/api/v1/edge/keys/0000000000000000', { method: 'DELETE' }), 404);
    await expectJsonError(await client().request('/api/v1/edge/keys/not-a-key-id', { method: 'DELETE' }), 404);

    const audit = await (await client().request('/api/v1/audit?actions=edge-key-created,edge-key-revoked')).json();
    const mine = audit.data.filter((entry: { details: string }) => entry.details.includes(identity.keyId));
    expect(mine.map((entry: { action: string }) => entry.action)).toEqual(['edge-key-revoked', 'edge-key-created']);
  });

  it('needs edge:manage: a read key is refused with 403 naming the scope, an edge:manage key is let in', async () => {
    const reader = await apiKey(client(), ['read']);
    const manager = await apiKey(client(), ['edge:manage']);
    const identity = await newEdgeIdentity();
    for (const response of [
      await client().request('/api/v1/edge/keys', { headers: reader }),
      await register(client(), identity.publicKeyBase64, 'x', reader),
      await client().request(`/api/v1/edge/keys/${identity.keyId}`, { method: 'DELETE', headers: reader }),
    ]) {
      expect((await expectJsonError(response, 403)).details?.requiredScope).toBe('edge:manage');
    }
    expect((await register(client(), identity.publicKeyBase64, 'by key', manager)).status).toBe(201);
    expect((await client().request('/api/v1/edge/keys', { headers: manager })).status).toBe(200);
  });
});
