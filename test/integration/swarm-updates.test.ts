/**
 * Swarm service updates (docs/sources.md "Swarm services") on real components: a private dockerd made
 * a single-node swarm manager, a plain registry with an app's 1.0.0, 2.0.0 and an unhealthy 3.0.0,
 * and the hub as `npm start` runs it with a swarm watcher and a Docker action trigger. Updates go
 * through the same API, operations, audit and events as container updates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SwarmService, SwarmTask } from '../../shared/docker/swarm-engine';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { freePort } from '../support/docker/image-containers';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp } from '../support/docker/update-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const SETTLED = ['succeeded', 'rolled-back', 'failed'];
const post = { method: 'POST' };

describe('swarm service updates', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let hub: HubOnDockerd;
  let app = '';

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    const from = await publishApp(dockerd, registry, { repository: 'swarm/app', tag: '1.0.0', kind: 'sleep' });
    app = from.replace(/:1\.0\.0$/, '');
    await publishApp(dockerd, registry, { repository: 'swarm/app', tag: '2.0.0', kind: 'sleep' });
    const port = await freePort();
    await dockerd.docker.swarmInit({ ListenAddr: `127.0.0.1:${port}`, AdvertiseAddr: `127.0.0.1:${port}` });
    // As people create services with the CLI (which pins the image); a short Monitor keeps the test short.
    // `sleep` ignores SIGTERM: a short grace period keeps each task's replacement short.
    const common = [
      '--detach',
      '--stop-grace-period',
      '1s',
      '--update-monitor',
      '1s',
      '--rollback-monitor',
      '1s',
      '--update-delay',
      '0s',
    ];
    for (const args of [
      ['--name', 'web', '--replicas', '2', '--update-parallelism', '1', '--update-failure-action', 'rollback'],
      ['--name', 'node-agent', '--mode', 'global', '--update-failure-action', 'pause'],
    ]) {
      const created = await dockerd.cli(['service', 'create', ...common, ...args, from]);
      if (created.code !== 0) throw new Error(`docker service create: ${created.stderr}`);
    }
    hub = await startHubOnDockerd(dockerd, {
      DD_WATCHER_SW_TYPE: 'swarm',
      DD_WATCHER_SW_SOCKET: dockerd.socketPath,
      DD_WATCHER_SW_JITTER: '0',
      DD_ACTION_DOCKER_SWARM_WATCHER: 'sw',
      DD_ACTION_DOCKER_SWARM_HEALTHTIMEOUT: '20',
    });
    await waitFor(
      async () => (await runningImages('web')).length === 2 && (await runningImages('node-agent')).length === 1,
    );
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.docker.swarmLeave({ force: true }).catch(() => undefined);
    await dockerd?.stop();
    await registry?.stop();
  });

  async function waitFor(done: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const service = async (name: string) => (await dockerd.docker.getService(name).inspect()) as SwarmService;
  const specImage = async (name: string) => (await service(name)).Spec.TaskTemplate.ContainerSpec?.Image ?? '';
  /** The images of the service's running tasks. */
  async function runningImages(name: string): Promise<string[]> {
    const tasks = (await dockerd.docker.listTasks({
      filters: JSON.stringify({ service: [name], 'desired-state': ['running'] }),
    })) as SwarmTask[];
    return tasks
      .filter((task) => task.Status?.State === 'running')
      .map((task) => (task.Spec?.ContainerSpec?.Image ?? '').replace(/@sha256:.*$/, ''));
  }
  const audit = async (actions: string) =>
    (await hub.json<{ data: AuditEntry[] }>(`/api/v1/audit?actions=${actions}&limit=200`)).data;
  async function record(name: string): Promise<Container> {
    expect((await hub.api('/api/v1/containers/watch', post)).status).toBe(200);
    const found = (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find(
      (c) => c.name === name && c.watcher === 'sw',
    );
    if (!found) throw new Error(`no record of the service ${name}`);
    return found;
  }
  async function settled(id: string): Promise<UpdateOperation> {
    let current: UpdateOperation | undefined;
    await waitFor(async () => {
      current = await hub.json<UpdateOperation>(`/api/v1/update-operations/${id}`);
      return SETTLED.includes(current.status);
    }, 60_000);
    await hub.parts.updates.idle();
    return current as UpdateOperation;
  }
  async function request(path: string, init: RequestInit = post): Promise<string> {
    const response = await hub.api(path, init);
    const body = (await response.json()) as { operationId: string };
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body.operationId;
  }

  it('updates a replicated service of 2 tasks from 1.0.0 to 2.0.0 through ServiceUpdate', async () => {
    const web = await record('web');
    expect(web).toMatchObject({ updateAvailable: true, result: { tag: '2.0.0' } });
    const preview = await hub.json<{ canUpdate: boolean; phases: string[] }>(
      `/api/v1/containers/${web.id}/preview`,
      post,
    );
    expect(preview).toMatchObject({ canUpdate: true, phases: ['prepare', 'new-started', 'health-gate', 'succeeded'] });

    const operationId = await request(`/api/v1/containers/${web.id}/update`);
    const done = await settled(operationId);
    expect(done).toMatchObject({
      kind: 'update',
      status: 'succeeded',
      phase: 'succeeded',
      containerId: web.id,
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
    });
    expect(await specImage('web')).toBe(`${app}:2.0.0`);
    expect(await runningImages('web')).toEqual([`${app}:2.0.0`, `${app}:2.0.0`]);
    // The record is the same service, read again: it runs 2.0.0, nothing newer is pending.
    expect(await record('web')).toMatchObject({
      id: web.id,
      image: { tag: { value: '2.0.0' } },
      updateAvailable: false,
    });
    expect((await audit('update-applied'))[0]).toMatchObject({
      containerName: 'web',
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      triggerName: 'docker.swarm',
    });
    // Container-only actions stay refused.
    const stop = await hub.api(`/api/v1/containers/${web.id}/stop`, post);
    expect({ status: stop.status, body: await stop.json() }).toMatchObject({
      status: 409,
      body: { details: { reason: 'no-container-actions' } },
    });
  }, 60_000);

  it('rolls it back on request with rollback=previous: 1.0.0 again', async () => {
    const web = await record('web');
    const operationId = await request(`/api/v1/containers/${web.id}/rollback`, {
      method: 'POST',
      headers: { 'X-DD-Confirm-Action': 'container-rollback' },
    });
    const done = await settled(operationId);
    expect(done).toMatchObject({ kind: 'rollback', status: 'succeeded', fromVersion: '2.0.0', toVersion: '1.0.0' });
    expect(await specImage('web')).toMatch(new RegExp(`^${app.replace(/[.]/g, '\\.')}:1\\.0\\.0@sha256:`));
    await waitFor(async () => (await runningImages('web')).join() === `${app}:1.0.0,${app}:1.0.0`);
    expect((await audit('rollback'))[0]).toMatchObject({ containerName: 'web', status: 'succeeded' });
  }, 60_000);

  it('ends rolled back when the new tasks fail their healthcheck (FailureAction rollback, and pause on a global service)', async () => {
    await publishApp(dockerd, registry, { repository: 'swarm/app', tag: '3.0.0', kind: 'unhealthy' });
    const [web, agent] = [await record('web'), await record('node-agent')];
    expect([web.result?.tag, agent.result?.tag]).toEqual(['3.0.0', '3.0.0']);
    const ids = [
      await request(`/api/v1/containers/${web.id}/update`),
      await request(`/api/v1/containers/${agent.id}/update`),
    ];
    const [byManager, byHub] = await Promise.all(ids.map(settled));
    // web: the manager rolled back by itself; node-agent: paused, then the hub asked for rollback=previous.
    for (const done of [byManager, byHub]) {
      expect(done).toMatchObject({ kind: 'update', status: 'rolled-back', phase: 'rolled-back', toVersion: '3.0.0' });
    }
    expect(byManager?.rollbackReason).toMatch(/rolled .*back.*unhealthy container/);
    expect(byHub?.rollbackReason).toMatch(/paused.*unhealthy container/);
    expect(await specImage('web')).toMatch(/:1\.0\.0@sha256:/);
    expect(await specImage('node-agent')).toMatch(/:1\.0\.0@sha256:/);
    await waitFor(async () => (await runningImages('web')).join() === `${app}:1.0.0,${app}:1.0.0`);
    await waitFor(async () => (await runningImages('node-agent')).join() === `${app}:1.0.0`);
    const failed = await audit('update-failed');
    expect(failed.map((entry) => [entry.containerName, entry.status]).sort()).toEqual([
      ['node-agent', 'rolled-back'],
      ['web', 'rolled-back'],
    ]);
  }, 90_000);
});
