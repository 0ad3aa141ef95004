import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeHub, startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { type SigningRelay, startSigningRelay } from '../support/registry/signing-relay';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const SECRET = 'e2e-registry-secret';

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Delivered {
  event: string;
  title: string;
  containers: { name: string; updateKind: { remoteValue: string } }[];
}

/**
 * A push reaches the hub through the registry's own notifications, and the hub notifies without
 * waiting for a watch cycle. Real components throughout: Debian's docker-registry configured with
 * `notifications.endpoints` pointing at a relay that signs each envelope (HMAC-SHA256, as http-interface §5.9
 * requires; the registry itself cannot sign), the hub as `npm start` runs it watching a real
 * dockerd, and an HTTP notification receiver on loopback.
 */
describe('registry push → registry webhook → notification, without a watch cycle', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let relay: SigningRelay;
  let receiver: NotificationReceiver;
  let hub: NodeHub;
  const ref = (repository: string, tag: string) => `${registry.host}/${repository}:${tag}`;

  /** A new build of the repository, tagged and pushed with the docker CLI. */
  async function publish(repository: string, tag: string): Promise<void> {
    await importBusyboxImage(dockerd.docker, {
      repository,
      tag: `build-${tag}`,
      cmd: ['sleep', '3600'],
      extraFile: { path: '/build', content: `${repository}:${tag}` },
    });
    for (const args of [
      ['tag', `${repository}:build-${tag}`, ref(repository, tag)],
      ['push', ref(repository, tag)],
    ]) {
      const result = await dockerd.cli(args);
      if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
    }
  }

  const tagListRequests = async (repository: string) =>
    (await readFile(registry.logFile, 'utf8'))
      .split('\n')
      .filter((line) => line.includes(`GET /v2/${repository}/tags/list`)).length;

  const metrics = async () => (await fetch(`${hub.url}/metrics`)).text();
  const metricValue = (text: string, series: string) => {
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  beforeAll(async () => {
    [dockerd, relay, receiver] = await Promise.all([
      startDockerd(),
      startSigningRelay(SECRET),
      startNotificationReceiver(),
    ]);
    registry = await startRegistry({
      variant: 'plain',
      notifications: [
        {
          name: 'hub',
          url: relay.url,
          timeout: '2s',
          threshold: 3,
          backoff: '250ms',
          // Blob pushes and pulls (the hub's own lookups among them) are not sent: only manifest pushes matter.
          ignoredmediatypes: ['application/octet-stream'],
          ignore: { actions: ['pull'] },
        },
      ],
    });
    await publish('test/app', '1.0.0');
    await publish('test/other', '1.0.0');
    await runContainer(dockerd.docker, { name: 'web', image: ref('test/app', '1.0.0') });
    // The opt-out label concerns the per-container action webhooks only; registry events still check it (http-interface §4.11).
    await runContainer(dockerd.docker, {
      name: 'api',
      image: ref('test/app', '1.0.0'),
      labels: { 'dd.webhook.enabled': 'false' },
    });
    await runContainer(dockerd.docker, { name: 'other', image: ref('test/other', '1.0.0') });
    hub = await startNodeHub({
      env: {
        DD_STORE_DRIVER: 'memory',
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
        DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
        // No scheduled cycle during the test: what arrives comes from the webhook.
        DD_WATCHER_LOCAL_CRON: '0 0 1 1 *',
        DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/simple`,
        DD_NOTIFICATION_HTTP_TEAM_URL: `${receiver.url}/batch`,
        DD_NOTIFICATION_HTTP_TEAM_MODE: 'batch',
        DD_SERVER_WEBHOOK_ENABLED: 'true',
        DD_SERVER_WEBHOOK_SECRET: SECRET,
      },
      sink: silentSink,
    });
    relay.target = `${hub.url}/api/v1/webhooks/registry`;
    // The one cycle of this test: the watcher's run shortly after start (the cron is yearly).
    await until(() => hub.hub.parts.fleet.all()[0]?.lastRunAt !== undefined, 30_000);
    await hub.hub.parts.notifications.outbox.settled();
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await Promise.all([dockerd?.stop(), registry?.stop(), relay?.close(), receiver?.close()]);
  });

  it('starts with every container up to date and nothing sent', async () => {
    const list = await (await fetch(`${hub.url}/api/v1/containers`)).json();
    expect(
      list.data.map((c: { name: string; updateAvailable: boolean }) => [c.name, c.updateAvailable]).sort(),
    ).toEqual([
      ['api', false],
      ['other', false],
      ['web', false],
    ]);
    expect(receiver.received).toEqual([]);
  });

  it('a push of a new tag notifies for every container of that repository, with no watch cycle run', async () => {
    const watcher = hub.hub.parts.fleet.all()[0];
    const lastCycle = watcher?.lastRunAt;
    const tagListsBefore = await tagListRequests('test/app');

    await publish('test/app', '1.1.0');
    const requests = await receiver.waitFor(3, 20_000);
    const delivered = (path: string) =>
      requests.filter((request) => request.path === `/hook/${path}`).map((request) => request.json as Delivered);

    expect(
      delivered('simple')
        .map((body) => [body.event, body.containers[0]?.name, body.containers[0]?.updateKind.remoteValue])
        .sort(),
    ).toEqual([
      ['update-available', 'api', '1.1.0'],
      ['update-available', 'web', '1.1.0'],
    ]);
    // The event's containers were checked in one observation: a batch trigger sends one message for both.
    expect(delivered('batch').map((body) => body.containers.map((c) => c.name).sort())).toEqual([['api', 'web']]);
    expect(watcher?.lastRunAt).toBe(lastCycle);
    // The registry's event, signed by the relay, answered 202 with what the hub dispatched.
    const [event] = await relay.waitFor(1, (relayed) => relayed.body.includes('"tag": "1.1.0"'));
    expect(event?.status).toBe(202);
    expect(event?.answer).toMatchObject({
      format: 'distribution',
      received: 1,
      matched: 2,
      dispatched: 2,
      unavailable: 0,
    });
    // Both containers share the repository: its tag list was asked once (fleet-wide deduplication).
    expect((await tagListRequests('test/app')) - tagListsBefore).toBe(1);
  });

  it('leaves containers of other repositories alone', async () => {
    const other = (await (await fetch(`${hub.url}/api/v1/containers`)).json()).data.find(
      (c: { name: string }) => c.name === 'other',
    );
    expect(other).toMatchObject({ updateAvailable: false });
    expect(receiver.received).toHaveLength(3);
  });

  it('/metrics shows the activity: webhooks, deliveries, containers, updates, cycles, registry requests, audit', async () => {
    await hub.hub.parts.notifications.outbox.settled();
    const text = await metrics();
    expect(metricValue(text, 'dd_webhook_total{action="registry"}')).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'dd_trigger_deliveries_total{trigger="http.ops",result="delivered"}')).toBe(2);
    expect(metricValue(text, 'dd_trigger_deliveries_total{trigger="http.team",result="delivered"}')).toBe(1);
    expect(metricValue(text, 'dd_containers{state="running"}')).toBe(3);
    expect(metricValue(text, 'dd_containers{state="exited"}')).toBe(0);
    expect(metricValue(text, 'dd_updates_available{kind="minor"}')).toBe(2);
    expect(metricValue(text, 'dd_updates_available{kind="major"}')).toBe(0);
    expect(metricValue(text, 'dd_notification_outbox_entries{status="dead-letter"}')).toBe(0);
    expect(
      metricValue(text, 'dd_watcher_runs_total{watcher="local",agent="__local__",result="success"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(text, 'dd_watcher_run_duration_seconds_count{watcher="local",agent="__local__"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, `dd_registry_requests_total{host="${registry.host}",status="200"}`)).toBeGreaterThan(0);
    expect(metricValue(text, 'dd_audit_entries_total{action="update-available"}')).toBe(2);
    expect(metricValue(text, 'dd_audit_entries_total{action="container-added"}')).toBe(3);
  });
});
