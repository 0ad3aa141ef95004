// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../shared/schemas/agent';
import { jsonInit } from '../../support/hub-harness';
import { cycle, notificationHub, record } from '../../support/notification-hub';
import { useNotificationBed } from '../support/notification-bed';

interface Delivered {
  event: string;
  kind: string;
  title: string;
  body: string;
  count: number;
  containers: { name: string; updateKind: { remoteValue?: string } }[];
}

const { receiver, track, forgetHubs } = useNotificationBed();
const bodies = (path?: string) =>
  receiver()
    .received.filter((request) => path === undefined || request.path === path)
    .map((request) => request.json as Delivered);

async function hubWith(env: Record<string, string>, options: Parameters<typeof notificationHub>[1] = {}) {
  return track(await notificationHub(env, options));
}

describe('notifications from watch cycles to a real HTTP receiver', () => {
  it('sends one message per new version (ONCE), remembered across a restart, and again for a newer version', async () => {
    const storage = createStorage();
    const env = { DD_NOTIFICATION_HTTP_OPS_URL: receiver().url };
    const hub = await hubWith(env, { storage });
    await cycle(hub, [record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' }), record('cache', undefined)]);
    expect(bodies()).toHaveLength(1);
    const [first] = bodies();
    expect(first).toMatchObject({
      event: 'update-available',
      kind: 'simple',
      title: 'New tag found for container web',
      count: 1,
      containers: [
        { name: 'web', updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' } },
      ],
    });
    expect(first?.body).toContain('can be updated to tag 2.0.0');
    // The webhook gets the notification view: never env or labels.
    expect(receiver().received[0]?.text).not.toContain('very-secret-env');
    expect(receiver().received[0]?.text).not.toContain('label-value');
    expect(receiver().received[0]?.headers['content-type']).toBe('application/json');

    await cycle(hub, [record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' })]);
    expect(bodies()).toHaveLength(1);

    await hub.close();
    forgetHubs();
    const again = await hubWith(env, { storage });
    await cycle(again, [record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' })]);
    expect(bodies()).toHaveLength(1);

    await cycle(again, [record('web', { from: '1.0.0', to: '3.0.0', diff: 'major' })]);
    expect(bodies()).toHaveLength(2);
    expect(bodies()[1]?.containers[0]?.updateKind.remoteValue).toBe('3.0.0');
  });

  it('renders templates from the public container: a sensitive env value reaches no message, batch or digest', async () => {
    for (const mode of ['simple', 'batch', 'digest']) {
      const hub = await hubWith({
        DD_NOTIFICATION_HTTP_OPS_URL: receiver().url,
        DD_NOTIFICATION_HTTP_OPS_MODE: mode,
        ...(mode === 'digest' && { DD_NOTIFICATION_HTTP_OPS_CRON: '0 9 * * *' }),
      });
      const template = 'token=${container.env[0].value} key=${container.env[0].key}';
      const patched = await hub.request(
        '/api/v1/notifications/update-available',
        jsonInit('PATCH', { templates: { 'http.ops': { simpleBody: template } } }),
      );
      expect(patched.status).toBe(200);
      await cycle(hub, [record(`web-${mode}`, { from: '1.0.0', to: '2.0.0', diff: 'major' })]);
      if (mode === 'digest') await hub.hub.parts.notifications.flushDigest('http.ops');
      await receiver().waitFor(1);
      const text = receiver()
        .received.map((request) => request.text)
        .join('\n');
      expect(text, mode).toContain('key=API_TOKEN');
      expect(text, mode).not.toContain('very-secret-env');
      receiver().received.length = 0;
    }
  });

  it('ONCE=false sends at every cycle that finds the update', async () => {
    const hub = await hubWith({ DD_NOTIFICATION_HTTP_OPS_URL: receiver().url, DD_NOTIFICATION_HTTP_OPS_ONCE: 'false' });
    for (let i = 0; i < 3; i++) await cycle(hub, [record('web', { from: '1.0.0', to: '2.0.0', diff: 'major' })]);
    expect(bodies()).toHaveLength(3);
  });

  it('batch mode sends one message per cycle, with ${containers.length} in its title', async () => {
    const hub = await hubWith({
      DD_NOTIFICATION_HTTP_OPS_URL: receiver().url,
      DD_NOTIFICATION_HTTP_OPS_MODE: 'batch',
      DD_NOTIFICATION_HTTP_OPS_BATCHTITLE: '${containers.length} new versions (${event})',
    });
    await cycle(hub, [
      record('a', { from: '1.0.0', to: '1.1.0', diff: 'minor' }),
      record('b', { from: '2.0.0', to: '2.0.1', diff: 'patch' }),
      record('c', { digest: 'sha256:bbbb' }),
      record('d', undefined),
    ]);
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toMatchObject({ kind: 'batch', title: '3 new versions (update-available)', count: 3 });
    expect(
      bodies()[0]
        ?.body.split('\n')
        .filter((line) => line.startsWith('- Container ')),
    ).toHaveLength(3);
    await cycle(hub, [
      record('a', { from: '1.0.0', to: '1.1.0', diff: 'minor' }),
      record('e', { from: '1', to: '2', diff: 'major' }),
    ]);
    expect(bodies()).toHaveLength(2);
    expect(bodies()[1]).toMatchObject({ title: '1 new versions (update-available)', containers: [{ name: 'e' }] });
  });

  it('filters by THRESHOLD', async () => {
    const hub = await hubWith({
      DD_NOTIFICATION_HTTP_MINOR_URL: `${receiver().url}/minor`,
      DD_NOTIFICATION_HTTP_MINOR_THRESHOLD: 'minor',
      DD_NOTIFICATION_HTTP_MAJORONLY_URL: `${receiver().url}/major-only`,
      DD_NOTIFICATION_HTTP_MAJORONLY_THRESHOLD: 'major-only',
      DD_NOTIFICATION_HTTP_DIGEST_URL: `${receiver().url}/digest`,
      DD_NOTIFICATION_HTTP_DIGEST_THRESHOLD: 'digest',
      DD_NOTIFICATION_HTTP_PATCHONLY_URL: `${receiver().url}/patch-only`,
      DD_NOTIFICATION_HTTP_PATCHONLY_THRESHOLD: 'patch-only',
    });
    await cycle(hub, [
      record('major', { from: '1.0.0', to: '2.0.0', diff: 'major' }),
      record('minor', { from: '1.0.0', to: '1.1.0', diff: 'minor' }),
      record('patch', { from: '1.0.0', to: '1.0.1', diff: 'patch' }),
      record('digest', { digest: 'sha256:cccc' }),
      record('named', { from: 'stable', to: 'edge' }),
    ]);
    const names = (path: string) => bodies(path).map((body) => body.containers[0]?.name);
    expect(names('/hook/minor').sort()).toEqual(['digest', 'minor', 'patch']);
    expect(names('/hook/major-only')).toEqual(['major']);
    expect(names('/hook/digest')).toEqual(['digest']);
    expect(names('/hook/patch-only')).toEqual(['patch']);
  });

  it('routes by dd.notification.include / exclude labels, and by the rule’s triggers and enabled', async () => {
    const hub = await hubWith({
      DD_NOTIFICATION_HTTP_A_URL: `${receiver().url}/a`,
      DD_NOTIFICATION_HTTP_B_URL: `${receiver().url}/b`,
    });
    const minor = { from: '1.0.0', to: '1.1.0', diff: 'minor' } as const;
    await cycle(hub, [
      record('only-a', minor, { labels: { 'dd.notification.include': 'http.a' } }),
      record('not-b', minor, { labels: { 'dd.notification.exclude': 'b' } }),
      record('b-major-only', minor, { labels: { 'dd.notification.include': 'b:major-only' } }),
      record('both', minor),
    ]);
    const names = (path: string) =>
      bodies(path)
        .map((body) => body.containers[0]?.name)
        .sort();
    expect(names('/hook/a')).toEqual(['both', 'not-b', 'only-a']);
    expect(names('/hook/b')).toEqual(['both']);

    receiver().received.length = 0;
    await hub.request('/api/v1/notifications/update-available', jsonInit('PATCH', { triggers: ['http.b'] }));
    await cycle(hub, [record('later', { from: '1', to: '2', diff: 'major' })]);
    expect(receiver().received.map((request) => request.path)).toEqual(['/hook/b']);

    await hub.request('/api/v1/notifications/update-available', jsonInit('PATCH', { enabled: false }));
    await cycle(hub, [record('silent', { from: '1', to: '2', diff: 'major' })]);
    expect(receiver().received).toHaveLength(1);
  });

  it('holds skipped, snoozed and maturity-held updates back, and announces maturity-cleared once when the gate lifts', async () => {
    const hub = await hubWith({ DD_NOTIFICATION_HTTP_OPS_URL: receiver().url });
    const pending = { from: '1.0.0', to: '2.0.0', diff: 'major' } as const;
    const mature = { maturityMode: 'mature' as const, maturityMinAgeDays: 7 };
    await cycle(hub, [
      record('skipped', pending, { blockers: [{ reason: 'skipped' }] }),
      record('snoozed', pending, { blockers: [{ reason: 'snoozed', liftableAt: '2030-01-01T00:00:00.000Z' }] }),
      record('held', pending, {
        updatePolicy: mature,
        blockers: [{ reason: 'maturity-not-reached', liftableAt: '2026-02-01T00:00:00.000Z' }],
      }),
    ]);
    expect(bodies()).toEqual([]);
    await cycle(hub, [record('held', pending, { updatePolicy: mature })]);
    expect(bodies().map((body) => [body.event, body.title])).toEqual([
      ['maturity-cleared', 'Update of container held is mature'],
    ]);
    // The version was told: the next cycles do not announce it again as update-available.
    await cycle(hub, [record('held', pending, { updatePolicy: mature })]);
    expect(bodies()).toHaveLength(1);
    const audit = await (await hub.request('/api/v1/audit?action=maturity-cleared')).json();
    expect(audit.data).toMatchObject([{ containerName: 'held', fromVersion: '1.0.0', toVersion: '2.0.0' }]);
  });

  it('announces a container turning unhealthy and agent connection changes once their rules are enabled', async () => {
    const hub = await hubWith({ DD_NOTIFICATION_HTTP_OPS_URL: receiver().url });
    await cycle(hub, [record('api', undefined, { health: 'healthy' })]);
    await cycle(hub, [record('api', undefined, { health: 'unhealthy' })]);
    expect(bodies()).toEqual([]);
    for (const id of ['container-unhealthy', 'agent-disconnect', 'agent-reconnect']) {
      await hub.request(`/api/v1/notifications/${id}`, jsonInit('PATCH', { enabled: true }));
    }
    await cycle(hub, [record('api', undefined, { health: 'healthy' })]);
    await cycle(hub, [record('api', undefined, { health: 'unhealthy' })]);
    const agent = { name: 'edge-1' } as Agent;
    const services = hub.hub.parts;
    services.agentEvents.emit({ event: 'agent-disconnect', agent, at: Date.now() });
    services.agentEvents.emit({ event: 'agent-reconnect', agent, at: Date.now() });
    await receiver().waitFor(3);
    await services.notifications.outbox.settled();
    expect(bodies().map((body) => [body.event, body.title, body.count])).toEqual([
      ['container-unhealthy', 'Container api is unhealthy', 1],
      ['agent-disconnect', 'Agent edge-1 disconnected', 0],
      ['agent-reconnect', 'Agent edge-1 reconnected', 0],
    ]);
  });

  it('the update-applied, update-failed and security-alert entry points audit and notify', async () => {
    const hub = await hubWith({
      DD_NOTIFICATION_HTTP_OPS_URL: receiver().url,
      DD_NOTIFICATION_HTTP_OPS_SIMPLETITLE: 'Ignored for other events: ${container.name}',
    });
    const notifications = hub.hub.parts.notifications;
    const web = record('web', undefined);
    await notifications.updateApplied({
      container: web,
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      triggerName: 'docker.local',
    });
    await notifications.updateFailed({ container: web, toVersion: '3.0.0', error: 'pull failed: manifest unknown' });
    await notifications.securityAlert({ container: web, critical: 2, high: 5 });
    await notifications.outbox.settled();
    expect(bodies().map((body) => [body.event, body.title, body.body])).toEqual([
      ['update-applied', 'Container web updated', 'Container web was updated from 1.0.0 to 2.0.0'],
      [
        'update-failed',
        'Update of container web failed',
        'The update of web to 3.0.0 failed: pull failed: manifest unknown',
      ],
      [
        'security-alert',
        'Security alert for container web',
        'Vulnerabilities in docker.io/library/nginx:1.27.0: 2 critical, 5 high',
      ],
    ]);
    const audit = await (await hub.request('/api/v1/audit?actions=update-applied,update-failed,security-alert')).json();
    expect(audit.data.map((entry: { action: string }) => entry.action).sort()).toEqual([
      'security-alert',
      'update-applied',
      'update-failed',
    ]);
  });

  it('digest mode collects and sends one batch per event when flushed', async () => {
    const hub = await hubWith({
      DD_NOTIFICATION_HTTP_OPS_URL: receiver().url,
      DD_NOTIFICATION_HTTP_OPS_MODE: 'digest',
    });
    await cycle(hub, [record('a', { from: '1', to: '2', diff: 'major' })]);
    await cycle(hub, [
      record('b', { from: '1', to: '2', diff: 'major' }),
      record('a', { from: '1', to: '2', diff: 'major' }),
    ]);
    expect(receiver().received).toEqual([]);
    const notifications = hub.hub.parts.notifications;
    await notifications.flushDigest('http.ops');
    await notifications.outbox.settled();
    expect(bodies()).toMatchObject([{ kind: 'batch', title: '2 updates available', count: 2 }]);
    await notifications.flushDigest('http.ops');
    await notifications.outbox.settled();
    expect(bodies()).toHaveLength(1);
  });
});

describe('update-available and approvals (docs/approvals.md)', () => {
  it('says in the default body that an update waits for approval, and nothing of it otherwise', async () => {
    const hub = await hubWith({ DD_NOTIFICATION_HTTP_OPS_URL: receiver().url });
    const gated = record(
      'gated',
      { from: '1.0.0', to: '2.0.0', diff: 'major' },
      {
        labels: { 'dd.update.approval': 'required' },
      },
    );
    const free = record('free', { from: '1.0.0', to: '2.0.0', diff: 'major' });
    // The hub observes approvals just before notifications in each cycle (compose-hub.ts); cycle() runs only the latter.
    await hub.hub.parts.approvals.inventoryApplied([
      { previous: undefined, next: gated },
      { previous: undefined, next: free },
    ]);
    await cycle(hub, [gated, free]);
    const [approval] = hub.hub.parts.approvals.list({ container: 'gated' });
    expect(approval?.state).toBe('pending');
    const byName = new Map(bodies().map((body) => [body.containers[0]?.name, body.body]));
    expect(byName.get('gated')).toContain(`Waits for approval ${approval?.id} (pending)`);
    expect(byName.get('free')).not.toContain('approval');
  });
});
