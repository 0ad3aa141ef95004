import { beforeAll, expect, it } from 'vitest';
import { describeRuntimeMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';

describeRuntimeMatrix('audit', (client, mode) => {
  // Sixty entries appended to the hub object's audit store, which is in this process only in memory
  // and on Node; under workerd the entries the API itself writes are read instead (the last case).
  const seeded = mode !== 'workerd';
  beforeAll(async () => {
    if (!seeded) return;
    const { audit } = client().hub.parts;
    for (let i = 0; i < 60; i++) {
      await audit.append({
        action: i % 3 === 0 ? 'container-added' : i % 3 === 1 ? 'update-available' : 'container-removed',
        containerName: i % 2 === 0 ? 'web' : 'db',
        status: 'info',
        details: `entry ${i}`,
      });
    }
  });

  it.skipIf(!seeded)('pages newest first with the default limit of 50', async () => {
    const page = await (await client().request('/api/v1/audit')).json();
    expect(page).toMatchObject({ total: 60, limit: 50, offset: 0, hasMore: true });
    expect(page.data).toHaveLength(50);
    expect(page.data[0].details).toBe('entry 59');
    const last = await (await client().request('/api/v1/audit?offset=50')).json();
    expect(last).toMatchObject({ total: 60, offset: 50, hasMore: false });
    expect(last.data.at(-1).details).toBe('entry 0');
    for (const entry of page.data)
      expect(entry).toMatchObject({
        id: expect.any(String),
        timestamp: expect.any(String),
        action: expect.any(String),
      });
  });

  it.skipIf(!seeded)('filters by action, actions, container and time window', async () => {
    const added = await (await client().request('/api/v1/audit?action=container-added&limit=200')).json();
    expect(added.total).toBe(20);
    expect(added.data.every((entry: { action: string }) => entry.action === 'container-added')).toBe(true);
    const two = await (
      await client().request('/api/v1/audit?actions=container-added,container-removed&limit=200')
    ).json();
    expect(two.total).toBe(40);
    const web = await (await client().request('/api/v1/audit?container=web&action=container-added')).json();
    expect(web.total).toBe(10);
    const future = await (
      await client().request(`/api/v1/audit?from=${new Date(Date.now() + 60_000).toISOString()}`)
    ).json();
    expect(future.total).toBe(0);
    const past = await (
      await client().request(`/api/v1/audit?to=${new Date(Date.now() + 60_000).toISOString()}&limit=1`)
    ).json();
    expect(past).toMatchObject({ total: 60, hasMore: true });
  });

  it('rejects bad query values with 400', async () => {
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=abc',
      'offset=-1',
      'action=exploded',
      'actions=container-added,bogus',
      'from=yesterday',
      'to=2026-13-45T99:99:99Z',
    ]) {
      const body = await expectJsonError(await client().request(`/api/v1/audit?${query}`), 400);
      expect(body.details?.parameter).toBe(query.split('=')[0]);
    }
  });

  it('reads the entries the API wrote: newest first, by action and actions, within a time window, by page', async () => {
    const from = new Date(Date.now() - 1_000).toISOString();
    const keyIds: string[] = [];
    for (const name of ['audit-a', 'audit-b', 'audit-c']) {
      const created = await client().request('/api/v1/api-keys', jsonInit('POST', { name, scopes: ['read'] }));
      expect(created.status).toBe(201);
      keyIds.push((await created.json()).keyId);
    }
    const revoked = await client().request(`/api/v1/api-keys/${keyIds[0]}`, {
      method: 'DELETE',
      headers: { 'X-DD-Confirm-Action': 'api-key-revoke' },
    });
    expect(revoked.status).toBe(200);
    const created = await (await client().request(`/api/v1/audit?action=api-key-created&from=${from}`)).json();
    expect(created).toMatchObject({ total: 3, offset: 0, hasMore: false });
    expect(created.data.map((entry: { details: string }) => /API key (\w+)/.exec(entry.details)?.[1])).toEqual(
      [...keyIds].reverse(),
    );
    const both = await (
      await client().request(`/api/v1/audit?actions=api-key-created,api-key-revoked&from=${from}&limit=2`)
    ).json();
    expect(both).toMatchObject({ total: 4, limit: 2, hasMore: true });
    expect(both.data[0]).toMatchObject({ action: 'api-key-revoked', status: 'success' });
    const rest = await (
      await client().request(`/api/v1/audit?actions=api-key-created,api-key-revoked&from=${from}&offset=2`)
    ).json();
    expect(rest).toMatchObject({ total: 4, offset: 2, hasMore: false });
    expect(rest.data).toHaveLength(2);
    const later = await (
      await client().request(`/api/v1/audit?action=api-key-created&from=${new Date(Date.now() + 60_000).toISOString()}`)
    ).json();
    expect(later.total).toBe(0);
  });
});
