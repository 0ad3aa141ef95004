import type { Container } from '../shared/schemas/container';
import type { ReceivedRequest } from '../test/support/notification-receiver';
import { type Benchmark, formatCount, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { mapLimit } from './support/docker-fleet';
import { median, startWebhookRig, type WebhookRig } from './support/webhook-rig';

const REPOSITORY = 'bench/fleet';
const PARALLELISM = 8;

interface Delivery {
  label: string;
  /** From the trigger (push exited, or the watch request sent) to the batch at the receiver. */
  toBatchMs: number;
  /** From the trigger to the last update-available audit entry: the containers checked and their records written. */
  checkedMs: number;
  /** From that entry to the batch at the receiver: the notification's routing, outbox write and HTTP delivery. */
  deliveryMs: number;
  bytes: number;
  containers: number;
}

interface BatchBody {
  kind: string;
  count: number;
  containers: unknown[];
}

/** Created, never started: with WATCHALL the watcher lists and checks them all, and 1,000 idle shims cost no memory. */
async function createFleet(
  rig: Pick<WebhookRig, 'dockerd' | 'ref'>,
  count: number,
  onProgress: (done: number) => void,
): Promise<void> {
  let done = 0;
  await mapLimit(
    Array.from({ length: count }, (_, n) => n),
    PARALLELISM,
    async (n) => {
      await rig.dockerd.docker.createContainer({
        name: `fleet-${n}`,
        Image: rig.ref(REPOSITORY, '1.0.0'),
        Cmd: ['sleep', '3600'],
        HostConfig: { NetworkMode: 'none' },
      });
      done += 1;
      if (done % 200 === 0) onProgress(done);
    },
  );
}

/** The first request after the `seen` ones already received. */
async function batchAfter(rig: WebhookRig, seen: number, timeoutMs: number): Promise<ReceivedRequest> {
  const request = (await rig.receiver.waitFor(seen + 1, timeoutMs))[seen];
  if (!request) throw new Error('batch-notification: no batch arrived');
  return request;
}

/**
 * The batch checked for its size, and the time split at the newest update-available audit entry,
 * which the hub writes with each record before it routes the notification.
 */
async function check(
  rig: WebhookRig,
  request: ReceivedRequest,
  expected: number,
  label: string,
  startedAt: number,
): Promise<Delivery> {
  const body = request.json as BatchBody;
  if (body.kind !== 'batch' || body.count !== expected || body.containers.length !== expected) {
    throw new Error(
      `batch-notification: ${label}: expected one batch of ${expected}, got kind ${body.kind} with ${body.count}`,
    );
  }
  const audit = (await (await fetch(`${rig.hub.url}/api/v1/audit?action=update-available&limit=1`)).json()) as {
    data: { timestamp: string }[];
  };
  const recordedAt = Date.parse(audit.data[0]?.timestamp ?? '');
  return {
    label,
    toBatchMs: request.at - startedAt,
    checkedMs: recordedAt - startedAt,
    deliveryMs: request.at - recordedAt,
    bytes: Buffer.byteLength(request.text),
    containers: expected,
  };
}

/** A push of a new version, announced by the registry's own webhook: the event's containers are checked in one observation. */
async function throughWebhook(rig: WebhookRig, tag: string, expected: number): Promise<Delivery> {
  const seen = rig.receiver.received.length;
  await rig.publish(REPOSITORY, tag);
  const pushed = Date.now();
  const request = await batchAfter(rig, seen, 120_000);
  return check(rig, request, expected, `registry webhook, push of ${tag}`, pushed);
}

/** A push nobody announces (the relay drops the event), found by a full watch cycle run through the API. */
async function throughCycle(rig: WebhookRig, tag: string, expected: number): Promise<Delivery> {
  const target = rig.relay.target;
  rig.relay.target = undefined;
  try {
    await rig.publish(REPOSITORY, tag);
    // The registry sends its event after the push: it must reach the relay while it still drops.
    await rig.relay.waitFor(1, (event) => event.body.includes(`"tag": "${tag}"`));
  } finally {
    rig.relay.target = target;
  }
  const seen = rig.receiver.received.length;
  const started = Date.now();
  const response = await fetch(`${rig.hub.url}/api/v1/containers/watch`, { method: 'POST' });
  if (response.status !== 200) throw new Error(`batch-notification: watch answered ${response.status}`);
  await response.arrayBuffer();
  const request = await batchAfter(rig, seen, 120_000);
  return check(rig, request, expected, `watch cycle (POST /api/v1/containers/watch), push of ${tag}`, started);
}

function render(count: number, deliveries: readonly Delivery[], setupMs: number): string {
  const table = markdownTable(
    [
      'trigger',
      'to the batch at the receiver',
      'checks and records',
      'notification delivery',
      'containers in the batch',
      'payload',
    ],
    deliveries.map((d) => [
      d.label,
      `${Math.round(d.toBatchMs)} ms`,
      `${Math.round(d.checkedMs)} ms`,
      `${Math.round(d.deliveryMs)} ms`,
      formatCount(d.containers),
      `${formatCount(d.bytes)} bytes`,
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right'],
  );
  const webhook = deliveries.filter((d) => d.label.startsWith('registry'));
  const perContainer = (deliveries[0]?.bytes ?? 0) / count;
  const deliveryMedian = Math.round(median(deliveries.map((d) => d.deliveryMs)));
  return `${formatCount(count)} containers on a real dockerd (created, not started; the watcher has \`WATCHALL=true\`), all running \`${REPOSITORY}:1.0.0\` from Debian's docker-registry. The hub runs as its own process (memory store) with one \`http\` notification trigger in \`batch\` mode to a receiver on loopback. A push of a new version makes every container updatable at once; the batch is one HTTP request whose JSON body lists every container (the notification view: identity, image, update, no env or labels). \`BENCH_BATCH_CONTAINERS\` (default 1000) sets the fleet.

${table}

- **Delivery of the batch: ${deliveryMedian} ms** (median over every row) from the hub recording the last update to the message at the receiver: routing the event, rendering the batch, writing the outbox entry and one HTTP POST. **Payload: ${formatCount(deliveries[0]?.bytes ?? 0)} bytes** (${((deliveries[0]?.bytes ?? 0) / 1024).toFixed(0)} KiB), about ${Math.round(perContainer)} bytes per container.
- **End to end: ${Math.round(median(webhook.map((d) => d.toBatchMs)))} ms** (median of ${webhook.length}) from \`docker push\` exiting to the batch, through the registry webhook, which checks the event's containers in one observation per watcher, so the trigger sends one message, not ${formatCount(count)}. "Checks and records" is the rest: listing and inspecting the ${formatCount(count)} containers, one shared registry lookup for all of them, and writing ${formatCount(count)} records and audit entries. The last row is the same work started by a full watch cycle instead of the registry's event.
- The split is read from the newest \`update-available\` audit entry (millisecond timestamps, same clock): the hub writes it with each record, before it routes the notification.
- Setup, not measured: creating the containers took ${(setupMs / 1000).toFixed(1)} s (${PARALLELISM} at a time).`;
}

export const batchNotification: Benchmark = {
  name: 'batch-notification',
  async run(ctx) {
    const count = positiveIntegerEnv('BENCH_BATCH_CONTAINERS', 1000);
    let setupMs = 0;
    const rig = await startWebhookRig({
      hubEnv: (receiverUrl) => ({
        DD_WATCHER_LOCAL_WATCHALL: 'true',
        DD_NOTIFICATION_HTTP_TEAM_URL: receiverUrl,
        DD_NOTIFICATION_HTTP_TEAM_MODE: 'batch',
      }),
      async before(setup) {
        await setup.publish(REPOSITORY, '1.0.0');
        const started = Date.now();
        ctx.log(`creating ${count} containers`);
        await createFleet(setup, count, (done) => ctx.log(`${done} containers`));
        setupMs = Date.now() - started;
      },
    });
    try {
      await rig.firstCycle(300_000);
      const records = (await (await fetch(`${rig.hub.url}/api/v1/containers`)).json()) as { data: Container[] };
      if (records.data.length !== count || records.data.some((c) => c.updateAvailable || !c.checkedAt)) {
        throw new Error(
          `batch-notification: the first cycle saw ${records.data.length} containers, not ${count} up-to-date ones`,
        );
      }
      const deliveries: Delivery[] = [];
      for (const tag of ['1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0']) {
        deliveries.push(await throughWebhook(rig, tag, count));
        ctx.log(`${tag}: ${deliveries.at(-1)?.toBatchMs} ms, ${deliveries.at(-1)?.bytes} bytes`);
      }
      deliveries.push(await throughCycle(rig, '1.6.0', count));
      ctx.log(`cycle: ${deliveries.at(-1)?.toBatchMs} ms`);
      return { title: 'One batch notification for 1,000 containers', markdown: render(count, deliveries, setupMs) };
    } finally {
      await rig.close();
    }
  },
};
