/**
 * The update policy and hooks (docs/updates.md) on real components: a dockerd, a registry
 * holding `auto/app` 1.0.0 and 2.0.0, and the hub as `npm start` runs it, with a Docker action
 * trigger and DD_HOOKS_ENABLED=true. Hooks are real shell commands writing into a temporary directory.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { expectJsonError } from '../support/hub-harness';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const post = { method: 'POST' };

describe('automatic updates and hooks on a real Docker Engine and registry', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let docker: Docker;
  let hub: HubOnDockerd;
  let from: string;
  let dir: string;

  const audit = async (action: string, containerName: string) =>
    (await hub.json<{ data: AuditEntry[] }>(`/api/v1/audit?actions=${action}&limit=200`)).data.filter(
      (entry) => entry.containerName === containerName,
    );
  const byName = async (name: string): Promise<Container | undefined> =>
    (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);
  const operationsOf = async (name: string): Promise<UpdateOperation[]> => {
    const container = await byName(name);
    if (!container) throw new Error(`${name} is not in the inventory`);
    return hub.parts.updates.operationsOf(container);
  };

  async function setMode(updateMode: 'notify' | 'manual' | 'auto'): Promise<void> {
    const response = await hub.api('/api/v1/settings', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ updateMode }),
    });
    expect(response.status).toBe(200);
  }

  async function runApp(name: string, labels: Record<string, string> = {}): Promise<string> {
    return startWatchedApp(dockerd, name, from, labels);
  }

  /** A watch cycle (the registry is asked), then every update it queued run to its end. */
  async function watch(): Promise<void> {
    const response = await hub.api('/api/v1/containers/watch', post);
    expect(response.status).toBe(200);
    await hub.parts.updates.idle();
  }

  async function updateAndSettle(containerId: string): Promise<UpdateOperation> {
    const response = await hub.api(`/api/v1/containers/${containerId}/update`, post);
    const body = (await response.json()) as { operationId: string };
    expect(response.status).toBe(202);
    await hub.parts.updates.idle();
    const operation = hub.parts.updates.get(body.operationId);
    if (!operation) throw new Error('operation not found');
    return operation;
  }

  const imageOfContainer = async (id: string) => (await docker.getContainer(id).inspect()).Config.Image;

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    docker = dockerd.docker;
    dir = await mkdtemp(join(tmpdir(), 'dd-hooks-'));
    from = await publishApp(dockerd, registry, { repository: 'auto/app', tag: '1.0.0', kind: 'http' });
    await publishApp(dockerd, registry, { repository: 'auto/app', tag: '2.0.0', kind: 'http' });
    await pullApp(dockerd, from);
    hub = await startHubOnDockerd(
      dockerd,
      { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1', DD_HOOKS_ENABLED: 'true' },
      { updates: { timing: { pollMs: 100, startSettleMs: 500 } } },
    );
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.stop();
    await registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('notify mode applies nothing: a manual request answers 409 update-mode-notify and a watch updates nothing', async () => {
    await setMode('notify');
    const id = await runApp('notify-app');
    await watch();
    expect(await byName('notify-app')).toMatchObject({ id, updateAvailable: true });
    const refused = await expectJsonError(await hub.api(`/api/v1/containers/${id}/update`, post), 409);
    expect(refused.details).toEqual({ reason: 'update-mode-notify' });
    expect(await operationsOf('notify-app')).toEqual([]);
    await docker.getContainer(id).remove({ force: true });
  });

  it('auto mode: a watch that finds 2.0.0 updates the container by itself; gated ones stay and are audited once', async () => {
    await setMode('auto');
    const autoId = await runApp('auto-app');
    const held = {
      'auto-snoozed': await runApp('auto-snoozed', { 'dd.updatePolicy.snoozeUntil': '2099-01-01T00:00:00Z' }),
      'auto-gated': await runApp('auto-gated', { 'dd.updatePolicy.maturityMode': 'mature' }),
      'auto-optout': await runApp('auto-optout', { 'dd.action.auto': 'false' }),
    };
    await watch();

    const [operation] = await operationsOf('auto-app');
    expect(operation).toMatchObject({
      source: 'auto',
      status: 'succeeded',
      toVersion: '2.0.0',
      triggerName: 'docker.update',
    });
    const updated = await byName('auto-app');
    expect(updated?.id).toBe(operation?.newContainerId);
    expect(updated?.id).not.toBe(autoId);
    expect(await imageOfContainer(updated?.id ?? '')).toBe(from.replace(':1.0.0', ':2.0.0'));
    expect(await audit('auto-update-blocked', 'auto-app')).toEqual([]);

    // A second cycle finds the same updates still held: no second entry, and nothing moved.
    await watch();
    const reasons: Record<string, string> = {
      'auto-snoozed': 'snoozed',
      'auto-gated': 'maturity-not-reached',
      'auto-optout': 'auto-disabled-by-label',
    };
    for (const [name, id] of Object.entries(held)) {
      expect((await byName(name))?.id, name).toBe(id);
      expect(await imageOfContainer(id), name).toBe(from);
      expect(await operationsOf(name), name).toEqual([]);
      const entries = await audit('auto-update-blocked', name);
      expect(entries, name).toHaveLength(1);
      expect(entries[0], name).toMatchObject({ status: reasons[name], fromVersion: '1.0.0', toVersion: '2.0.0' });
    }
  }, 120_000);

  it('runs dd.hook.pre before and dd.hook.post after a real update, with the container and versions in their environment', async () => {
    await setMode('manual');
    const id = await runApp('hooked', {
      'dd.hook.pre': `echo "pre $DD_CONTAINER_NAME $DD_FROM_VERSION $DD_TO_VERSION" > ${dir}/pre.txt; env > ${dir}/env.txt`,
      // A failing post hook is recorded; the update stands.
      'dd.hook.post': `echo "post $DD_NEW_CONTAINER_ID" > ${dir}/post.txt; echo broken >&2; exit 4`,
    });
    await watch();
    const operation = await updateAndSettle(id);
    expect(operation).toMatchObject({ status: 'succeeded', toVersion: '2.0.0' });
    expect((await readFile(join(dir, 'pre.txt'), 'utf8')).trim()).toBe('pre hooked 1.0.0 2.0.0');
    expect((await readFile(join(dir, 'post.txt'), 'utf8')).trim()).toBe(`post ${operation.newContainerId}`);
    const env = await readFile(join(dir, 'env.txt'), 'utf8');
    expect(env).toContain(`DD_OPERATION_ID=${operation.id}`);
    // The hub's own configuration never reaches a hook.
    expect(env).not.toContain('DD_HOOKS_ENABLED');
    expect(env).not.toContain('DD_STORE_DRIVER');
    const [configured] = await audit('hook-configured', 'hooked');
    expect(configured).toMatchObject({ status: 'configured', containerImage: expect.stringContaining('2.0.0') });
    expect(configured?.details).toMatch(
      new RegExp(`^operation ${operation.id}: dd\\.hook\\.pre, dd\\.hook\\.post; timeout \\d+ ms$`),
    );
    // The commands stay out of the trail.
    expect(configured?.details).not.toContain('echo');
    expect(await audit('hook-pre-success', 'hooked')).toHaveLength(1);
    const [postFailed] = await audit('hook-post-failed', 'hooked');
    expect(postFailed?.details).toContain('exited with code 4: broken');
    expect((await byName('hooked'))?.id).toBe(operation.newContainerId);
  }, 60_000);

  it('a failing pre hook ends the update failed in prepare and touches nothing', async () => {
    const id = await runApp('hook-refused', { 'dd.hook.pre': 'echo refusing >&2; exit 3' });
    await watch();
    const operation = await updateAndSettle(id);
    expect(operation).toMatchObject({ status: 'failed', phase: 'prepare' });
    expect(operation.lastError).toContain('exited with code 3: refusing');
    expect(operation.lastError).toContain('nothing was changed');
    const inspected = await docker.getContainer(id).inspect();
    expect(inspected.State.Running).toBe(true);
    expect(inspected.Config.Image).toBe(from);
    expect(
      (await docker.listContainers({ all: true })).filter((c) => c.Names[0]?.includes('hook-refused')),
    ).toHaveLength(1);
    expect(await audit('hook-pre-failed', 'hook-refused')).toHaveLength(1);
    await docker.getContainer(id).remove({ force: true });
  }, 60_000);

  it('a pre hook that outlives dd.hook.timeout is stopped and the update fails in prepare', async () => {
    const id = await runApp('hook-slow', { 'dd.hook.pre': 'sleep 30', 'dd.hook.timeout': '1s' });
    await watch();
    const started = Date.now();
    const operation = await updateAndSettle(id);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(operation).toMatchObject({ status: 'failed', phase: 'prepare' });
    expect(operation.lastError).toContain('timed out after 1 s');
    expect((await docker.getContainer(id).inspect()).State.Running).toBe(true);
    await docker.getContainer(id).remove({ force: true });
  }, 60_000);

  it('an automatic update that failed is not tried again by itself: one auto-update-blocked entry', async () => {
    await setMode('auto');
    const id = await runApp('auto-hook-fails', { 'dd.hook.pre': 'exit 5' });
    await watch();
    const [failed, ...others] = await operationsOf('auto-hook-fails');
    expect(others).toEqual([]);
    expect(failed).toMatchObject({ source: 'auto', status: 'failed', phase: 'prepare' });
    await watch();
    await watch();
    expect(await operationsOf('auto-hook-fails')).toHaveLength(1);
    const blocked = await audit('auto-update-blocked', 'auto-hook-fails');
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({ status: 'previous-auto-update-failed', toVersion: '2.0.0' });
    expect((await docker.getContainer(id).inspect()).Config.Image).toBe(from);
    await docker.getContainer(id).remove({ force: true });
  }, 60_000);

  it('a runtime without a hook runner (Workers) refuses a pre hook: the update fails in prepare and names why', async () => {
    await setMode('manual');
    const id = await runApp('hook-nowhere', { 'dd.hook.pre': `touch ${dir}/never.txt` });
    const bare = await startHubOnDockerd(
      dockerd,
      { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1', DD_HOOKS_ENABLED: 'true' },
      { hookRunner: undefined },
    );
    try {
      const watched = await bare.api('/api/v1/containers/watch', post);
      expect(watched.status).toBe(200);
      const response = await bare.api(`/api/v1/containers/${id}/update`, post);
      expect(response.status).toBe(202);
      const { operationId } = (await response.json()) as { operationId: string };
      await bare.parts.updates.idle();
      const operation = bare.parts.updates.get(operationId);
      expect(operation).toMatchObject({ status: 'failed', phase: 'prepare' });
      expect(operation?.lastError).toContain('cannot run: this runtime (node) runs no commands');
      await expect(readFile(join(dir, 'never.txt'))).rejects.toThrow();
      expect((await docker.getContainer(id).inspect()).Config.Image).toBe(from);
    } finally {
      await bare.close();
    }
  }, 60_000);
});
