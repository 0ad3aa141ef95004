/**
 * Home Assistant's Install button starts a real container update, end to end: a dockerd,
 * a plain registry holding an image at 1.0.0 and 2.0.0, the hub in process on that dockerd with a
 * Docker action trigger and an mqtt trigger with HASS=true on an aedes broker, and a subscriber
 * that behaves like Home Assistant. What Docker did is checked with the test's own dockerode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp } from '../support/docker/update-images';
import {
  type HomeAssistantSubscriber,
  startHomeAssistant,
} from '../support/notification-fixtures/home-assistant-subscriber';
import { startMqttBroker, type TestBroker } from '../support/notification-fixtures/mqtt-broker';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const ACCOUNT = { user: 'dockwatch', password: 'mQtt-e2e-Pa55word' };
const SETTLED = ['succeeded', 'rolled-back', 'failed'];

describe('the Home Assistant Install button over mqtt updates a real container', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let broker: TestBroker;
  let hub: HubOnDockerd;
  let homeAssistant: HomeAssistantSubscriber;

  beforeAll(async () => {
    [dockerd, registry, broker] = await Promise.all([
      startDockerd(),
      startRegistry({ variant: 'plain' }),
      startMqttBroker(ACCOUNT),
    ]);
    hub = await startHubOnDockerd(
      dockerd,
      {
        DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
        DD_NOTIFICATION_MQTT_HOME_URL: broker.url,
        DD_NOTIFICATION_MQTT_HOME_USER: ACCOUNT.user,
        DD_NOTIFICATION_MQTT_HOME_PASSWORD: ACCOUNT.password,
        DD_NOTIFICATION_MQTT_HOME_HASS: 'true',
      },
      { updates: { timing: { pollMs: 100, startSettleMs: 500 } } },
    );
    homeAssistant = await startHomeAssistant(broker.url, ACCOUNT);
  }, 120_000);

  afterAll(async () => {
    await homeAssistant?.close();
    await hub?.close();
    await dockerd?.stop();
    await Promise.all([registry?.stop(), broker?.close()]);
  });

  it('offers 1.0.0 → 2.0.0 as an update entity; Install runs 2.0.0 under the same name, audited and succeeded', async () => {
    const from = await publishApp(dockerd, registry, { repository: 'ha/web', tag: '1.0.0', kind: 'http' });
    await publishApp(dockerd, registry, { repository: 'ha/web', tag: '2.0.0', kind: 'http' });
    await pullApp(dockerd, from);
    const created = await dockerd.docker.createContainer({
      name: 'web',
      Image: from,
      Labels: { 'dd.watch': 'true' },
      StopTimeout: 2,
      NetworkDisabled: true,
      HostConfig: { Init: true, NetworkMode: 'none' },
    });
    await created.start();
    const oldId = created.id;

    // A watch cycle finds 2.0.0; the update-available notification publishes the entity.
    expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
    const web = (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === 'web');
    expect(web).toMatchObject({ id: oldId, updateAvailable: true, updateKind: { kind: 'tag', remoteValue: '2.0.0' } });

    const entityOf = () =>
      [...homeAssistant.entities.values()].find((entity) => entity.config.name === web?.displayName);
    await homeAssistant.until(() => entityOf()?.state?.latest_version === '2.0.0', 15_000);
    const entity = entityOf();
    expect(entity?.state).toMatchObject({ installed_version: '1.0.0', latest_version: '2.0.0', in_progress: false });
    expect(entity?.config).toMatchObject({
      command_topic: `dockwatch/update/${entity?.objectId}/install`,
      payload_install: 'install',
    });

    // The hub marks the entity in progress while it starts the update.
    const sawInProgress = homeAssistant.until(() => entityOf()?.state?.in_progress === true, 20_000);
    await homeAssistant.pressInstall(entity?.objectId as string);
    await sawInProgress;

    // The update re-creates the container; the entity (keyed by name, not Docker id) follows it.
    const deadline = Date.now() + 40_000;
    let operations: UpdateOperation[] = [];
    let newId = '';
    for (;;) {
      const info = await dockerd.docker
        .getContainer('web')
        .inspect()
        .catch(() => undefined);
      if (info && info.Id !== oldId) {
        newId = info.Id;
        operations =
          (await hub.json<{ data: UpdateOperation[] }>(`/api/v1/containers/${newId}/update-operations`)).data ?? [];
        if (operations.some((op) => SETTLED.includes(op.status))) break;
      }
      if (Date.now() > deadline) throw new Error(`no settled update of web: ${JSON.stringify(operations)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const fresh = await dockerd.docker.getContainer('web').inspect();
    expect(fresh.Id).not.toBe(oldId);
    expect(fresh.Config.Image).toBe(`${registry.host}/ha/web:2.0.0`);
    expect(fresh.State.Running).toBe(true);
    expect(operations).toHaveLength(1);
    expect(operations[0]).toMatchObject({
      containerName: 'web',
      containerId: oldId,
      newContainerId: newId,
      kind: 'update',
      source: 'mqtt',
      status: 'succeeded',
      triggerName: 'docker.update',
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
    });

    const audit = async (action: string) =>
      (await hub.json<{ data: AuditEntry[] }>(`/api/v1/audit?actions=${action}&limit=50`)).data;
    expect(await audit('mqtt-command-update')).toEqual([
      expect.objectContaining({
        action: 'mqtt-command-update',
        triggerName: 'mqtt.home',
        containerName: 'web',
        fromVersion: '1.0.0',
        toVersion: '2.0.0',
        status: 'success',
      }),
    ]);
    expect((await audit('container-update'))[0]).toMatchObject({
      containerName: 'web',
      status: 'queued',
      details: expect.stringContaining('(mqtt)'),
    });

    // Home Assistant ends up seeing 2.0.0 installed and nothing newer.
    await homeAssistant.until(
      () => entityOf()?.state?.installed_version === '2.0.0' && entityOf()?.state?.in_progress === false,
      15_000,
    );
    expect(entityOf()?.state).toMatchObject({ installed_version: '2.0.0', latest_version: '2.0.0' });
    expect(hub.logged.join('\n')).not.toContain(ACCOUNT.password);
  }, 60_000);
});
