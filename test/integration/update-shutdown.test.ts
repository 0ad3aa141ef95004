/**
 * SIGTERM on a hub that is updating a container (docs/operations.md "Shutdown", docs/updates.md
 * "Stopping"), on real components: a hub process whose update run is held after a phase
 * (pausing-hub-entry.ts, with the entry's own signal handling), a real dockerd and registry. An
 * update that can finish within the grace finishes before the hub exits; one that cannot is left
 * as journalled and settled by the next start. Either way the hub exits 0 within 10 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPORARY_NAME } from '../../shared/update-engine';
import {
  type LocalUpdateBed,
  operationOn,
  requestUpdate,
  settledOn,
  startLocalUpdateBed,
  watchNow,
} from '../support/docker/local-update-hub';
import { publishApp, pullApp } from '../support/docker/update-images';
import { startHubProcess } from '../support/hub-process';
import { startPausingHub } from '../support/pausing-hub-process';

describe('SIGTERM while the hub updates a container', () => {
  let bed: LocalUpdateBed;

  beforeAll(async () => {
    bed = await startLocalUpdateBed();
    await publishApp(bed.dockerd, bed.registry, { repository: 'stop/http', tag: '1.0.0', kind: 'http' });
    await publishApp(bed.dockerd, bed.registry, { repository: 'stop/http', tag: '2.0.0', kind: 'http' });
    await pullApp(bed.dockerd, `${bed.registry.host}/stop/http:1.0.0`);
  }, 120_000);

  afterAll(() => bed?.stop());

  /** A watched container of stop/http:1.0.0, and a hub holding its update after `pauseAt` (for `pauseForMs`, or for good). */
  async function updateHeldAt(name: string, pauseAt: string, pauseForMs?: number) {
    const storePath = await bed.newStore('update-shutdown-');
    const created = await bed.docker.createContainer({
      name,
      Image: `${bed.registry.host}/stop/http:1.0.0`,
      Labels: { 'dd.watch': 'true' },
      StopTimeout: 2,
      NetworkDisabled: true,
      HostConfig: { Init: true, NetworkMode: 'none' },
    });
    await created.start();
    const hub = await startPausingHub(
      { ...bed.hubEnv(storePath), ...(pauseForMs !== undefined && { UPDATE_TEST_PAUSE_FOR_MS: String(pauseForMs) }) },
      pauseAt,
    );
    await watchNow(hub.url);
    const operationId = await requestUpdate(hub.url, created.id);
    expect(await hub.paused).toBe(operationId);
    return { hub, storePath, operationId, oldId: created.id };
  }

  async function sigterm(hub: Awaited<ReturnType<typeof startPausingHub>>): Promise<number> {
    const sentAt = Date.now();
    hub.child.kill('SIGTERM');
    expect(await hub.exited).toBe(0);
    return Date.now() - sentAt;
  }

  it('lets an update that can finish within the grace finish, then exits 0', async () => {
    const { hub, storePath, operationId } = await updateHeldAt('finishes', 'renamed', 1_500);
    const tookMs = await sigterm(hub);
    expect(tookMs).toBeLessThan(10_000);
    expect(hub.stdout.some((line) => line.includes('left for recovery'))).toBe(false);
    // Settled before the exit: the next hub reads it from storage, nothing left to recover.
    const next = await startHubProcess(bed.hubEnv(storePath));
    try {
      const operation = await operationOn(next.url, operationId);
      expect(operation.status).toBe('succeeded');
      expect(next.stdout.some((line) => line.includes('recovering an unfinished update'))).toBe(false);
      const info = await bed.docker.getContainer('finishes').inspect();
      expect(info.State.Running).toBe(true);
      expect(info.Id).toBe(operation.newContainerId);
      expect((await bed.names()).filter((n) => TEMPORARY_NAME.test(n))).toEqual([]);
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

    const next = await startHubProcess(bed.hubEnv(storePath));
    try {
      const operation = await settledOn(next.url, operationId);
      expect(operation.status).toBe('rolled-back');
      expect(operation.rollbackReason).toMatch(/hub stopped during the phase new-created/);
      const info = await bed.docker.getContainer('held').inspect();
      expect(info.State.Running).toBe(true);
      expect(info.Id).toBe(oldId);
      expect((await bed.names()).filter((n) => n === 'held' || n.startsWith('held-'))).toEqual(['held']);
    } finally {
      expect(await next.kill('SIGTERM')).toBe(0);
    }
  }, 120_000);
});
