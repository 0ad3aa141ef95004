import { importBusyboxImage, runContainer } from '../test/support/docker/test-images';
import type { ReceivedRequest } from '../test/support/notification-receiver';
import { type Benchmark, markdownTable, positiveIntegerEnv } from './support/benchmark';
import { median, percentile, startWebhookRig, type WebhookRig } from './support/webhook-rig';

const REPOSITORY = 'bench/pushed';

interface Sample {
  tag: string;
  /** `docker push` from start to exit. */
  pushMs: number;
  /** From the start of `docker push` to the notification at the receiver. */
  fromPushStartMs: number;
  /** From `docker push` exiting to the notification. */
  fromPushEndMs: number;
  /** From the registry's event reaching the relay to the notification: the hub's part, plus one signed hop. */
  fromEventMs: number;
}

async function cli(rig: WebhookRig, args: string[]): Promise<void> {
  const result = await rig.dockerd.cli(args);
  if (result.code !== 0) throw new Error(`push-notify-latency: docker ${args.join(' ')}: ${result.stderr.trim()}`);
}

/** Resolves with the notification about `tag`, however many others arrive first. */
async function notificationFor(rig: WebhookRig, tag: string, timeoutMs: number): Promise<ReceivedRequest> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = rig.receiver.received.find((request) => request.text.includes(`"remoteValue":"${tag}"`));
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`push-notify-latency: no notification for ${tag} within ${timeoutMs} ms`);
    await rig.receiver
      .waitFor(rig.receiver.received.length + 1, Math.max(1, deadline - Date.now()))
      .catch(() => undefined);
  }
}

async function measure(rig: WebhookRig, tag: string): Promise<Sample> {
  // The build and its tag are ready before the clock starts: only the push is timed.
  await importBusyboxImage(rig.dockerd.docker, {
    repository: REPOSITORY,
    tag: `build-${tag}`,
    cmd: ['sleep', '3600'],
    extraFile: { path: '/v', content: tag },
  });
  await cli(rig, ['tag', `${REPOSITORY}:build-${tag}`, rig.ref(REPOSITORY, tag)]);
  const started = Date.now();
  await cli(rig, ['push', rig.ref(REPOSITORY, tag)]);
  const pushed = Date.now();
  const notification = await notificationFor(rig, tag, 30_000);
  const [event] = await rig.relay.waitFor(1, (relayed) => relayed.body.includes(`"tag": "${tag}"`));
  if (event?.status !== 202)
    throw new Error(`push-notify-latency: the hub answered the event of ${tag} with ${event?.status}`);
  return {
    tag,
    pushMs: pushed - started,
    fromPushStartMs: notification.at - started,
    fromPushEndMs: notification.at - pushed,
    fromEventMs: notification.at - event.receivedAt,
  };
}

const ms = (value: number) => `${Math.round(value)} ms`;

function render(samples: readonly Sample[]): string {
  const row = (label: string, pick: (sample: Sample) => number) => {
    const values = samples.map(pick);
    return [label, ms(median(values)), ms(percentile(values, 90)), ms(Math.max(...values)), ms(Math.min(...values))];
  };
  const table = markdownTable(
    ['from → to the notification at the receiver', 'median', 'p90', 'max', 'min'],
    [
      row('start of `docker push`', (s) => s.fromPushStartMs),
      row('`docker push` exited', (s) => s.fromPushEndMs),
      row('registry event reached the relay', (s) => s.fromEventMs),
      row('(`docker push` itself)', (s) => s.pushMs),
    ],
    ['left', 'right', 'right', 'right', 'right'],
  );
  const worst = Math.max(...samples.map((s) => s.fromPushStartMs));
  return `${samples.length} pushes of a new tag of \`${REPOSITORY}\` with the docker CLI to Debian's docker-registry, which sends its own notifications (\`notifications.endpoints\`, pulls and blob events ignored) to a relay that signs each envelope with HMAC-SHA256 and forwards it to \`POST /api/v1/webhooks/registry\`. The hub runs as its own process (memory store) with its local watcher on a real dockerd where one container runs the repository's first tag, a yearly cron (no cycle runs during the measurement) and an \`http\` notification trigger (simple mode) pointing at a receiver on loopback. Each push carries a new version, so each one produces exactly one notification. \`BENCH_PUSHES\` (default 20) sets the count.

${table}

- **Goal: under 1 s from the push to the notification. Median ${ms(median(samples.map((s) => s.fromPushStartMs)))}, max ${ms(worst)}** from the start of \`docker push\`${worst < 1000 ? ', every push within the goal' : ''}.
- The hub's part (event at the relay → notification at the receiver: signature check, matching, one check of the container against the registry (tag list, candidate manifest), the outbox's write and the HTTP delivery) is the third row; the rest is the push and the registry's own notification queue.
- The registry sends its event once it has stored the manifest, while the docker CLI is still finishing: a notification can arrive a few ms before \`docker push\` exits (a negative minimum in the second row).
- No watch cycle ran during the pushes (the watcher's cron is yearly): every notification came from the registry's event.`;
}

export const pushNotifyLatency: Benchmark = {
  name: 'push-notify-latency',
  async run(ctx) {
    const pushes = positiveIntegerEnv('BENCH_PUSHES', 20);
    const rig = await startWebhookRig({
      hubEnv: (receiverUrl) => ({ DD_NOTIFICATION_HTTP_OPS_URL: receiverUrl }),
      async before(setup) {
        await setup.publish(REPOSITORY, '1.0.0');
        await runContainer(setup.dockerd.docker, { name: 'pushed', image: setup.ref(REPOSITORY, '1.0.0') });
      },
    });
    try {
      await rig.firstCycle(60_000);
      const samples: Sample[] = [];
      for (let i = 1; i <= pushes; i++) {
        const sample = await measure(rig, `1.${i}.0`);
        ctx.log(`${sample.tag}: ${sample.fromPushStartMs} ms from push start, ${sample.fromEventMs} ms from the event`);
        samples.push(sample);
      }
      if (rig.receiver.received.length !== pushes) {
        throw new Error(`push-notify-latency: ${rig.receiver.received.length} notifications for ${pushes} pushes`);
      }
      return { title: 'Push to notification through the registry webhook', markdown: render(samples) };
    } finally {
      await rig.close();
    }
  },
};
