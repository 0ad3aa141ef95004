import { beforeAll, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { describeHubMatrix, expectJsonError } from '../../support/hub-harness';
import { dataOf, openSse } from '../../support/sse-client';

/**
 * The container action, log and stats routes where no Docker is reachable: validation, unknown ids,
 * feature flags and the confirmation header. Against a real dockerd: test/integration/container-*.
 */

const ID = 'a'.repeat(64);
const UNKNOWN = 'b'.repeat(64);
const CONFIRM = { 'X-DD-Confirm-Action': 'container-delete' };

/** The shared test record, unwatched, with one sensitive and one plain env value. */
function record(over: Partial<Container> = {}): Container {
  return containerRecord({
    id: ID,
    watched: false,
    env: [
      { key: 'API_TOKEN', value: 's3cr3t-token' },
      { key: 'MODE', value: 'prod' },
    ],
    ...over,
  });
}

const post = { method: 'POST' };

describeHubMatrix('container actions, logs and stats without Docker', (client) => {
  beforeAll(async () => {
    // A record whose watcher this hub does not run (no Docker here): as after a watcher is removed.
    await client().hub.parts.containers.put(record());
  });

  it('answers an unknown container with 404 on every per-container route', async () => {
    for (const action of ['start', 'stop', 'restart']) {
      await expectJsonError(await client().request(`/api/v1/containers/${UNKNOWN}/${action}`, post), 404);
    }
    for (const path of ['logs', 'stats', 'stats/stream']) {
      await expectJsonError(await client().request(`/api/v1/containers/${UNKNOWN}/${path}`), 404);
    }
  });

  it('answers 503 when the container’s watcher is not available', async () => {
    const body = await expectJsonError(await client().request(`/api/v1/containers/${ID}/restart`, post), 503);
    expect(body.details).toEqual({ watcher: 'local' });
    for (const path of ['logs', 'stats', 'stats/stream']) {
      await expectJsonError(await client().request(`/api/v1/containers/${ID}/${path}`), 503);
    }
  });

  it('rejects invalid log and stats queries with 400, naming the parameter', async () => {
    const cases = [
      ['logs', 'tail=-1', 'tail'],
      ['logs', 'tail=100001', 'tail'],
      ['logs', 'since=yesterday', 'since'],
      ['logs', 'since=2024-02-30T00:00:00Z', 'since'],
      ['logs', 'since=-5', 'since'],
      ['logs', 'stdout=maybe', 'stdout'],
      ['logs', 'timestamps=2', 'timestamps'],
      ['logs', 'stdout=false&stderr=false', 'stdout'],
      ['logs/stream', 'follow=yes', 'follow'],
      ['logs/stream', 'tail=1.5', 'tail'],
      ['stats/stream', 'interval=0', 'interval'],
      ['stats/stream', 'interval=61', 'interval'],
    ] as const;
    for (const [path, query, parameter] of cases) {
      const body = await expectJsonError(await client().request(`/api/v1/containers/${ID}/${path}?${query}`), 400);
      expect(body.details?.parameter, `${path}?${query}`).toBe(parameter);
    }
    await expectJsonError(await client().request('/api/v1/stats/summary/stream?interval=abc'), 400);
  });

  it('answers a plain GET of the log stream with 426, or 501 where the runtime has no WebSocket', async () => {
    const status = client().mode === 'server' ? 426 : 501;
    await expectJsonError(await client().request(`/api/v1/containers/${ID}/logs/stream`), status);
  });

  it('needs the confirmation header for DELETE (428), then the delete feature (403, off by default)', async () => {
    const missing = await expectJsonError(
      await client().request(`/api/v1/containers/${ID}`, { method: 'DELETE' }),
      428,
    );
    expect(missing.details).toEqual({ header: 'X-DD-Confirm-Action', expected: 'container-delete' });
    const wrong = { method: 'DELETE', headers: { 'X-DD-Confirm-Action': 'container-remove' } };
    await expectJsonError(await client().request(`/api/v1/containers/${ID}`, wrong), 428);
    const disabled = await expectJsonError(
      await client().request(`/api/v1/containers/${ID}`, { method: 'DELETE', headers: CONFIRM }),
      403,
    );
    expect(disabled.error).toContain('DD_SERVER_FEATURE_DELETE');
    expect(client().hub.parts.containers.get(ID)).toBeDefined();
    // The legacy stats path is not a container id: other methods than GET get 405 there.
    const legacy = await client().request('/api/v1/containers/stats', { method: 'DELETE', headers: CONFIRM });
    expect(legacy.headers.get('allow')).toBe('GET, HEAD');
    await expectJsonError(legacy, 405);
  });

  it('counts running containers in the summary, even those it cannot sample', async () => {
    const summary = await (await client().request('/api/v1/stats/summary')).json();
    expect(summary).toEqual({
      containers: 1,
      sampled: 0,
      cpuPercent: 0,
      memoryBytes: 0,
      memoryLimitBytes: 0,
      at: expect.any(String),
    });
    const stream = await openSse(client().request, '/api/v1/stats/summary/stream?interval=1');
    const first = await stream.next();
    expect(first).toMatchObject({ id: '1', event: 'stats-summary' });
    expect(dataOf(first)).toMatchObject({ containers: 1, sampled: 0 });
    expect(await stream.next(3_000)).toMatchObject({ id: '2', event: 'stats-summary' });
    await stream.close();
  });

  it('reveals the unredacted environment with sensitive flags, audits it without values, and limits it to 10 a minute', async () => {
    const reveal = (id: string) => client().request(`/api/v1/containers/${id}/env/reveal`, post);
    const first = await reveal(ID);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(await first.json()).toEqual({
      env: [
        { key: 'API_TOKEN', value: 's3cr3t-token', sensitive: true },
        { key: 'MODE', value: 'prod', sensitive: false },
      ],
    });
    // The record itself stays redacted everywhere else.
    expect(JSON.stringify(await (await client().request(`/api/v1/containers/${ID}`)).json())).not.toContain(
      's3cr3t-token',
    );
    await expectJsonError(await reveal(UNKNOWN), 404);
    for (let i = 3; i <= 10; i++) expect((await reveal(ID)).status).toBe(200);
    const limited = await reveal(ID);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const body = await expectJsonError(limited, 429);
    expect(body.details).toEqual({ limit: 10, windowSeconds: 60 });
    const audit = await (await client().request('/api/v1/audit?action=env-reveal&limit=200')).json();
    expect(audit.total).toBe(9);
    expect(audit.data[0]).toMatchObject({ action: 'env-reveal', containerName: 'web', status: 'success' });
    expect(JSON.stringify(audit)).not.toContain('s3cr3t-token');
    expect(JSON.stringify(client().logged)).not.toContain('s3cr3t-token');
  });
});

describeHubMatrix(
  'container actions disabled',
  (client) => {
    it('answers start, stop and restart with 403 before looking the container up', async () => {
      for (const action of ['start', 'stop', 'restart']) {
        const body = await expectJsonError(
          await client().request(`/api/v1/containers/${UNKNOWN}/${action}`, post),
          403,
        );
        expect(body.details).toEqual({ feature: 'DD_SERVER_FEATURE_CONTAINERACTIONS' });
      }
    });
  },
  { DD_SERVER_FEATURE_CONTAINERACTIONS: 'false' },
);

describeHubMatrix(
  'container delete enabled',
  (client) => {
    it('removes the record, announces it and audits it; an unknown id is 404', async () => {
      await client().hub.parts.containers.put(record());
      await expectJsonError(
        await client().request(`/api/v1/containers/${UNKNOWN}`, { method: 'DELETE', headers: CONFIRM }),
        404,
      );
      const events = await openSse(client().request, '/api/v1/events/ui');
      await events.nextOfType('dd:connected');
      const deleted = await client().request(`/api/v1/containers/${ID}`, { method: 'DELETE', headers: CONFIRM });
      expect(deleted.status).toBe(204);
      expect(await deleted.text()).toBe('');
      const removed = dataOf<Container>(await events.nextOfType('dd:container-removed'));
      expect(removed).toMatchObject({ id: ID, name: 'web' });
      expect(removed.env).toContainEqual({ key: 'API_TOKEN', value: '***' });
      await events.close();
      await expectJsonError(await client().request(`/api/v1/containers/${ID}`), 404);
      const audit = await (await client().request('/api/v1/audit?action=container-removed')).json();
      expect(audit.data[0]).toMatchObject({ action: 'container-removed', containerName: 'web' });
    });
  },
  { DD_SERVER_FEATURE_DELETE: 'true' },
);
