import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { expect } from 'vitest';
import type { UpdateOperation } from '../../../shared/update-engine';
import { startRegistry, type TestRegistry } from '../registry/start-registry';
import { startDockerd, type TestDockerd } from './start-dockerd';

/**
 * A hub process's variables for update tests on a private dockerd: its one local watcher on that
 * daemon, watching only what a test labels, cycles without jitter, and a health gate long enough
 * for a busy machine.
 */
export function localUpdateHubEnv(socketPath: string, storePath: string): Record<string, string> {
  return {
    DD_STORE_PATH: storePath,
    DD_WATCHER_LOCAL_SOCKET: socketPath,
    DD_WATCHER_LOCAL_JITTER: '0',
    DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'false',
    DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20',
  };
}

/** Every container's name on the daemon, stopped ones included. */
export async function containerNames(docker: Docker): Promise<string[]> {
  return (await docker.listContainers({ all: true })).map((c) => c.Names[0]?.slice(1) ?? '');
}

/** The statuses an update operation ends in. */
const SETTLED = ['succeeded', 'rolled-back', 'failed'];

/** A dockerd and a plain registry the hub-process update tests share, and the store dirs they made. */
export interface LocalUpdateBed {
  dockerd: TestDockerd;
  docker: Docker;
  registry: TestRegistry;
  /** A new temp dir for one hub's store, removed by stop(). */
  newStore(prefix: string): Promise<string>;
  /** localUpdateHubEnv on this dockerd. */
  hubEnv(storePath: string): Record<string, string>;
  /** containerNames on this dockerd. */
  names(): Promise<string[]>;
  /** Stops the dockerd and the registry, and removes every store dir. */
  stop(): Promise<void>;
}

/** Starts the dockerd and the registry at once. */
export async function startLocalUpdateBed(): Promise<LocalUpdateBed> {
  const [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
  const dirs: string[] = [];
  return {
    dockerd,
    docker: dockerd.docker,
    registry,
    async newStore(prefix) {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    hubEnv: (storePath) => localUpdateHubEnv(dockerd.socketPath, storePath),
    names: () => containerNames(dockerd.docker),
    async stop() {
      await dockerd.stop();
      await registry.stop();
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

/** Asks the hub at `url` to watch now, asserting its 200. */
export async function watchNow(url: string): Promise<void> {
  expect((await fetch(`${url}/api/v1/containers/watch`, { method: 'POST' })).status).toBe(200);
}

/** Asks the hub at `url` to update the container, asserting its 202; answers the operation id. */
export async function requestUpdate(url: string, containerId: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/containers/${containerId}/update`, { method: 'POST' });
  expect(response.status).toBe(202);
  return ((await response.json()) as { operationId: string }).operationId;
}

/** The operation as the hub at `url` has it. */
export async function operationOn(url: string, operationId: string): Promise<UpdateOperation> {
  return (await (await fetch(`${url}/api/v1/update-operations/${operationId}`)).json()) as UpdateOperation;
}

/** The operation once settled, polled every 100 ms; after 60 s, as it is then. */
export async function settledOn(url: string, operationId: string): Promise<UpdateOperation> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = await operationOn(url, operationId);
    if (SETTLED.includes(current.status) || Date.now() > deadline) return current;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
