import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkersBundle } from '../../scripts/build-workers.mjs';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';

/**
 * Schedules on the Durable Object alarm (issue 16 item 1, docs/workers.md "Schedules"): a retry
 * pending when workerd stops is delivered once by the next workerd on the same persistence
 * directory, from the alarm, without any request reaching the object after the restart.
 */

const COMPATIBILITY_DATE = '2026-04-01';
const ORIGIN = 'http://hub.test';

let workDir: string;
let scriptPath: string;
let receiver: NotificationReceiver;
const running = new Set<Miniflare>();

async function startWorker(): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: dirname(scriptPath),
    compatibilityDate: COMPATIBILITY_DATE,
    durableObjects: { HUB: { className: 'HubDurableObject', useSQLite: true } },
    durableObjectsPersist: join(workDir, 'do'),
    bindings: { DD_LOG_LEVEL: 'info', DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops` },
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume();
      stderr.resume();
    },
  } as MiniflareOptions);
  running.add(mf);
  await mf.ready;
  return mf;
}

async function stopWorker(mf: Miniflare): Promise<void> {
  running.delete(mf);
  await mf.dispose();
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-schedules-'));
  scriptPath = await buildWorkersBundle({ outfile: join(workDir, 'bundle', 'index.js') });
  receiver = await startNotificationReceiver();
});

afterAll(async () => {
  await Promise.all([...running].map((mf) => mf.dispose()));
  await receiver?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('schedules on the Durable Object alarm under workerd', () => {
  it('delivers a retry pending when workerd stopped exactly once, from the alarm, with no request after the restart', async () => {
    const first = await startWorker();
    receiver.behave({ status: 503, body: 'maintenance' });
    const run = await first.dispatchFetch(`${ORIGIN}/api/v1/triggers/http/ops`, { method: 'POST' });
    expect(run.status).toBe(502);
    const failed = (await run.json()) as { details?: { outboxId?: string } };
    const outbox = (await (await first.dispatchFetch(`${ORIGIN}/api/v1/notifications/outbox`)).json()) as {
      data: { id: string; attempts: number; nextAttemptAt?: string }[];
    };
    expect(outbox.data).toEqual([
      expect.objectContaining({ id: failed.details?.outboxId, attempts: 1, nextAttemptAt: expect.any(String) }),
    ]);
    const dueAt = Date.parse(outbox.data[0]?.nextAttemptAt ?? '');
    expect(receiver.received).toHaveLength(1);
    await stopWorker(first);

    // The receiver is back; a new workerd on the same directory gets no request at all.
    receiver.behave({ status: 200, body: '{"ok":true}' });
    const second = await startWorker();
    const [, delivered] = await receiver.waitFor(2, 60_000);
    expect(delivered?.path).toBe(receiver.received[0]?.path);
    expect(delivered?.at).toBeGreaterThanOrEqual(dueAt);
    expect(delivered?.json).toMatchObject({ event: 'update-available' });

    // Delivered, so gone from the outbox, and not sent again by a later wake or a request.
    const outboxOf = async () =>
      ((await (await second.dispatchFetch(`${ORIGIN}/api/v1/notifications/outbox`)).json()) as { data: unknown[] })
        .data;
    await expect.poll(outboxOf).toEqual([]);
    expect(receiver.received).toHaveLength(2);
  }, 120_000);
});
