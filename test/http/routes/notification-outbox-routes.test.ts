import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { expectJsonError, type HubClient } from '../../support/hub-harness';
import { cycle, notificationHub, record } from '../../support/notification-hub';
import { useNotificationBed } from '../support/notification-bed';

const BEARER = 'outbox-bearer-token-7f3a9c';
const HEADER_KEY = 'header-api-key-55e1b2';

interface EntryView {
  id: string;
  triggerId: string;
  event: string;
  status: string;
  attempts: number;
  maxAttempts: number;
  lastError?: string;
  nextAttemptAt?: string;
  payload: { title: string; containerCount: number; containers: Record<string, unknown>[] };
}

// Some tests stop the receiver: it is started again after each.
const { receiver, track, forgetHubs } = useNotificationBed({ restart: true });

async function hubWith(env: Record<string, string>, options: Parameters<typeof notificationHub>[1] = {}) {
  const hub = await notificationHub(
    {
      DD_NOTIFICATION_HTTP_OPS_URL: receiver().url,
      DD_NOTIFICATION_HTTP_OPS_BEARER: BEARER,
      DD_NOTIFICATION_HTTP_OPS_HEADERS: JSON.stringify({ 'X-Api-Key': HEADER_KEY }),
      ...env,
    },
    options,
  );
  return track(hub);
}

const outbox = async (hub: HubClient, query = ''): Promise<EntryView[]> => {
  const response = await hub.request(`/api/v1/notifications/outbox${query}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: EntryView[]; total: number };
  expect(body.total).toBe(body.data.length);
  return body.data;
};

/** Polls the hub's own outbox (no sleeping in between longer than a tick) until it says what the test waits for. */
async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the notification outbox', () => {
  it('retries a 500 with backoff, then dead-letters it with Authorization values and secrets redacted', async () => {
    // The receiver echoes every header it got, Authorization included, in its error body.
    receiver().behave({
      status: 500,
      body: (request) => `internal error; you sent ${JSON.stringify(request.headers)}`,
    });
    const hub = await hubWith({});
    await cycle(hub, [record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' })]);
    const [dead] = await until(async () => {
      const entries = await outbox(hub, '?status=dead-letter');
      return entries.length > 0 ? entries : undefined;
    });
    expect(receiver().received).toHaveLength(3);
    expect(receiver().received[0]?.headers['authorization']).toBe(`Bearer ${BEARER}`);
    expect(receiver().received[0]?.headers['x-api-key']).toBe(HEADER_KEY);
    expect(dead).toMatchObject({
      triggerId: 'http.ops',
      event: 'update-available',
      status: 'dead-letter',
      attempts: 3,
      maxAttempts: 3,
    });
    expect(dead?.nextAttemptAt).toBeUndefined();
    expect(dead?.lastError).toMatch(/^http\.ops: answered 500: internal error/);
    const everything = JSON.stringify(await outbox(hub));
    expect(everything).not.toContain(BEARER);
    expect(everything).not.toContain(HEADER_KEY);
    // The safe projection: which container and its update, never env, labels or the body.
    expect(dead?.payload).toEqual({
      title: 'New tag found for container web',
      containerCount: 1,
      containers: [
        {
          id: 'web-id',
          name: 'web',
          watcher: 'local',
          image: 'docker.io/library/nginx:1.27.0',
          updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
        },
      ],
    });
    expect(everything).not.toContain('very-secret-env');
    expect(everything).not.toContain('label-value');
    const audit = await (await hub.request('/api/v1/audit?action=notification-delivery-failed')).json();
    expect(audit.total).toBe(1);
    expect(audit.data[0]).toMatchObject({ triggerName: 'http.ops', containerName: 'web', status: 'dead-letter' });
    expect(JSON.stringify(audit)).not.toContain(BEARER);
    expect(JSON.stringify(hub.logged)).not.toContain(BEARER);

    // Retry requeues it; this time the receiver takes it and the entry is gone.
    receiver().behave({ status: 204 });
    const retried = await hub.request(`/api/v1/notifications/outbox/${dead?.id}/retry`, { method: 'POST' });
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ id: dead?.id, status: 'pending', attempts: 0 });
    await until(async () => ((await outbox(hub)).length === 0 ? true : undefined));
    expect(receiver().received).toHaveLength(4);
  });

  it('a 4xx other than 408/429 goes to dead-letter at once', async () => {
    receiver().behave({ status: 404, body: 'no such hook' });
    const hub = await hubWith({});
    await cycle(hub, [record('web', { from: '1', to: '2', diff: 'major' })]);
    const [dead] = await until(async () => {
      const entries = await outbox(hub, '?status=dead-letter');
      return entries.length > 0 ? entries : undefined;
    });
    expect(receiver().received).toHaveLength(1);
    expect(dead).toMatchObject({ attempts: 1, lastError: 'http.ops: answered 404: no such hook' });
  });

  it('keeps retrying while the receiver is down, and delivers once it is back', async () => {
    await receiver().stop();
    const hub = await hubWith({}, { timing: { maxAttempts: 50, baseDelayMs: 30, maxDelayMs: 60, random: () => 0.5 } });
    await cycle(hub, [record('web', { from: '1', to: '2', diff: 'major' })]);
    const [retrying] = await until(async () => {
      const entries = await outbox(hub, '?status=retrying');
      return entries.length > 0 ? entries : undefined;
    });
    expect(retrying?.lastError).toMatch(/^http\.ops: request failed: .*ECONNREFUSED/);
    expect(retrying?.nextAttemptAt).toEqual(expect.any(String));
    await receiver().start();
    await receiver().waitFor(1);
    await until(async () => ((await outbox(hub)).length === 0 ? true : undefined));
    expect((receiver().received[0]?.json as { title?: string } | undefined)?.title).toBe(
      'New tag found for container web',
    );
  });

  it('abandons an attempt at the delivery timeout and retries it', async () => {
    receiver().behave({ hang: true });
    const hub = await hubWith(
      { DD_NOTIFICATION_TIMEOUT: '1' },
      { timing: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20, random: () => 0.5 } },
    );
    const started = Date.now();
    await cycle(hub, [record('web', { from: '1', to: '2', diff: 'major' })]);
    const [dead] = await until(async () => {
      const entries = await outbox(hub, '?status=dead-letter');
      return entries.length > 0 ? entries : undefined;
    });
    expect(receiver().received).toHaveLength(2);
    expect(dead?.lastError).toBe('http.ops: no answer within 1000 ms (delivery timeout)');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it('loses nothing across a restart: a waiting entry is delivered by the next hub', async () => {
    const storage = createStorage();
    await receiver().stop();
    const slow = { maxAttempts: 5, baseDelayMs: 300, maxDelayMs: 300, random: () => 0.5 };
    const first = await hubWith({}, { storage, timing: slow });
    await cycle(first, [
      record('web', { from: '1', to: '2', diff: 'major' }),
      record('api', { from: '3', to: '4', diff: 'major' }),
    ]);
    await until(async () => ((await outbox(first, '?status=retrying')).length === 2 ? true : undefined));
    await first.close();
    forgetHubs();
    await receiver().start();

    const second = await hubWith({}, { storage, timing: slow });
    expect((await outbox(second)).map((entry) => entry.payload.containers[0]?.['name']).sort()).toEqual(['api', 'web']);
    await receiver().waitFor(2);
    await until(async () => ((await outbox(second)).length === 0 ? true : undefined));
    expect(
      receiver()
        .received.map((request) => (request.json as { containers: { name: string }[] }).containers[0]?.name)
        .sort(),
    ).toEqual(['api', 'web']);
  });

  it('a hanging receiver does not hold the hub’s stop: the attempt is abandoned and made again after the restart', async () => {
    const storage = createStorage();
    receiver().behave({ hang: true });
    const first = await hubWith({}, { storage });
    await cycle(first, [record('web', { from: '1', to: '2', diff: 'major' })], { settle: false });
    await receiver().waitFor(1);
    const started = Date.now();
    await first.close();
    forgetHubs();
    expect(Date.now() - started).toBeLessThan(2_000);
    // Abandoned, not failed: the entry is as it was before the attempt.
    const keys = await storage.getKeys('notification-outbox');
    expect(keys).toHaveLength(1);
    expect(await storage.getItem(keys[0] as string)).toMatchObject({ status: 'pending', attempts: 0 });
    receiver().behave({ status: 200 });
    const second = await hubWith({}, { storage });
    await receiver().waitFor(2);
    await until(async () => ((await outbox(second)).length === 0 ? true : undefined));
  });

  it('answers 400 for an invalid status, 404 for retry or delete of what is not there, 204 for a delete', async () => {
    receiver().behave({ status: 500, body: 'down' });
    const hub = await hubWith(
      {},
      { timing: { maxAttempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0.5 } },
    );
    await expectJsonError(await hub.request('/api/v1/notifications/outbox?status=bogus'), 400);
    await cycle(hub, [record('web', { from: '1', to: '2', diff: 'major' })]);
    const [entry] = await outbox(hub, '?status=retrying');
    expect(entry).toBeDefined();
    await expectJsonError(await hub.request('/api/v1/notifications/outbox/nope/retry', { method: 'POST' }), 404);
    // Not dead-letter: nothing to requeue.
    await expectJsonError(
      await hub.request(`/api/v1/notifications/outbox/${entry?.id}/retry`, { method: 'POST' }),
      404,
    );
    await expectJsonError(await hub.request('/api/v1/notifications/outbox/nope', { method: 'DELETE' }), 404);
    const deleted = await hub.request(`/api/v1/notifications/outbox/${entry?.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await outbox(hub)).toEqual([]);
    expect(await outbox(hub, '?status=pending')).toEqual([]);
  });
});
