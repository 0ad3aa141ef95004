// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeHub, startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

interface Delivered {
  event: string;
  kind: string;
  title: string;
  count: number;
  containers: { name: string; updateKind: { remoteValue: string } }[];
}

/**
 * Notifications end to end on real components: a dockerd running containers from images pushed
 * to a real registry, the hub as `npm start` runs it (file storage) watching that dockerd, and a
 * webhook receiver on loopback. A watch cycle that finds a new version sends exactly one message
 * per trigger, and ONCE holds across cycles and across a restart of the hub.
 */
describe('notifications from a real watch cycle to a real webhook receiver', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let receiver: NotificationReceiver;
  let dataDir: string;
  let hub: NodeHub;
  const ref = (tag: string) => `${registry.host}/test/notify:${tag}`;

  async function publish(tag: string): Promise<void> {
    await importBusyboxImage(dockerd.docker, {
      repository: 'test/notify',
      tag: `build-${tag}`,
      cmd: ['sleep', '3600'],
      extraFile: { path: '/build', content: tag },
    });
    for (const args of [
      ['tag', `test/notify:build-${tag}`, ref(tag)],
      ['push', ref(tag)],
    ]) {
      const result = await dockerd.cli(args);
      if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
    }
  }

  const startHub = () =>
    startNodeHub({
      env: {
        DD_STORE_PATH: dataDir,
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
        DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
        DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/simple`,
        DD_NOTIFICATION_HTTP_TEAM_URL: `${receiver.url}/batch`,
        DD_NOTIFICATION_HTTP_TEAM_MODE: 'batch',
        DD_NOTIFICATION_HTTP_TEAM_BATCHTITLE: '${containers.length} containers can be updated',
      },
      sink: silentSink,
    });

  /** A full watch cycle through the API, then every delivery it caused finished. */
  async function watchAll(): Promise<void> {
    const response = await fetch(`${hub.url}/api/v1/containers/watch`, { method: 'POST' });
    expect(response.status).toBe(200);
    await hub.hub.parts.notifications.outbox.settled();
  }

  const delivered = (path: string) =>
    receiver.received.filter((request) => request.path === `/hook/${path}`).map((request) => request.json as Delivered);

  beforeAll(async () => {
    [dockerd, registry, receiver] = await Promise.all([
      startDockerd(),
      startRegistry({ variant: 'plain' }),
      startNotificationReceiver(),
    ]);
    dataDir = await mkdtemp(join(tmpdir(), 'hub-notify-'));
    await publish('1.0.0');
    await runContainer(dockerd.docker, { name: 'web', image: ref('1.0.0') });
    await runContainer(dockerd.docker, { name: 'api', image: ref('1.0.0') });
    hub = await startHub();
    await watchAll();
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await Promise.all([dockerd?.stop(), registry?.stop(), receiver?.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sends nothing while every container is up to date', () => {
    expect(receiver.received).toEqual([]);
  });

  it('a cycle that finds a new version sends one message per container (simple) and one per cycle (batch)', async () => {
    await publish('1.1.0');
    await watchAll();
    expect(
      delivered('simple')
        .map((body) => [body.event, body.title, body.containers[0]?.updateKind.remoteValue])
        .sort(),
    ).toEqual([
      ['update-available', 'New tag found for container api', '1.1.0'],
      ['update-available', 'New tag found for container web', '1.1.0'],
    ]);
    expect(delivered('batch')).toEqual([
      expect.objectContaining({ kind: 'batch', title: '2 containers can be updated', count: 2 }),
    ]);
  });

  it('the next cycle sends nothing (ONCE)', async () => {
    await watchAll();
    expect(receiver.received).toHaveLength(3);
  });

  it('nor does a cycle after a restart of the hub, from its file storage', async () => {
    await hub.close();
    hub = await startHub();
    await watchAll();
    expect(receiver.received).toHaveLength(3);
  });

  it('a newer version is announced again', async () => {
    await publish('1.2.0');
    await watchAll();
    expect(receiver.received).toHaveLength(6);
    expect(
      delivered('simple')
        .slice(2)
        .map((body) => body.containers[0]?.updateKind.remoteValue),
    ).toEqual(['1.2.0', '1.2.0']);
    expect(delivered('batch')[1]).toMatchObject({
      count: 2,
      containers: [{ updateKind: { remoteValue: '1.2.0' } }, { updateKind: { remoteValue: '1.2.0' } }],
    });
  });
});
