import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContainer, sampleImage, sampleWatcher, snapshotFrames, waitFor } from '../support/edge-peer';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { signInWorkerdAgent } from '../support/workerd-edge-socket';
import { type WorkersHub, workersHubSet } from '../support/workers-hub';

/**
 * Schedules on the Durable Object alarm (issue 16 item 1, docs/workers.md "Schedules"): a retry
 * pending when workerd stops is delivered once by the next workerd on the same persistence
 * directory, from the alarm, without any request reaching the object after the restart; an
 * agent's watch cycles run on their cron from the alarm (the object has no other timer for them).
 */

let workDir: string;
let receiver: NotificationReceiver;
const hubs = workersHubSet();

/** The hub under workerd; its Durable Object's storage persists under workDir across restarts. */
const startWorker = () =>
  hubs.start({
    persistDir: join(workDir, 'do'),
    vars: {
      DD_LOG_LEVEL: 'info',
      DD_SERVER_HOST: '0.0.0.0',
      DD_SERVER_RATELIMIT_MAX: '1000000000',
      DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops`,
    },
  });

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-schedules-'));
  receiver = await startNotificationReceiver();
});

afterAll(async () => {
  await hubs.disposeAll();
  await receiver?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('schedules on the Durable Object alarm under workerd', () => {
  it('delivers a retry pending when workerd stopped exactly once, from the alarm, with no request after the restart', async () => {
    const first = await startWorker();
    receiver.behave({ status: 503, body: 'maintenance' });
    const run = await first.fetch(`/api/v1/triggers/http/ops`, { method: 'POST' });
    expect(run.status).toBe(502);
    const failed = (await run.json()) as { details?: { outboxId?: string } };
    const outbox = (await (await first.fetch(`/api/v1/notifications/outbox`)).json()) as {
      data: { id: string; attempts: number; nextAttemptAt?: string }[];
    };
    expect(outbox.data).toEqual([
      expect.objectContaining({ id: failed.details?.outboxId, attempts: 1, nextAttemptAt: expect.any(String) }),
    ]);
    const dueAt = Date.parse(outbox.data[0]?.nextAttemptAt ?? '');
    expect(receiver.received).toHaveLength(1);
    await hubs.stop(first);

    // The receiver is back; a new workerd on the same directory gets no request at all.
    receiver.behave({ status: 200, body: '{"ok":true}' });
    const second = await startWorker();
    const [, delivered] = await receiver.waitFor(2, 60_000);
    expect(delivered?.path).toBe(receiver.received[0]?.path);
    expect(delivered?.at).toBeGreaterThanOrEqual(dueAt);
    expect(delivered?.json).toMatchObject({ event: 'update-available' });

    // Delivered, so gone from the outbox, and not sent again by a later wake or a request.
    const outboxOf = async () =>
      ((await (await second.fetch(`/api/v1/notifications/outbox`)).json()) as { data: unknown[] }).data;
    await expect.poll(outboxOf).toEqual([]);
    expect(receiver.received).toHaveLength(2);
  }, 120_000);
});

/**
 * An edge agent on a workerd WebSocket: signed in with one watcher, answering the hub's pings and
 * sending its own heartbeat as a real agent does (on Workers the hub sends none, and its liveness
 * job closes an agent silent for two beats).
 */
async function signInAgent(mf: WorkersHub, name: string, cron: string): Promise<{ close(): void }> {
  const agent = await signInWorkerdAgent(mf, name, [sampleWatcher({ name: 'local', cron, jitterSeconds: 0 })]);
  // Not watched: the cycle runs, and asks no registry.
  for (const frame of snapshotFrames(
    'local',
    [sampleContainer('quiet', { labels: { 'dd.watch': 'false' } })],
    [sampleImage()],
  ))
    agent.send(frame);
  return agent;
}

describe('an agent watcher on the Durable Object alarm', () => {
  it('runs its watch cycles on its cron, on time', async () => {
    const mf = await startWorker();
    const agent = await signInAgent(mf, 'cron-agent', '* * * * *');
    type Watcher = { agent?: string; metadata: { lastRunAt?: string; nextRunAt?: string } };
    const watcher = async () =>
      ((await (await mf.fetch(`/api/v1/watchers`)).json()) as { data: Watcher[] }).data.find(
        (entry) => entry.agent === 'cron-agent',
      );
    // The cycle that follows the full sync, then the next one on the minute.
    const first = await waitFor(
      async () => {
        const found = await watcher();
        return found?.metadata.lastRunAt && found.metadata.nextRunAt ? found.metadata : undefined;
      },
      20_000,
      'the first cycle',
    );
    const scheduledAt = Date.parse(first.nextRunAt ?? '');
    expect(scheduledAt % 60_000).toBe(0);
    // Asked once a second: these requests run no cycle, the alarm does.
    let next: number | undefined;
    const deadline = Date.now() + 80_000;
    while (next === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const ranAt = Date.parse((await watcher())?.metadata.lastRunAt ?? '');
      if (ranAt >= scheduledAt) next = ranAt;
    }
    if (next === undefined) throw new Error('the scheduled cycle did not run');
    expect(next - scheduledAt).toBeLessThan(10_000);
    agent.close();
    await hubs.stop(mf);
  }, 120_000);
});
