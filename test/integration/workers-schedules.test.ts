import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ROOT, WORKERD_BUILD_OPTIONS } from '../../scripts/build-workers.mjs';
import { sampleContainer, sampleImage, sampleWatcher, snapshotFrames, waitFor } from '../support/edge-peer';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { signInWorkerdAgent } from '../support/workerd-edge-socket';
import { type WorkersHub, type WorkersHubOptions, workersHubSet } from '../support/workers-hub';

/**
 * Schedules on the Durable Object alarm (issue 16 item 1, docs/workers.md "Schedules"): a retry
 * pending when workerd stops is delivered once by the next workerd on the same persistence
 * directory, from the alarm, without any request reaching the object after the restart; an
 * agent's watch cycles run on their cron from the alarm (the object has no other timer for them).
 *
 * Each waits for a time to come, not for work (issue 30): the retry comes after 4.8 to 7.2 s (the
 * hub object of test/support/workers-fast-retry-entry.ts, whose only change is that backoff) rather
 * than 24 to 36 s, the cron is every 10 s rather than every minute, and the two run side by side,
 * each on its own workerd and persistence directory. (They once shared one: the cron test's workerd
 * started on the directory of the retry test's, which was still running, two processes on one
 * object's storage and alarm; the cron's cycle was once missing under load.)
 */

let workDir: string;
let receiver: NotificationReceiver;
/** The hub's Worker with the fast-retry hub object. */
let fastRetryScript: string;
const hubs = workersHubSet();

const VARS = { DD_LOG_LEVEL: 'info', DD_SERVER_HOST: '0.0.0.0', DD_SERVER_RATELIMIT_MAX: '1000000000' };

/** The hub under workerd; its Durable Object's storage persists under workDir/<dir> across restarts. */
const startWorker = (dir: string, options: WorkersHubOptions = {}) =>
  hubs.start({ persistDir: join(workDir, dir), vars: VARS, ...options });

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-schedules-'));
  fastRetryScript = join(workDir, 'bundle', 'index.js');
  [receiver] = await Promise.all([
    startNotificationReceiver(),
    build({
      ...WORKERD_BUILD_OPTIONS,
      entryPoints: [join(ROOT, 'test', 'support', 'workers-fast-retry-entry.ts')],
      outfile: fastRetryScript,
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await hubs.disposeAll();
  await receiver?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe.concurrent('schedules on the Durable Object alarm under workerd', () => {
  // The two tests run side by side: each asserts through its own context's expect.
  it('delivers a retry pending when workerd stopped exactly once, from the alarm, with no request after the restart', async ({
    expect,
  }) => {
    const startRetryWorker = () =>
      startWorker('retry', {
        scriptPath: fastRetryScript,
        className: 'FastRetryHubDurableObject',
        vars: { ...VARS, DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops` },
      });
    const first = await startRetryWorker();
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
    // Stopped before its retry fell due: the delivery to come is the next workerd's.
    expect(receiver.received).toHaveLength(1);

    // The receiver is back; a new workerd on the same directory gets no request at all.
    receiver.behave({ status: 200, body: '{"ok":true}' });
    const second = await startRetryWorker();
    const [, delivered] = await receiver.waitFor(2, 60_000);
    expect(delivered?.path).toBe(receiver.received[0]?.path);
    expect(delivered?.at).toBeGreaterThanOrEqual(dueAt);
    expect(delivered?.json).toMatchObject({ event: 'update-available' });

    // Delivered, so gone from the outbox, and not sent again by a later wake or a request.
    const outboxOf = async () =>
      ((await (await second.fetch(`/api/v1/notifications/outbox`)).json()) as { data: unknown[] }).data;
    await expect.poll(outboxOf).toEqual([]);
    expect(receiver.received).toHaveLength(2);
    await hubs.stop(second);
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

/** Every 10 s, on the 10 s (croner's six-field form, seconds first): a cycle on the cron is due within seconds. */
const CRON = '*/10 * * * * *';
const CRON_PERIOD_MS = 10_000;

describe.concurrent('an agent watcher on the Durable Object alarm', () => {
  it('runs its watch cycles on its cron, on time', async ({ expect }) => {
    const mf = await startWorker('cron');
    const agent = await signInAgent(mf, 'cron-agent', CRON);
    type Watcher = { agent?: string; metadata: { lastRunAt?: string; nextRunAt?: string } };
    const watcher = async () =>
      ((await (await mf.fetch(`/api/v1/watchers`)).json()) as { data: Watcher[] }).data.find(
        (entry) => entry.agent === 'cron-agent',
      );
    // The cycle that follows the full sync, then the next one on the cron. Its next run is read once
    // it is set after that cycle (until then the watcher lists the one-off run it is in).
    const first = await waitFor(
      async () => {
        const found = await watcher();
        const { lastRunAt, nextRunAt } = found?.metadata ?? {};
        return lastRunAt && nextRunAt && Date.parse(nextRunAt) > Date.parse(lastRunAt) ? found?.metadata : undefined;
      },
      20_000,
      'the first cycle',
    );
    const scheduledAt = Date.parse(first.nextRunAt ?? '');
    expect(scheduledAt % CRON_PERIOD_MS).toBe(0);
    // Asked every 250 ms: these requests run no cycle, the alarm does. The deadline counts from the
    // time the cycle is due, not from now, so a slow start cannot eat into it.
    let next: number | undefined;
    const deadline = scheduledAt + 30_000;
    while (next === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const ranAt = Date.parse((await watcher())?.metadata.lastRunAt ?? '');
      if (ranAt >= scheduledAt) next = ranAt;
    }
    if (next === undefined) throw new Error('the scheduled cycle did not run');
    expect(next - scheduledAt).toBeLessThan(10_000);
    // And the cron goes on from that cycle: its next run is a later slot of the same cron.
    const following = await waitFor(
      async () => {
        const at = Date.parse((await watcher())?.metadata.nextRunAt ?? '');
        return at > scheduledAt ? at : undefined;
      },
      10_000,
      'the cycle after',
    );
    expect((following - scheduledAt) % CRON_PERIOD_MS).toBe(0);
    agent.close();
    await hubs.stop(mf);
  }, 120_000);
});
