/**
 * SIGTERM on a hub that is updating a container (docs/operations.md "Shutdown", docs/updates.md
 * "Stopping"), on real components: a hub process whose update run is held after a phase
 * (pausing-hub-entry.ts, with the entry's own signal handling), a real dockerd and registry. An
 * update that can finish within the grace finishes before the hub exits; one that cannot is left
 * as journalled and settled by the next start. Either way the hub exits 0 within 10 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPORARY_NAME, type UpdateOperation } from '../../shared/update-engine';
import { containerNames, localUpdateHubEnv } from '../support/docker/local-update-hub';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp } from '../support/docker/update-images';
import { startHubProcess } from '../support/hub-process';
import { startPausingHub } from '../support/pausing-hub-process';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const SETTLED = ['succeeded', 'rolled-back', 'failed'];

describe('SIGTERM while the hub updates a container', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let docker: Docker;
  const dirs: string[] = [];

  const names = () => containerNames(docker);
  const hubEnv = (storePath: string) => localUpdateHubEnv(dockerd.socketPath, storePath);

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    docker = dockerd.docker;
    await publishApp(dockerd, registry, { repository: 'stop/http', tag: '1.0.0', kind: 'http' });
    await publishApp(dockerd, registry, { repository: 'stop/http', tag: '2.0.0', kind: 'http' });
    await pullApp(dockerd, `${registry.host}/stop/http:1.0.0`);
  }, 120_000);

  afterAll(async () => {
    await dockerd?.stop();
    await registry?.stop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** A watched container of stop/http:1.0.0, and a hub holding its update after `pauseAt` (for `pauseForMs`, or for good). */
  async function updateHeldAt(name: string, pauseAt: string, pauseForMs?: number) {
    const storePath = await mkdtemp(join(tmpdir(), 'update-shutdown-'));
    dirs.push(storePath);
    const created = await docker.createContainer({
      name,
      Image: `${registry.host}/stop/http:1.0.0`,
      Labels: { 'dd.watch': 'true' },
      StopTimeout: 2,
      HostConfig: { Init: true, NetworkMode: 'none' },
    });
    await created.start();
    const hub = await startPausingHub(
      { ...hubEnv(storePath), ...(pauseForMs !== undefined && { UPDATE_TEST_PAUSE_FOR_MS: String(pauseForMs) }) },
      pauseAt,
    );
    expect((await fetch(`${hub.url}/api/v1/containers/watch`, { method: 'POST' })).status).toBe(200);
    const response = await fetch(`${hub.url}/api/v1/containers/${created.id}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const operationId = ((await response.json()) as { operationId: string }).operationId;
    expect(await hub.paused).toBe(operationId);
    return { hub, storePath, operationId, oldId: created.id };
  }

  async function sigterm(hub: Awaited<ReturnType<typeof startPausingHub>>): Promise<number> {
    const sentAt = Date.now();
    hub.child.kill('SIGTERM');
    expect(await hub.exited).toBe(0);
    return Date.now() - sentAt;
  }

  async function settledOn(url: string, operationId: string): Promise<UpdateOperation> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const current = (await (await fetch(`${url}/api/v1/update-operations/${operationId}`)).json()) as UpdateOperation;
      if (SETTLED.includes(current.status) || Date.now() > deadline) return current;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('lets an update that can finish within the grace finish, then exits 0', async () => {
    const { hub, storePath, operationId } = await updateHeldAt('finishes', 'renamed', 1_500);
    const tookMs = await sigterm(hub);
    expect(tookMs).toBeLessThan(10_000);
    expect(hub.stdout.some((line) => line.includes('left for recovery'))).toBe(false);
    // Settled before the exit: the next hub reads it from storage, nothing left to recover.
    const next = await startHubProcess(hubEnv(storePath));
    try {
      const operation = (await (
        await fetch(`${next.url}/api/v1/update-operations/${operationId}`)
      ).json()) as UpdateOperation;
      expect(operation.status).toBe('succeeded');
      expect(next.stdout.some((line) => line.includes('recovering an unfinished update'))).toBe(false);
      const info = await docker.getContainer('finishes').inspect();
      expect(info.State.Running).toBe(true);
      expect(info.Id).toBe(operation.newContainerId);
      expect((await names()).filter((n) => TEMPORARY_NAME.test(n))).toEqual([]);
    } finally {
      expect(await next.kill('SIGTERM')).toBe(0);
    }
  }, 120_000);

  it('leaves an update that cannot finish journalled, exits 0 within 10 s, and the next start settles it', async () => {
    const { hub, storePath, operationId, oldId } = await updateHeldAt('held', 'new-created');
    const tookMs = await sigterm(hub);
    expect(tookMs).toBeLessThan(10_000);
    console.info(`update-shutdown: SIGTERM to exit ${tookMs} ms with an update held in new-created`);
    const left = hub.stdout.find((line) => line.includes('an update is left for recovery at the next start'));
    expect(left && JSON.parse(left)).toMatchObject({ operationId, phase: 'new-created', container: 'held' });

    const next = await startHubProcess(hubEnv(storePath));
    try {
      const operation = await settledOn(next.url, operationId);
      expect(operation.status).toBe('rolled-back');
      expect(operation.rollbackReason).toMatch(/hub stopped during the phase new-created/);
      const info = await docker.getContainer('held').inspect();
      expect(info.State.Running).toBe(true);
      expect(info.Id).toBe(oldId);
      expect((await names()).filter((n) => n === 'held' || n.startsWith('held-'))).toEqual(['held']);
    } finally {
      expect(await next.kill('SIGTERM')).toBe(0);
    }
  }, 120_000);
});
