/**
 * The bed of the update route tests on one dockerd (dependency-group-updates, images-bulk-updates):
 * a dockerd, a plain registry, and the hub in process on that dockerd keeping one backup, its
 * update runs polled every 100 ms. Each test keeps the apps it runs and what it asserts.
 */
import type Docker from 'dockerode';
import { type HubOnDockerd, startHubOnDockerd } from './docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from './docker/start-dockerd';
import { startRegistry, type TestRegistry } from './registry/start-registry';

export interface DockerdUpdateBed {
  dockerd: TestDockerd;
  docker: Docker;
  registry: TestRegistry;
  hub: HubOnDockerd;
  /** Closes the hub, then stops the dockerd and the registry. */
  stop(): Promise<void>;
}

/** Starts the bed; `startSettleMs` is how long a started container must keep running to count as started. */
export async function startDockerdUpdateBed(startSettleMs: number): Promise<DockerdUpdateBed> {
  const [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
  let hub: HubOnDockerd;
  try {
    hub = await startHubOnDockerd(
      dockerd,
      { DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' },
      { updates: { timing: { pollMs: 100, startSettleMs } } },
    );
  } catch (error) {
    // What started must not outlive the failed start (the test's afterAll has no bed to stop).
    await dockerd.stop();
    await registry.stop();
    throw error;
  }
  return {
    dockerd,
    docker: dockerd.docker,
    registry,
    hub,
    async stop() {
      await hub.close();
      await dockerd.stop();
      await registry.stop();
    },
  };
}
