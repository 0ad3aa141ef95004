/**
 * The hub's disk full while it updates a container of its own Docker host (the local counterpart of
 * edge-update-disk-full.test.ts): the hub as `npm start` runs it, an fs store on a small tmpfs of its
 * own, a real dockerd and a plain registry. The disk fills once the update reaches its health gate
 * (a probe of 4 s), so the engine cannot store the operation's end. A dropped write left the
 * operation in progress, its container claimed, until a restart; the journal now writes it again
 * until space returns.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { until } from '../support/edge-update-bed';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk';

describe('a local update whose end comes while the hub disk is full', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let disk: SmallDisk;
  let hub: HubOnDockerd;
  let fillAtGate = false;

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    disk = mountSmallDisk(16);
    hub = await startHubOnDockerd(
      dockerd,
      {
        DD_STORE_DRIVER: 'fs',
        DD_STORE_PATH: join(disk.path, 'data'),
        DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '30',
      },
      {
        updates: {
          timing: { pollMs: 100, startSettleMs: 500 },
          // The health gate's phase is stored; the disk fills before the engine goes on.
          afterSave: async (operation) => {
            if (fillAtGate && operation.phase === 'health-gate') {
              fillAtGate = false;
              disk.fill();
            }
          },
        },
      },
    );
  }, 120_000);

  afterAll(async () => {
    disk?.free();
    await hub?.close();
    await dockerd?.stop();
    await registry?.stop();
    disk?.close();
  }, 60_000);

  it('settles the operation once space returns, without a restart', async () => {
    const from = await publishApp(dockerd, registry, { repository: 'local/slow', tag: '1.0.0', kind: 'http' });
    await publishApp(dockerd, registry, { repository: 'local/slow', tag: '2.0.0', kind: 'slow-healthy' });
    await pullApp(dockerd, from);
    await startWatchedApp(dockerd, 'slow', from);
    const record = await until(async () => {
      await hub.api('/api/v1/containers/watch', { method: 'POST' });
      const listed = (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === 'slow');
      return listed?.updateAvailable ? listed : undefined;
    }, 'the update listed');

    fillAtGate = true;
    const response = await hub.api(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    const operation = () => hub.json<UpdateOperation>(`/api/v1/update-operations/${operationId}`);
    // The engine ends the update and cannot store it: the hub still shows it in progress.
    await until(
      async () => (hub.logged.some((line) => line.includes('not stored, trying again')) ? true : undefined),
      'a refused write tried again',
      60_000,
    );
    expect((await operation()).status).toBe('in-progress');

    disk.free();
    const settled = await until(
      async () => {
        const current = await operation();
        return ['succeeded', 'rolled-back', 'failed'].includes(current.status) ? current : undefined;
      },
      'the operation settled',
      30_000,
    );
    expect(settled).toMatchObject({ status: 'succeeded', phase: 'succeeded', toVersion: '2.0.0' });
  }, 240_000);
});
