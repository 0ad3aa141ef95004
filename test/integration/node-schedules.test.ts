import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, REPO_ROOT, startHubProcess } from '../support/hub-process';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';

/**
 * The durable schedules on Node (issue 16 item 1, docs/architecture.md "Schedules"): a retry that
 * fell due while the hub process was down (killed, not stopped) runs once when the next process
 * starts, from the next run the first one stored.
 *
 * The hub runs from the test entry that starts it as hub/src/entry/node.ts does, with the retry
 * backoff shortened (NOTIFY_TEST_DELAY_MS, read by that entry only): the first retry falls due in
 * 4.8 to 7.2 s rather than the default 24 to 36 s, which this test otherwise spent waiting (issue 30).
 */
const HUB_ENTRY = join(REPO_ROOT, 'test', 'support', 'stepped-clock-hub-entry.ts');
const RETRY_DELAY_MS = 6_000;

describe('schedules of a real hub process across a crash', () => {
  let dataDir: string;
  let receiver: NotificationReceiver;
  const hubs = new Set<HubProcess>();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hub-schedules-'));
    receiver = await startNotificationReceiver();
  });
  afterAll(async () => {
    await Promise.all([...hubs].map((hub) => hub.kill('SIGKILL')));
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const hub = await startHubProcess(
      {
        DD_STORE_PATH: dataDir,
        DD_LOCAL_WATCHER: 'false',
        DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops`,
        NOTIFY_TEST_ATTEMPTS: '5',
        NOTIFY_TEST_DELAY_MS: String(RETRY_DELAY_MS),
      },
      20_000,
      HUB_ENTRY,
    );
    hubs.add(hub);
    return hub;
  };

  it('delivers a retry that fell due while the hub was down once, at the next start', async () => {
    receiver.behave({ status: 503, body: 'maintenance' });
    const first = await start();
    expect((await fetch(`${first.url}/api/v1/triggers/http/ops`, { method: 'POST' })).status).toBe(502);
    const outbox = (await (await fetch(`${first.url}/api/v1/notifications/outbox`)).json()) as {
      data: { attempts: number; nextAttemptAt?: string }[];
    };
    expect(outbox.data).toEqual([expect.objectContaining({ attempts: 1, nextAttemptAt: expect.any(String) })]);
    const dueAt = Date.parse(outbox.data[0]?.nextAttemptAt ?? '');
    // The wake at the retry is a stored schedule, one key per job.
    const stored = await readdir(dataDir, { recursive: true });
    expect(stored.some((path) => path.includes('schedule') && path.includes('notifications.outbox'))).toBe(true);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    hubs.delete(first);
    // Killed before its retry fell due (the shortened backoff leaves it seconds): the delivery to come is the next process's.
    expect(receiver.received).toHaveLength(1);

    // Down until the retry is due (the downtime the schedule has to survive), then started again.
    receiver.behave({ status: 200, body: '{"ok":true}' });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now() + 500)));
    const second = await start();
    const [, delivered] = await receiver.waitFor(2, 20_000);
    expect(delivered?.at).toBeGreaterThanOrEqual(dueAt);
    expect(delivered?.json).toMatchObject({ event: 'update-available' });
    // The entry leaves the outbox once the attempt is recorded, just after the receiver answered.
    const outboxOf = async () =>
      ((await (await fetch(`${second.url}/api/v1/notifications/outbox`)).json()) as { data: unknown[] }).data;
    await expect.poll(outboxOf).toEqual([]);
    expect(receiver.received).toHaveLength(2);
    expect(await second.kill('SIGTERM')).toBe(0);
    hubs.delete(second);
  }, 120_000);
});
