/**
 * Container updates through the hub (docs/updates.md), end to end on real components: a dockerd, a plain
 * registry and a basic-auth one that the images are pushed to, and the hub as `npm start` runs it
 * with a Docker action trigger. What Docker did is checked with the test's own dockerode.
 */
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import { TEMPORARY_NAME, type UpdateOperation } from '../../shared/update-engine';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { type AppKind, publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { expectJsonError } from '../support/hub-harness';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { dataOf, openSse } from '../support/sse-client';

const post = { method: 'POST' };
const SETTLED = ['succeeded', 'rolled-back', 'failed'];

describe('container updates through the hub on a real Docker Engine and registry', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let privateRegistry: TestRegistry;
  let docker: Docker;
  let hub: HubOnDockerd;
  /** Operations held at a phase (by container name) until released: queues and cancels are tested with them. */
  const holds = new Map<
    string,
    { phase: string; released: Promise<void>; release: () => void; reached: () => void; seen: Promise<void> }
  >();

  function hold(containerName: string, phase: string) {
    let release: () => void = () => undefined;
    let reached: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const entry = { phase, released, release, reached, seen };
    holds.set(containerName, entry);
    return entry;
  }

  const audit = async (actions: string) =>
    (await hub.json<{ data: AuditEntry[] }>(`/api/v1/audit?actions=${actions}&limit=200`)).data;
  const operation = (id: string) =>
    hub.json<UpdateOperation & { queuePosition?: number; queueTotal?: number }>(`/api/v1/update-operations/${id}`);
  const byName = async (name: string): Promise<Container | undefined> =>
    (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);

  async function settled(id: string, timeoutMs = 60_000): Promise<UpdateOperation> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await operation(id);
      if (SETTLED.includes(current.status)) {
        // Its follow-ups (inventory, audit, notifications) end just after the status is written.
        await hub.parts.updates.idle();
        return current;
      }
      if (Date.now() > deadline) throw new Error(`operation ${id} still ${current.status}/${current.phase}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function requestUpdate(containerId: string): Promise<string> {
    const response = await hub.api(`/api/v1/containers/${containerId}/update`, post);
    const body = (await response.json()) as { operationId: string; message: string; error?: string };
    if (response.status !== 202) throw new Error(`update ${response.status}: ${JSON.stringify(body)}`);
    return body.operationId;
  }

  const published = new Map<string, string>();
  async function image(
    repository: string,
    tag: string,
    kind: AppKind,
    target: TestRegistry = registry,
  ): Promise<string> {
    const key = `${target.host}/${repository}:${tag}`;
    let reference = published.get(key);
    if (!reference) {
      reference = await publishApp(dockerd, target, { repository, tag, kind });
      published.set(key, reference);
    }
    return reference;
  }

  /** A watched container of `repository:1.0.0` (kind), with 2.0.0 published, checked by a watch cycle. */
  async function runApp(
    name: string,
    repository: string,
    kinds: { from: AppKind; to: AppKind },
    labels: Record<string, string> = {},
  ) {
    const from = await image(repository, '1.0.0', kinds.from);
    await image(repository, '2.0.0', kinds.to);
    await pullApp(dockerd, from);
    return startWatchedApp(dockerd, name, from, labels);
  }

  async function watch(): Promise<void> {
    const response = await hub.api('/api/v1/containers/watch', post);
    expect(response.status).toBe(200);
  }

  const names = async () => (await docker.listContainers({ all: true })).map((c) => c.Names[0]?.slice(1) ?? '');

  beforeAll(async () => {
    [dockerd, registry, privateRegistry] = await Promise.all([
      startDockerd(),
      startRegistry({ variant: 'plain' }),
      startRegistry({ variant: 'basic', users: { alice: 'wonder-land' } }),
    ]);
    docker = dockerd.docker;
    hub = await startHubOnDockerd(
      dockerd,
      {
        DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '2',
        DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
        DD_ACTION_DOCKER_UPDATE_PRUNE: 'true',
        // Chosen by containers labelled dd.action.include=lean: no backups, old images pruned.
        DD_ACTION_DOCKER_LEAN_BACKUPCOUNT: '0',
        DD_ACTION_DOCKER_LEAN_PRUNE: 'true',
        DD_REGISTRY_CUSTOM_PRIVATE_URL: privateRegistry.url,
        DD_REGISTRY_CUSTOM_PRIVATE_LOGIN: 'alice',
        DD_REGISTRY_CUSTOM_PRIVATE_PASSWORD: 'wonder-land',
      },
      {
        updates: {
          timing: { pollMs: 100, startSettleMs: 500 },
          autoRollbackPollMs: 200,
          afterSave: async (op) => {
            const held = holds.get(op.containerName);
            if (held && held.phase === op.phase && op.status !== 'queued') {
              held.reached();
              await held.released;
            }
          },
        },
      },
    );
  }, 120_000);

  afterAll(async () => {
    for (const held of holds.values()) held.release();
    await hub?.close();
    await dockerd?.stop();
    await Promise.all([registry?.stop(), privateRegistry?.stop()]);
  });

  it('lists the docker action trigger among the triggers', async () => {
    const triggers = await hub.json<{ data: { id: string; type: string; configuration: Record<string, unknown> }[] }>(
      '/api/v1/triggers',
    );
    expect(triggers.data).toContainEqual({
      id: 'docker.update',
      type: 'docker',
      name: 'update',
      configuration: { backupcount: 2, prune: true, healthtimeout: 15, auto: false },
    });
  });

  it('updates 1.0.0 to 2.0.0: 202, every phase on the UI stream, the new container in the inventory, a backup, the audit', async () => {
    const oldId = await runApp('web', 'hub/web', { from: 'healthy', to: 'healthy' });
    await watch();
    expect(await byName('web')).toMatchObject({
      id: oldId,
      updateAvailable: true,
      updateKind: { kind: 'tag', remoteValue: '2.0.0' },
    });
    const stream = await openSse(hub.api, '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');

    const response = await hub.api(`/api/v1/containers/${oldId}/update`, post);
    expect(response.status).toBe(202);
    const { operationId, message } = (await response.json()) as { operationId: string; message: string };
    expect(message).toContain('2.0.0');

    const changes: Record<string, unknown>[] = [];
    for (;;) {
      const event = await stream.next(30_000);
      if (event.event === 'dd:update-operation-changed') changes.push(dataOf(event) as Record<string, unknown>);
      if (event.event === 'dd:update-applied') {
        const applied = dataOf(event) as Record<string, unknown>;
        expect(applied).toMatchObject({ containerName: 'web', containerId: oldId, operationId, batchId: null });
        expect(applied['newContainerId']).not.toBe(oldId);
        break;
      }
    }
    await stream.close();
    const phases = changes
      .filter((change) => change['operationId'] === operationId)
      .map((change) => `${change['status']}:${change['phase']}`);
    expect(phases).toEqual(
      expect.arrayContaining([
        'queued:prepare',
        'in-progress:prepare',
        'in-progress:renamed',
        'in-progress:new-created',
        'in-progress:old-stopped',
        'in-progress:new-started',
        'in-progress:health-gate',
        'in-progress:health-gate-passed',
        'succeeded:succeeded',
      ]),
    );
    expect(changes[0]).toMatchObject({
      containerName: 'web',
      triggerName: 'docker.update',
      queuePosition: expect.any(Number),
    });

    const done = await operation(operationId);
    expect(done).toMatchObject({
      id: operationId,
      containerName: 'web',
      containerId: oldId,
      status: 'succeeded',
      phase: 'succeeded',
      triggerName: 'docker.update',
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      targetImage: `${registry.host}/hub/web:2.0.0`,
    });
    expect(done).not.toHaveProperty('spec');
    expect(done).not.toHaveProperty('tempName');
    const fresh = await docker.getContainer('web').inspect();
    expect(fresh.Id).toBe(done.newContainerId);
    expect(fresh.Config.Image).toBe(`${registry.host}/hub/web:2.0.0`);
    expect(fresh.State.Running).toBe(true);
    // Created without networking (the test bed's containers are): re-created so, not with a network stack.
    expect((fresh.Config as { NetworkDisabled?: boolean }).NetworkDisabled).toBe(true);

    // The inventory follows: the old record is gone, the new one checked (nothing newer than 2.0.0).
    await expectJsonError(await hub.api(`/api/v1/containers/${oldId}`), 404);
    expect(await byName('web')).toMatchObject({
      id: fresh.Id,
      image: { tag: { value: '2.0.0' } },
      updateAvailable: false,
    });
    const history = await hub.json<{ data: UpdateOperation[]; total: number }>(
      `/api/v1/containers/${fresh.Id}/update-operations`,
    );
    expect(history).toMatchObject({ total: 1, data: [{ id: operationId }], hasMore: false });

    const backups = await hub.json<{ data: Record<string, unknown>[]; total: number }>(
      `/api/v1/containers/${fresh.Id}/backups`,
    );
    expect(backups.total).toBe(1);
    expect(backups.data[0]).toMatchObject({
      containerId: oldId,
      containerName: 'web',
      imageName: `${registry.host}/hub/web`,
      imageTag: '1.0.0',
      triggerName: 'docker.update',
      imageDigest: expect.stringMatching(/^sha256:/),
    });
    expect(backups.data[0]).not.toHaveProperty('spec');
    expect((await hub.json<{ total: number }>('/api/v1/containers/backups?containerName=web')).total).toBe(1);
    expect((await hub.json<{ total: number }>('/api/v1/containers/backups?containerName=nothing')).total).toBe(0);

    expect((await audit('container-update'))[0]).toMatchObject({
      containerName: 'web',
      status: 'queued',
      triggerName: 'docker.update',
    });
    expect((await audit('update-applied'))[0]).toMatchObject({
      containerName: 'web',
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      triggerName: 'docker.update',
      details: operationId,
    });
    expect((await names()).filter((name) => TEMPORARY_NAME.test(name))).toEqual([]);
  });

  it('rolls back to the backup with the confirmation header: the container runs 1.0.0 again', async () => {
    const current = (await byName('web')) as Container;
    await expectJsonError(await hub.api(`/api/v1/containers/${current.id}/rollback`, post), 428);
    await expectJsonError(
      await hub.api(`/api/v1/containers/${current.id}/rollback`, {
        method: 'POST',
        headers: { 'X-DD-Confirm-Action': 'container-rollback', 'content-type': 'application/json' },
        body: JSON.stringify({ backupId: 'no-such-backup' }),
      }),
      404,
    );
    const response = await hub.api(`/api/v1/containers/${current.id}/rollback`, {
      method: 'POST',
      headers: { 'X-DD-Confirm-Action': 'container-rollback' },
    });
    expect(response.status).toBe(200);
    const { operationId } = (await response.json()) as { operationId: string };
    const done = await settled(operationId);
    expect(done).toMatchObject({ kind: 'rollback', status: 'succeeded', fromVersion: '2.0.0', toVersion: '1.0.0' });
    const restored = await docker.getContainer('web').inspect();
    expect(restored.Config.Image).toBe(`${registry.host}/hub/web:1.0.0`);
    expect(restored.State.Running).toBe(true);
    expect((await audit('rollback'))[0]).toMatchObject({ containerName: 'web', status: 'succeeded' });
    // The rollback kept a backup of what it replaced (2.0.0), next to the older one.
    const backups = await hub.json<{ data: { imageTag: string }[] }>(`/api/v1/containers/${restored.Id}/backups`);
    expect(backups.data.map((backup) => backup.imageTag)).toEqual(['2.0.0', '1.0.0']);
  });

  it('rolls back an image whose healthcheck fails, tells the UI stream why, and audits update-failed', async () => {
    const oldId = await runApp('checked', 'hub/checked', { from: 'healthy', to: 'unhealthy' });
    await watch();
    const stream = await openSse(hub.api, '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');
    const operationId = await requestUpdate(oldId);
    const failed = dataOf(await stream.nextOfType('dd:update-failed', 30_000));
    await stream.close();
    expect(failed).toEqual({
      containerName: 'checked',
      // Which container of that name: a local one has its watcher and no agent (issue 32, bug 3).
      agent: null,
      watcher: 'local',
      error: 'the new container reported unhealthy',
      operationId,
      batchId: null,
      phase: 'rolled-back',
      rollbackReason: 'the new container reported unhealthy',
    });
    expect(await operation(operationId)).toMatchObject({
      status: 'rolled-back',
      rollbackReason: 'the new container reported unhealthy',
    });
    const old = await docker.getContainer('checked').inspect();
    expect(old.Id).toBe(oldId);
    expect(old.State.Running).toBe(true);
    expect((await names()).filter((name) => name.startsWith('checked'))).toEqual(['checked']);
    expect((await audit('update-failed'))[0]).toMatchObject({
      containerName: 'checked',
      status: 'rolled-back',
      toVersion: '2.0.0',
    });
    // Still running the old version, so the update is still pending.
    expect(await byName('checked')).toMatchObject({ id: oldId, updateAvailable: true });
  });

  it('answers 404 for an unknown or replaced container, 409 for a temporary -old- container and while busy, 400 without an update', async () => {
    await expectJsonError(await hub.api('/api/v1/containers/nope/update', post), 404);
    const oldId = await runApp('busy', 'hub/busy', { from: 'http', to: 'http' });
    const temp = await docker.createContainer({
      name: `busy-old-${Date.now()}`,
      Image: `${registry.host}/hub/busy:1.0.0`,
      Labels: { 'dd.watch': 'true' },
      NetworkDisabled: true,
      HostConfig: { NetworkMode: 'none', Init: true },
    });
    await temp.start();
    await watch();
    const tempBody = await expectJsonError(await hub.api(`/api/v1/containers/${temp.id}/update`, post), 409);
    expect(tempBody.details).toMatchObject({ reason: 'rollback-container' });

    const held = hold('busy', 'new-created');
    const operationId = await requestUpdate(oldId);
    await held.seen;
    const busy = await expectJsonError(await hub.api(`/api/v1/containers/${oldId}/update`, post), 409);
    expect(busy.details).toMatchObject({ reason: 'in-progress', operationId });
    held.release();
    expect((await settled(operationId)).status).toBe('succeeded');
    // The id the update replaced is gone from the inventory; the new container has nothing newer.
    await expectJsonError(await hub.api(`/api/v1/containers/${oldId}/update`, post), 404);
    const updated = (await byName('busy')) as Container;
    const none = await expectJsonError(await hub.api(`/api/v1/containers/${updated.id}/update`, post), 400);
    expect(none.details).toMatchObject({ reason: 'no-update-available' });
    await temp.remove({ force: true });
  });

  it('runs one update per compose project at a time, shows the queue, cancels a queued one and one in progress', async () => {
    const project = { 'com.docker.compose.project': 'stack' };
    const a = await runApp('stack-a', 'hub/stack', { from: 'http', to: 'http' }, project);
    const b = await runApp('stack-b', 'hub/stack', { from: 'http', to: 'http' }, project);
    await watch();
    const held = hold('stack-a', 'new-created');
    const first = await requestUpdate(a);
    await held.seen;
    const second = await requestUpdate(b);
    expect(await operation(second)).toMatchObject({
      status: 'queued',
      phase: 'prepare',
      queuePosition: 1,
      queueTotal: 2,
    });
    expect(await operation(first)).toMatchObject({
      status: 'in-progress',
      phase: 'new-created',
      queuePosition: 0,
      queueTotal: 2,
    });

    const cancelled = await hub.json<{ message: string; operation: UpdateOperation }>(
      `/api/v1/operations/${second}/cancel`,
      post,
    );
    expect(cancelled.operation).toMatchObject({ id: second, status: 'failed', phase: 'prepare' });
    expect(cancelled.operation.lastError).toBe(
      'cancelled by an anonymous caller before it started; nothing was changed',
    );
    await expectJsonError(await hub.api(`/api/v1/operations/${second}/cancel`, post), 409);
    await expectJsonError(await hub.api('/api/v1/operations/nope/cancel', post), 404);
    expect((await docker.getContainer(b).inspect()).State.Running).toBe(true);

    // Cancel the one in progress: it rolls back at its next phase boundary.
    const requested = await hub.json<{ message: string }>(`/api/v1/operations/${first}/cancel`, post);
    expect(requested.message).toContain('next phase boundary');
    held.release();
    expect(await settled(first)).toMatchObject({
      status: 'rolled-back',
      rollbackReason: 'cancelled by an anonymous caller',
    });
    expect((await docker.getContainer('stack-a').inspect()).Id).toBe(a);
    const entries = await audit('container-update');
    expect(
      entries
        .filter((entry) => entry.status === 'cancelled')
        .map((entry) => entry.containerName)
        .sort(),
    ).toEqual(['stack-a', 'stack-b']);
    // Neither cancel is a failure to notify.
    expect((await audit('update-failed')).map((entry) => entry.containerName)).not.toContain('stack-b');
    // Both can be updated now, and the project is served one at a time.
    const again = await Promise.all([requestUpdate(a), requestUpdate(b)]);
    const done = await Promise.all(again.map((id) => settled(id)));
    expect(done.map((op) => op.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('updates twenty containers at once, every one correctly', async () => {
    const ids = [];
    for (let index = 0; index < 20; index++)
      ids.push(await runApp(`fleet-${index}`, 'hub/fleet', { from: 'http', to: 'http' }));
    await watch();
    const started = performance.now();
    const operations = await Promise.all(ids.map((id) => requestUpdate(id)));
    const done = await Promise.all(operations.map((id) => settled(id, 120_000)));
    const seconds = (performance.now() - started) / 1000;
    expect(done.map((op) => op.status)).toEqual(Array(20).fill('succeeded'));
    for (let index = 0; index < 20; index++) {
      const info = await docker.getContainer(`fleet-${index}`).inspect();
      expect(info.State.Running).toBe(true);
      expect(info.Config.Image).toBe(`${registry.host}/hub/fleet:2.0.0`);
      expect(info.Id).toBe(done[index]?.newContainerId);
    }
    expect((await names()).filter((name) => TEMPORARY_NAME.test(name))).toEqual([]);
    expect(seconds).toBeLessThan(120);
  }, 150_000);

  it('rolls back by itself when the updated container turns unhealthy within its dd.rollback.window', async () => {
    const oldId = await runApp(
      'guarded',
      'hub/guarded',
      { from: 'flaky', to: 'flaky' },
      { 'dd.rollback.auto': 'true', 'dd.rollback.window': '60s' },
    );
    await watch();
    const operationId = await requestUpdate(oldId);
    const done = await settled(operationId);
    expect(done).toMatchObject({ status: 'succeeded', autoRollbackWindowMs: 60_000 });
    const fresh = done.newContainerId as string;
    const sick = await dockerd.cli(['exec', fresh, 'touch', '/tmp/bad']);
    expect(sick.code).toBe(0);
    const deadline = Date.now() + 30_000;
    let image = '';
    while (Date.now() < deadline) {
      const info = await docker
        .getContainer('guarded')
        .inspect()
        .catch(() => undefined);
      image = info?.Config.Image ?? '';
      if (
        image.endsWith(':1.0.0') &&
        info?.State.Running &&
        (await audit('auto-rollback')).some((e) => e.status === 'succeeded')
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(image).toBe(`${registry.host}/hub/guarded:1.0.0`);
    const entries = await audit('auto-rollback');
    expect(entries.map((entry) => entry.status)).toEqual(['succeeded', 'started']);
    expect(entries[1]?.details).toContain('turned unhealthy');
    expect((await names()).filter((name) => name.startsWith('guarded'))).toEqual(['guarded']);
  });

  it('prunes the replaced image when no backup keeps it, through the trigger the dd.action.include label names', async () => {
    const oldId = await runApp('lean', 'hub/lean', { from: 'http', to: 'http' }, { 'dd.action.include': 'lean' });
    const oldImage = (await docker.getContainer(oldId).inspect()).Image;
    await watch();
    const done = await settled(await requestUpdate(oldId));
    expect(done).toMatchObject({ status: 'succeeded', triggerName: 'docker.lean' });
    // The prune follows the settled status (backups and prune are the settlement's after-effects).
    const deadline = Date.now() + 15_000;
    while (
      Date.now() < deadline &&
      (await docker
        .getImage(oldImage)
        .inspect()
        .then(
          () => true,
          () => false,
        ))
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await expect(docker.getImage(oldImage).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await hub.json<{ total: number }>('/api/v1/containers/backups?containerName=lean')).total).toBe(0);
    // The web container's trigger (BACKUPCOUNT=2) kept its images: both are named by backups.
    for (const backup of (
      await hub.json<{ data: { imageId: string }[] }>('/api/v1/containers/backups?containerName=web')
    ).data) {
      expect((await docker.getImage(backup.imageId).inspect()).Id).toBe(backup.imageId);
    }
  });

  it('pulls with the credentials the hub holds for a basic-auth registry', async () => {
    const login = await dockerd.cli(['login', '-u', 'alice', '-p', 'wonder-land', privateRegistry.host]);
    expect(login.code).toBe(0);
    const from = await image('hub/private', '1.0.0', 'http', privateRegistry);
    await image('hub/private', '2.0.0', 'http', privateRegistry);
    await pullApp(dockerd, from);
    // From here on the Engine has no credentials of its own: the update's pull must bring the hub's.
    expect((await dockerd.cli(['logout', privateRegistry.host])).code).toBe(0);
    expect((await dockerd.cli(['pull', `${privateRegistry.host}/hub/private:2.0.0`])).code).not.toBe(0);
    const created = await docker.createContainer({
      name: 'private',
      Image: from,
      Labels: { 'dd.watch': 'true' },
      NetworkDisabled: true,
      HostConfig: { Init: true, NetworkMode: 'none' },
    });
    await created.start();
    await watch();
    expect(await byName('private')).toMatchObject({ updateAvailable: true });
    const done = await settled(await requestUpdate(created.id));
    expect(done.status).toBe('succeeded');
    expect((await docker.getContainer('private').inspect()).Config.Image).toBe(
      `${privateRegistry.host}/hub/private:2.0.0`,
    );
    expect(hub.logged.join('\n')).not.toContain('wonder-land');
  });
});
