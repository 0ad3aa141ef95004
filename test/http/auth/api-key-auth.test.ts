import { afterEach, describe, expect, it } from 'vitest';
import { FAILED_ATTEMPT_LIMIT } from '../../../hub/src/auth/api-key-auth';
import { createMemoryHub, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

/** Hubs on a clock the test moves, so expiry and windows need no waiting. */
describe('API keys over time and under brute force', () => {
  let hub: HubClient | undefined;
  let clock = Date.parse('2026-03-01T12:00:00Z');
  afterEach(async () => {
    await hub?.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const response = await (hub as HubClient).request('/api/v1/api-keys', jsonInit('POST', { name: 'k', ...body }));
    expect(response.status).toBe(201);
    return response.json();
  };
  const get = (apiKey: string) =>
    (hub as HubClient).request('/api/v1/settings', { headers: { authorization: `Bearer ${apiKey}` } });
  const listed = async (keyId: string) =>
    (await (await (hub as HubClient).request('/api/v1/api-keys')).json()).data.find(
      (key: { keyId: string }) => key.keyId === keyId,
    );

  it('an expired key gets 401 and reads expired; once revoked it reads revoked', async () => {
    hub = await createMemoryHub({}, { now: () => clock });
    const key = await create({ scopes: ['read'], expiresAt: new Date(clock + 60_000).toISOString() });
    expect((await get(key.apiKey)).status).toBe(200);
    clock += 60_000;
    await expectJsonError(await get(key.apiKey), 401);
    expect((await listed(key.keyId)).status).toBe('expired');
    const revoked = await hub.request(`/api/v1/api-keys/${key.keyId}`, {
      method: 'DELETE',
      headers: { 'X-DD-Confirm-Action': 'api-key-revoke' },
    });
    expect(revoked.status).toBe(200);
    expect((await listed(key.keyId)).status).toBe('revoked');
  });

  it('applies the server-wide 1,000 per 15 minutes to a key without rateLimitMax, then a new window', async () => {
    hub = await createMemoryHub({}, { now: () => clock });
    const key = await create({ scopes: ['read'] });
    for (let i = 0; i < 1_000; i++) {
      const response = await get(key.apiKey);
      if (response.status !== 200) throw new Error(`request ${i} got ${response.status}`);
    }
    const refused = await get(key.apiKey);
    await expectJsonError(refused, 429);
    expect(Number(refused.headers.get('retry-after'))).toBe(900);
    clock += 15 * 60_000;
    expect((await get(key.apiKey)).status).toBe(200);
  });

  it('limits failed attempts per client: past the limit even a good key gets 429; the audit gets one entry a minute', async () => {
    hub = await createMemoryHub({}, { now: () => clock });
    const good = await create({ scopes: ['read'] });
    const guess = `ddk_${good.keyId}_${'B'.repeat(43)}`;
    for (let i = 0; i < FAILED_ATTEMPT_LIMIT; i++) {
      await expectJsonError(await get(guess), 401);
      if (i === 10) clock += 61_000;
    }
    const blocked = await get(guess);
    await expectJsonError(blocked, 429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectJsonError(await get(good.apiKey), 429);
    // Requests without a key credential are not part of it.
    expect((await hub.request('/api/v1/settings')).status).toBe(200);
    const audit = await (await hub.request('/api/v1/audit?action=api-key-auth-failed')).json();
    expect(audit.total).toBe(2);
    expect(JSON.stringify(audit)).not.toContain('BBBB');
    clock += 15 * 60_000;
    expect((await get(good.apiKey)).status).toBe(200);
  });

  it('keeps keys across a restart on the same storage, and flushes lastUsedAt at stop', async () => {
    const { createStorage } = await import('unstorage');
    const storage = createStorage();
    hub = await createMemoryHub({}, { now: () => clock, storage });
    const key = await create({ scopes: ['read'] });
    clock += 5_000;
    expect((await get(key.apiKey)).status).toBe(200);
    await hub.close();
    const stored = JSON.stringify(await storage.getItem(`api-keys:${key.keyId}`));
    expect(stored).not.toContain(key.apiKey.slice(-43));
    expect(stored).toContain(new Date(clock).toISOString());
    hub = await createMemoryHub({}, { now: () => clock, storage });
    expect((await get(key.apiKey)).status).toBe(200);
    expect((await listed(key.keyId)).lastUsedAt).toBe(new Date(clock).toISOString());
  });
});
