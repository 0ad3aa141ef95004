import { beforeAll, expect, it } from 'vitest';
import { describeHubMatrix, expectJsonError } from '../../support/hub-harness';

describeHubMatrix('audit', (client) => {
  beforeAll(async () => {
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

  it('pages newest first with the default limit of 50', async () => {
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

  it('filters by action, actions, container and time window', async () => {
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
});
