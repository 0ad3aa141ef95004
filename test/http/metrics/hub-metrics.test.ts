import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINER_STATES } from '../../../shared/docker/docker-host';
import { containerIdentity } from '../../../shared/update/update-clock';
import type { HubClient } from '../../support/hub-harness';
import { cycle, notificationHub, record } from '../../support/notification-hub';
import { type NotificationReceiver, startNotificationReceiver } from '../../support/notification-receiver';

/**
 * The `dd_*` series of http-interface §6.4 scraped from /metrics after activity: records applied the way a
 * watch cycle applies them (audit and notifications included), deliveries to a real receiver.
 * Against a real dockerd and registry: test/integration/registry-webhook-e2e.test.ts.
 */

async function scrape(hub: HubClient): Promise<Map<string, number>> {
  const text = await (await hub.request('/metrics')).text();
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('dd_* metrics after activity', () => {
  let receiver: NotificationReceiver;
  let hub: HubClient;

  beforeAll(async () => {
    receiver = await startNotificationReceiver();
    hub = await notificationHub({ DD_NOTIFICATION_HTTP_OPS_URL: receiver.url });
  });
  afterAll(async () => {
    await hub?.close();
    await receiver?.close();
  });

  it('containers by state and updates by kind, every label value present', async () => {
    await cycle(hub, [
      record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' }),
      record('api', { from: '1.0.0', to: '1.1.0', diff: 'minor' }, { status: 'exited' }),
      record('cache', { from: '7.0.0', to: '7.0.1', diff: 'patch' }),
      record('edge', { from: '1.0.0', to: '1.0.1-rc.1', diff: 'prerelease' }),
      record('proxy', { digest: 'sha256:bbbb' }, { status: 'paused' }),
      record('db', undefined),
    ]);
    const series = await scrape(hub);
    const states = Object.fromEntries(
      CONTAINER_STATES.map((state) => [state, series.get(`dd_containers{state="${state}"}`)]),
    );
    expect(states).toEqual({ created: 0, running: 4, paused: 1, restarting: 0, removing: 0, exited: 1, dead: 0 });
    const kinds = Object.fromEntries(
      ['major', 'minor', 'patch', 'digest', 'tag'].map((kind) => [
        kind,
        series.get(`dd_updates_available{kind="${kind}"}`),
      ]),
    );
    // A prerelease step counts as patch (the notification threshold's levels).
    expect(kinds).toEqual({ major: 1, minor: 1, patch: 2, digest: 1, tag: 0 });
    expect(series.get('dd_audit_entries_total{action="update-available"}')).toBe(5);
    expect(series.get('dd_audit_entries_total{action="container-added"}')).toBe(6);
    expect(series.get('dd_trigger_deliveries_total{trigger="http.ops",result="delivered"}')).toBe(5);
  });

  it('trigger deliveries by result: retrying, then dead-letter, and the outbox gauge', async () => {
    receiver.behave({ status: 500, body: 'down' });
    await cycle(hub, [record('worker', { from: '3.0.0', to: '4.0.0', diff: 'major' })], { settle: false });
    // FAST_RETRIES: three attempts, the last one dead-letters the entry.
    await until(async () => (await scrape(hub)).get('dd_notification_outbox_entries{status="dead-letter"}') === 1);
    const series = await scrape(hub);
    expect(series.get('dd_trigger_deliveries_total{trigger="http.ops",result="retrying"}')).toBe(2);
    expect(series.get('dd_trigger_deliveries_total{trigger="http.ops",result="dead-letter"}')).toBe(1);
    expect(series.get('dd_trigger_deliveries_total{trigger="http.ops",result="delivered"}')).toBe(5);
    expect(series.get('dd_notification_outbox_entries{status="pending"}')).toBe(0);
    expect(series.get('dd_audit_entries_total{action="notification-delivery-failed"}')).toBe(1);
  });

  it('dd_update_available_since_timestamp_seconds: each pending update from its stored update clock, none without one', async () => {
    const seen = Date.UTC(2026, 0, 10, 12, 0, 0);
    const web = record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' });
    // The clock a registry check stores for the pending version (shared/update/update-clock.ts).
    await hub.hub.parts.containers.setIdentityState(containerIdentity(web), {
      clock: { remoteValue: '2.0.0', updateDetectedAt: seen, firstSeenAt: seen },
    });
    await cycle(hub, [web, record('db', undefined)]);
    const series = await scrape(hub);
    expect(
      series.get(
        'dd_update_available_since_timestamp_seconds{container="web",watcher="local",agent="__local__",kind="major"}',
      ),
    ).toBe(seen / 1000);
    const pending = [...series.keys()].filter((key) => key.startsWith('dd_update_available_since_timestamp_seconds'));
    expect(pending).toHaveLength(1);
  });
});
