import { beforeAll, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { containerRecord } from '../../support/container-fixture';
import { describeHubMatrix, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

// The read routes of hub/src/routes/container-routes.ts over records put straight into the store
// (no Docker): the list with its filters, sorts and pages, one container, the summary, recent
// status, the update policy. Watching through Docker is covered by test/integration/containers-e2e.

const id = (n: number) => n.toString(16).padStart(64, '0');

function tagUpdate(to: string, diff: 'major' | 'minor' | 'patch'): Pick<Container, 'updateAvailable' | 'updateKind'> {
  return { updateAvailable: true, updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: to, semverDiff: diff } };
}

const RECORDS: Container[] = [
  containerRecord({ id: id(1), name: 'alpha', createdAt: '2026-01-03T00:00:00.000Z', ...tagUpdate('2.0.0', 'major') }),
  containerRecord({ id: id(2), name: 'Bravo', createdAt: '2026-01-01T00:00:00.000Z', ...tagUpdate('1.1.0', 'minor') }),
  containerRecord({ id: id(3), name: 'charlie', status: 'exited', createdAt: '2026-01-02T00:00:00.000Z' }),
  containerRecord({
    id: id(4),
    name: 'delta',
    watched: false,
    watcher: 'remote',
    createdAt: '2026-01-04T00:00:00.000Z',
  }),
  containerRecord({
    id: id(5),
    name: 'echo',
    agent: 'nas',
    createdAt: '2026-01-05T00:00:00.000Z',
    updateAvailable: true,
    updateKind: { kind: 'digest', localValue: 'sha256:a', remoteValue: 'sha256:b' },
    updateMaturityLevel: 'hot',
  }),
];

interface Page {
  data: Container[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

describeHubMatrix('container routes', (client: () => HubClient) => {
  const get = async <T>(path: string): Promise<T> => {
    const response = await client().request(path);
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };
  const names = async (query: string) => (await get<Page>(`/api/v1/containers${query}`)).data.map((c) => c.name);

  beforeAll(async () => {
    for (const record of RECORDS) await client().hub.parts.containers.put(record);
  });

  it('lists every container by name (case-insensitive) with the page envelope', async () => {
    const page = await get<Page>('/api/v1/containers');
    expect(page.data.map((c) => c.name)).toEqual(['alpha', 'Bravo', 'charlie', 'delta', 'echo']);
    expect(page).toMatchObject({ total: 5, limit: 0, offset: 0, hasMore: false });
  });

  it('serves a record as it is once it changes (the list keeps each record as served until then)', async () => {
    const listed = async () => (await get<Page>(`/api/v1/containers?containerIds=${id(2)}`)).data[0];
    const before = await listed();
    expect(before).toEqual(await get<Container>(`/api/v1/containers/${id(2)}`));
    const secret = { key: 'DB_PASSWORD', value: 'hunter2' };
    await client().hub.parts.containers.put({ ...(RECORDS[1] as Container), env: [secret] });
    try {
      const after = await listed();
      expect(after?.env).toEqual([{ key: 'DB_PASSWORD', value: expect.not.stringContaining('hunter2') }]);
      expect(after).toEqual(await get<Container>(`/api/v1/containers/${id(2)}`));
    } finally {
      await client().hub.parts.containers.put(RECORDS[1] as Container);
    }
    expect(await listed()).toEqual(before);
  });

  it('filters by status, kind, watcher, agent, maturity and ids', async () => {
    expect(await names('?status=update-available')).toEqual(['alpha', 'Bravo', 'echo']);
    expect(await names('?status=up-to-date')).toEqual(['charlie', 'delta']);
    expect(await names('?status=stopped')).toEqual(['charlie']);
    expect(await names('?kind=major')).toEqual(['alpha']);
    expect(await names('?kind=minor')).toEqual(['Bravo']);
    expect(await names('?kind=digest')).toEqual(['echo']);
    expect(await names('?kind=unwatched')).toEqual(['delta']);
    expect(await names('?watcher=remote')).toEqual(['delta']);
    expect(await names('?agent=nas')).toEqual(['echo']);
    expect(await names('?maturity=hot')).toEqual(['echo']);
    expect(await names(`?containerIds=${id(3)},${id(1)}`)).toEqual(['alpha', 'charlie']);
  });

  it('sorts by name, status and age, either way', async () => {
    expect(await names('?sort=-name')).toEqual(['echo', 'delta', 'charlie', 'Bravo', 'alpha']);
    expect(await names('?sort=name&order=desc')).toEqual(['echo', 'delta', 'charlie', 'Bravo', 'alpha']);
    expect((await names('?sort=status')).at(0)).toBe('charlie');
    expect(await names('?sort=age&watcher=local&status=running')).toEqual(['Bravo', 'alpha', 'echo']);
  });

  it('pages with limit and offset and says whether more follow', async () => {
    const first = await get<Page>('/api/v1/containers?limit=2');
    expect(first.data.map((c) => c.name)).toEqual(['alpha', 'Bravo']);
    expect(first).toMatchObject({ total: 5, limit: 2, offset: 0, hasMore: true });
    const last = await get<Page>('/api/v1/containers?limit=2&offset=4');
    expect(last.data.map((c) => c.name)).toEqual(['echo']);
    expect(last.hasMore).toBe(false);
  });

  it('refuses a bad query parameter with a JSON 400 naming it', async () => {
    for (const query of ['?limit=201', '?sort=size', '?status=sleeping', '?offset=-1', '?containerIds=a;b']) {
      const body = await expectJsonError(await client().request(`/api/v1/containers${query}`), 400);
      expect(body.error.length, query).toBeGreaterThan(0);
    }
  });

  it('answers one container, and a clipped 404 for an unknown id', async () => {
    const one = await get<Container>(`/api/v1/containers/${id(2)}`);
    expect(one).toMatchObject({ id: id(2), name: 'Bravo', updateAvailable: true });
    const missing = await expectJsonError(await client().request(`/api/v1/containers/${'z'.repeat(300)}`), 404);
    expect(missing.error.length).toBeLessThan(120);
  });

  it('counts containers, updates and maturity in the summary', async () => {
    const summary = await get<Record<string, unknown>>('/api/v1/containers/summary');
    expect(summary).toEqual({
      containers: { total: 5, running: 4, stopped: 1, updatesAvailable: 3 },
      security: { issues: 0 },
      hotUpdates: 1,
      matureUpdates: 0,
    });
  });

  it('reports recent update status by name and identity from the audit trail', async () => {
    await client().hub.parts.audit.append({ action: 'update-available', containerName: 'alpha', details: 'test' });
    await client().hub.parts.audit.append({ action: 'update-failed', containerName: 'Bravo', details: 'test' });
    const recent = await get<{ statuses: Record<string, string>; statusesByIdentity: Record<string, string> }>(
      '/api/v1/containers/recent-status',
    );
    expect(recent.statuses).toMatchObject({ alpha: 'pending', Bravo: 'failed' });
    // Identity is agent::watcher::name; the hub's own containers carry LOCAL_AGENT.
    expect(recent.statusesByIdentity).toMatchObject({
      [containerIdentity({ watcher: 'local', name: 'alpha' })]: 'pending',
      [containerIdentity({ watcher: 'local', name: 'Bravo' })]: 'failed',
    });
  });

  it('skips the pending update through the update policy and announces it', async () => {
    const response = await client().request(
      `/api/v1/containers/${id(1)}/update-policy`,
      jsonInit('PATCH', { action: 'skip-current' }),
    );
    expect(response.status).toBe(200);
    const updated = (await response.json()) as Container;
    expect(updated.updatePolicy.skipTags).toContain('2.0.0');
    const stored = await get<Container>(`/api/v1/containers/${id(1)}`);
    expect(stored.updatePolicy.skipTags).toContain('2.0.0');
    const bad = await client().request(
      `/api/v1/containers/${id(1)}/update-policy`,
      jsonInit('PATCH', { action: 'nap' }),
    );
    await expectJsonError(bad, 400);
  });

  it('answers "not scanned" for vulnerabilities while no scanner is configured', async () => {
    expect(await get(`/api/v1/containers/${id(1)}/vulnerabilities`)).toMatchObject({
      status: 'not-scanned',
      vulnerabilities: [],
    });
    expect(await get('/api/v1/containers/security/vulnerabilities')).toMatchObject({
      total: 5,
      scanned: 0,
      images: [],
    });
  });
});
