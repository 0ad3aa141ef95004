/**
 * Swarm watchers (docs/sources.md) on real components: a private dockerd made a swarm manager through
 * the Engine API, a plain registry with an app's 1.0.0 and 2.0.0, and the hub as `npm start` runs it
 * with DD_WATCHER_SW_TYPE=swarm. Before the swarm exists the watcher reports why and the hub serves on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { freePort } from '../support/docker/image-containers';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp } from '../support/docker/update-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

describe('swarm watcher', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let hub: HubOnDockerd;
  let from = '';

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    from = await publishApp(dockerd, registry, { repository: 'swarm/app', tag: '1.0.0', kind: 'sleep' });
    await publishApp(dockerd, registry, { repository: 'swarm/app', tag: '2.0.0', kind: 'sleep' });
    hub = await startHubOnDockerd(dockerd, {
      DD_WATCHER_SW_TYPE: 'swarm',
      DD_WATCHER_SW_SOCKET: dockerd.socketPath,
      DD_WATCHER_SW_JITTER: '0',
    });
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.docker.swarmLeave({ force: true }).catch(() => undefined);
    await dockerd?.stop();
    await registry?.stop();
  });

  const refresh = async () => {
    const response = await hub.api('/api/v1/watchers/swarm/sw/inventory', { method: 'POST' });
    return {
      status: response.status,
      body: (await response.json()) as { containers: Container[]; errors: { message: string }[] },
    };
  };

  it('is listed among the watcher types', async () => {
    const types = await hub.json<{ type: string; update: boolean }[] | { types: { type: string }[] }>(
      '/api/v1/watchers/types',
    );
    expect(JSON.stringify(types)).toContain('"swarm"');
  });

  it('on an Engine that is not a swarm manager reports so, and the hub serves on', async () => {
    const { body } = await refresh();
    expect(body.containers).toEqual([]);
    expect(body.errors.map((error) => error.message).join('\n')).toMatch(/swarm\.sw: .* is not a swarm manager/);
    expect((await hub.api('/api/v1/watchers/swarm/sw')).status).toBe(200);
    expect((await hub.api('/api/v1/containers')).status).toBe(200);
  });

  it('sees a replicated service with its unpinned image, and its update', async () => {
    const port = await freePort();
    await dockerd.docker.swarmInit({ ListenAddr: `127.0.0.1:${port}`, AdvertiseAddr: `127.0.0.1:${port}` });
    // The docker CLI, as people create services: it pins the image to the digest it resolved at the registry.
    const created = await dockerd.cli([
      'service',
      'create',
      '--detach',
      '--name',
      'web',
      '--replicas',
      '2',
      '--label',
      'dd.tag.include=^\\d+\\.\\d+\\.\\d+$',
      from,
    ]);
    expect(created.code).toBe(0);
    const service = dockerd.docker.getService('web');
    const pinned = ((await service.inspect()) as { Spec: { TaskTemplate: { ContainerSpec: { Image: string } } } }).Spec
      .TaskTemplate.ContainerSpec.Image;
    // Swarm pins the image it resolved at the registry; the record shows what the service asked for.
    expect(pinned).toMatch(new RegExp(`^${from.replace(/[.]/g, '\\.')}@sha256:[0-9a-f]{64}$`));

    // A global service is one record too, whatever its number of tasks.
    const global = await dockerd.cli([
      'service',
      'create',
      '--detach',
      '--name',
      'node-agent',
      '--mode',
      'global',
      from,
    ]);
    expect(global.code).toBe(0);

    const { body } = await refresh();
    expect(body.errors).toEqual([]);
    const seen = body.containers
      .map((c) => [c.name, c.image.name, c.image.tag.value, c.labels?.['dockwatch.swarm.mode']])
      .sort();
    expect(seen).toEqual([
      ['node-agent', expect.stringContaining('swarm/app'), '1.0.0', 'global'],
      ['web', expect.stringContaining('swarm/app'), '1.0.0', 'replicated'],
    ]);
    expect(body.containers[0]?.watcher).toBe('sw');

    const watched = await hub.api('/api/v1/containers/watch', { method: 'POST' });
    expect(watched.status).toBe(200);
    const containers = (await hub.json<{ data: Container[] }>('/api/v1/containers')).data;
    const web = containers.find((c) => c.name === 'web' && c.watcher === 'sw');
    expect({ updateAvailable: web?.updateAvailable, tag: web?.result?.tag }).toEqual({
      updateAvailable: true,
      tag: '2.0.0',
    });
    // Updates go through a Docker action trigger (swarm-updates.test.ts); without one, none is queued.
    const update = await hub.api(`/api/v1/containers/${web?.id}/update`, { method: 'POST' });
    expect({ status: update.status, body: await update.json() }).toMatchObject({
      status: 404,
      body: { details: { reason: 'no-action-trigger', watcher: 'sw' } },
    });
    // A service has no container actions of its own: refused, not a Docker failure.
    const actions: [string, string][] = [
      ['POST', 'stop'],
      ['GET', 'logs'],
      ['GET', 'stats'],
    ];
    for (const [method, path] of actions) {
      const refused = await hub.api(`/api/v1/containers/${web?.id}/${path}`, { method });
      expect({ path, status: refused.status, body: await refused.json() }).toMatchObject({
        path,
        status: 409,
        body: { details: { reason: 'no-container-actions', watcher: 'swarm.sw' } },
      });
    }
    const watcher = await hub.json<{ type: string; configuration: { endpoint: string } }>('/api/v1/watchers/swarm/sw');
    expect(watcher).toMatchObject({ type: 'swarm', configuration: { endpoint: `unix://${dockerd.socketPath}` } });
  }, 120_000);
});
