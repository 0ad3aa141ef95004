import { connectAsync } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMqttProvider } from '../../hub/src/adapter/node/notifications/mqtt';
import type {
  NotificationProviderHooks,
  NotificationTransport,
} from '../../hub/src/notifications/notification-provider';
import type { AuditRecord } from '../../shared/schemas/audit-entry';
import { startHomeAssistant } from '../support/notification-fixtures/home-assistant-subscriber';
import { startMqttBroker, type TestBroker } from '../support/notification-fixtures/mqtt-broker';
import {
  buildTransport,
  deliveryContext,
  deliveryError,
  expectNoSecrets,
  keyIssues,
  recordingLogger,
  sampleContainer,
  sampleMessage,
} from '../support/notification-fixtures/provider-harness';

const ACCOUNT = { user: 'dockwatch', password: 'mQtt-Pa55word' };

const web = sampleContainer();
const db = sampleContainer({
  id: 'db000000000000000000000000000000000000000000000000000000000000',
  name: 'db',
  displayName: 'Postgres',
  agent: 'nas',
  image: { ...web.image, name: 'library/postgres', tag: { value: '16', semver: true } },
  result: { tag: '16', digest: 'sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' },
  updateKind: {
    kind: 'digest',
    localValue: 'sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    remoteValue: 'sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  },
});
const cache = sampleContainer({
  id: 'cc00',
  name: 'cache',
  displayName: 'cache',
  updateAvailable: false,
  updateKind: { kind: 'unknown' },
});

/** Audit records as they arrive, awaitable one at a time. */
function auditRecorder() {
  const records: AuditRecord[] = [];
  const waiting: ((record: AuditRecord) => void)[] = [];
  return {
    records,
    audit: async (record: AuditRecord) => {
      records.push(record);
      waiting.shift()?.(record);
    },
    next: () => new Promise<AuditRecord>((resolve) => waiting.push(resolve)),
  };
}

describe('mqtt', () => {
  let broker: TestBroker;
  const opened: { close(): Promise<void> }[] = [];
  const open = <T extends { close(): Promise<void> }>(thing: T): T => {
    opened.push(thing);
    return thing;
  };
  beforeAll(async () => {
    broker = await startMqttBroker(ACCOUNT);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((thing) => thing.close()));
  });
  afterAll(() => broker.close());

  /** A plain MQTT client of the test, ended after the test. */
  const client = async () => {
    const connection = await connectAsync(broker.url, {
      username: ACCOUNT.user,
      password: ACCOUNT.password,
      reconnectPeriod: 0,
    });
    open({ close: () => connection.endAsync() });
    return connection;
  };

  const transportWith = (hooks: Partial<NotificationProviderHooks>, keys: Record<string, string> = {}) =>
    open(
      buildTransport(
        createMqttProvider({ logger: recordingLogger().logger, audit: async () => undefined, ...hooks }),
        { url: broker.url, user: ACCOUNT.user, password: ACCOUNT.password, ...keys },
        'home',
      ) as NotificationTransport & { close(): Promise<void> },
    );

  it('publishes each notification as an event and each container as retained state', async () => {
    const listener = await client();
    const received = new Map<string, { payload: unknown; retain: boolean }>();
    const arrived = new Promise<void>((resolve) => {
      listener.on('message', (topic, payload, packet) => {
        received.set(topic, { payload: JSON.parse(payload.toString()), retain: packet.retain });
        if (topic.startsWith('dockwatch/event/')) resolve();
      });
    });
    await listener.subscribeAsync(['dockwatch/event/#', 'dockwatch/container/#'], { qos: 1 });
    const transport = transportWith({}, { qos: '1' });
    await transport.send(sampleMessage({ containers: [web] }), deliveryContext());
    await arrived;
    expect(received.get('dockwatch/event/update-available')).toEqual({
      retain: false,
      payload: {
        event: 'update-available',
        kind: 'simple',
        title: 'New version for web',
        body: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
        containers: [{ id: web.id, name: 'web', watcher: 'local' }],
      },
    });
    expect(received.get('dockwatch/container/local_web')?.payload).toMatchObject({
      id: web.id,
      name: 'web',
      image: { tag: '1.25.3' },
    });
    expect(JSON.stringify(received.get('dockwatch/container/local_web'))).not.toContain('"env"');

    // Retained: a subscriber that comes later still gets the container's state.
    const late = await client();
    const retained = new Promise<boolean>((resolve) =>
      late.on('message', (_topic, _payload, packet) => resolve(packet.retain)),
    );
    await late.subscribeAsync('dockwatch/container/local_web');
    expect(await retained).toBe(true);
  });

  it('announces Home Assistant update entities; pressing Install starts the update and is audited', async () => {
    const home = open(await startHomeAssistant(broker.url, ACCOUNT));
    const installs: string[] = [];
    const audits = auditRecorder();
    const containers = [web, db, cache];
    transportWith(
      {
        audit: audits.audit,
        containers: async () => containers,
        onInstall: async (id) => {
          installs.push(id);
        },
      },
      { hass: 'true', topic: 'dw' },
    );
    await home.until(() => ['local_web', 'nas_local_db', 'local_cache'].every((id) => home.entities.get(id)?.state));
    expect(home.entities.get('local_web')?.config).toEqual({
      name: 'web',
      unique_id: 'dockwatch_local_web',
      state_topic: 'dw/update/local_web/state',
      command_topic: 'dw/update/local_web/install',
      payload_install: 'install',
      availability_topic: 'dw/status',
      device: {
        identifiers: ['dockwatch_dw'],
        name: 'dockwatch',
        manufacturer: 'dockwatch',
        model: 'container update monitor',
      },
      origin: { name: 'dockwatch' },
    });
    expect(home.entities.get('local_web')?.state).toEqual({
      installed_version: '1.25.3',
      latest_version: '1.25.4',
      title: 'web (library/nginx)',
      in_progress: false,
    });
    expect(home.entities.get('nas_local_db')?.state).toMatchObject({
      installed_version: '16@sha256:aaaaaaaaaaaa',
      latest_version: '16@sha256:bbbbbbbbbbbb',
    });
    expect(home.entities.get('local_cache')?.state).toMatchObject({
      installed_version: '1.25.3',
      latest_version: '1.25.3',
    });
    await home.until(() => home.availability.get('dw/status') === 'online');

    // Install: the hook gets the container id; the entity shows progress, then the re-created container.
    const audited = audits.next();
    containers[0] = sampleContainer({
      id: 'new-web-id',
      result: { tag: '1.25.4' },
      image: { ...web.image, tag: { value: '1.25.4', semver: true } },
      updateAvailable: false,
      updateKind: { kind: 'unknown' },
    });
    await home.pressInstall('local_web');
    expect(await audited).toEqual({
      action: 'mqtt-command-update',
      triggerName: 'mqtt.home',
      containerName: 'web',
      containerImage: 'docker.io/library/nginx:1.25.3',
      fromVersion: '1.25.3',
      toVersion: '1.25.4',
      status: 'success',
      details: 'update started from mqtt.home',
    });
    expect(installs).toEqual([web.id]);
    await home.until(() => home.entities.get('local_web')?.state?.installed_version === '1.25.4');
    expect(home.entities.get('local_web')?.state).toMatchObject({ latest_version: '1.25.4', in_progress: false });

    // No update to install: refused, audited, the hook not called.
    const refused = audits.next();
    await home.pressInstall('local_cache');
    expect(await refused).toMatchObject({
      containerName: 'cache',
      status: 'refused',
      details: 'no update is available',
    });
    expect(installs).toEqual([web.id]);
  });

  it('audits a failed update start', async () => {
    const home = open(await startHomeAssistant(broker.url, ACCOUNT));
    const audits = auditRecorder();
    transportWith(
      {
        audit: audits.audit,
        containers: async () => [web],
        onInstall: async () => Promise.reject(new Error('registry unreachable')),
      },
      { hass: 'true', topic: 'failing' },
    );
    await home.until(() => home.entities.get('local_web')?.config.state_topic === 'failing/update/local_web/state');
    const audited = audits.next();
    await home.pressInstall('local_web');
    expect(await audited).toMatchObject({
      action: 'mqtt-command-update',
      containerName: 'web',
      status: 'failed',
      details: 'registry unreachable',
    });
  });

  it('offers no Install button without an update hook, and refuses (audited) a command sent anyway', async () => {
    const home = open(await startHomeAssistant(broker.url, ACCOUNT));
    const audits = auditRecorder();
    transportWith({ audit: audits.audit, containers: async () => [web] }, { hass: 'true', topic: 'noinstall' });
    await home.until(() => home.entities.get('local_web')?.config.state_topic === 'noinstall/update/local_web/state');
    expect(home.entities.get('local_web')?.config.command_topic).toBeUndefined();
    const refused = audits.next();
    const manual = await client();
    await manual.publishAsync('noinstall/update/local_web/install', 'install', { qos: 1 });
    expect(await refused).toMatchObject({
      containerName: 'web',
      status: 'refused',
      details: 'this hub cannot start updates',
    });
  });

  it('ignores a retained install command, which would replay at every reconnection', async () => {
    const { logger, lines } = recordingLogger();
    const installs: string[] = [];
    const manual = await client();
    await manual.publishAsync('replay/update/local_web/install', 'install', { qos: 1, retain: true });
    const transport = transportWith(
      { logger, containers: async () => [web], onInstall: async (id) => void installs.push(id) },
      { hass: 'true', topic: 'replay' },
    );
    await transport.send(sampleMessage({ containers: [web] }), deliveryContext());
    const home = open(await startHomeAssistant(broker.url, ACCOUNT));
    await home.until(() => lines.some((line) => line.msg === 'ignored a retained install command'));
    expect(installs).toEqual([]);
    await manual.publishAsync('replay/update/local_web/install', '', { qos: 1, retain: true }); // clears it
  });

  it('announces everything again when Home Assistant comes online', async () => {
    const home = open(await startHomeAssistant(broker.url, ACCOUNT));
    transportWith({ containers: async () => [web, db] }, { hass: 'true', topic: 'birth' });
    await home.until(() => home.entities.get('nas_local_db')?.config.state_topic === 'birth/update/nas_local_db/state');
    const before = home.configsReceived;
    await home.announceOnline();
    await home.until(() => home.configsReceived >= before + 2);
  });

  it('marks itself offline on close', async () => {
    const home = open(await startHomeAssistant(broker.url, ACCOUNT));
    const transport = buildTransport(
      createMqttProvider({
        logger: recordingLogger().logger,
        audit: async () => undefined,
        containers: async () => [web],
      }),
      { url: broker.url, user: ACCOUNT.user, password: ACCOUNT.password, hass: 'true', topic: 'closing' },
    );
    await home.until(() => home.availability.get('closing/status') === 'online');
    await transport.close?.();
    await home.until(() => home.availability.get('closing/status') === 'offline');
  });

  it('fails a delivery it cannot make in time: retryable, naming the broker refusal, not the password', async () => {
    const wrong = 'Wr0ng-mqtt-pa55';
    const transport = open(
      buildTransport(
        createMqttProvider({ logger: recordingLogger().logger, audit: async () => undefined }),
        { url: broker.url, user: ACCOUNT.user, password: wrong },
        'home',
      ) as NotificationTransport & { close(): Promise<void> },
    );
    const error = await deliveryError(transport.send(sampleMessage(), deliveryContext(500)));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(
      /^mqtt\.home: not connected to the broker: Connection refused: Bad username or password/,
    );
    expectNoSecrets(error, [wrong, ACCOUNT.password]);
  });

  it('checks its keys', () => {
    const mqtt = createMqttProvider({ logger: recordingLogger().logger, audit: async () => undefined });
    expect(keyIssues(mqtt, {})).toEqual({ url: 'is required' });
    expect(keyIssues(mqtt, { url: 'http://broker:1883' })).toEqual({
      url: 'must be an mqtt://, mqtts://, ws:// or wss:// URL',
    });
    expect(keyIssues(mqtt, { url: 'mqtt://broker', topic: 'dock/#' })).toEqual({
      topic: 'must be a topic like dockwatch or home/dockwatch (no wildcards)',
    });
    expect(keyIssues(mqtt, { url: 'mqtt://broker', qos: '3' })).toEqual({ qos: 'must be one of 0, 1, 2' });
    expect(keyIssues(mqtt, { url: 'mqtt://broker', password: 'x' })).toEqual({ password: 'needs USER' });
    expect(mqtt.secretKeys).toEqual(['password']);
  });
});
