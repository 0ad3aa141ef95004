import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestDockerd } from '../test/support/docker/start-dockerd';
import { OSV_FIXTURE } from '../test/support/scan-bed';
import { dataOf, openSse } from '../test/support/sse-client';
import { createContainers, mapLimit } from './support/docker-fleet';
import { type EngineProxy, startEngineProxy } from './support/engine-proxy';
import { type HubProcess, startHubProcess } from './support/hub-process';
import { buildScanImage } from './support/scan-images';

export interface ScanAllRun {
  containers: number;
  images: number;
  /** POST scan-all to security-scan-cycle-complete. */
  ms: number;
  /** `GET /images/{id}/get` calls the Engine saw: the image exports. */
  exports: number;
  scanned: number;
  failed: number;
}

/**
 * scan-all over `containers` containers sharing `images` images (each with `packages` dpkg
 * packages), on the real dockerd, with the hub as its own process (`node --import tsx
 * hub/src/entry/node.ts`, as `npm start` runs it) reaching the daemon through a pass-through that
 * counts the Engine calls: every image should be exported once.
 */
export async function measureScanAll(
  dockerd: TestDockerd,
  options: { containers: number; images: number; packages: number },
  log: (message: string) => void,
): Promise<ScanAllRun> {
  log(`building ${options.images} images, then ${options.containers} containers`);
  const references = await mapLimit(
    Array.from({ length: options.images }, (_, n) => `bench-scan/fleet-${n}:1`),
    2,
    async (reference) => {
      await buildScanImage(dockerd, reference, { packages: options.packages, fillerMiB: 0 });
      return reference;
    },
  );
  const fleet = await createContainers(dockerd, references, options.containers, { prefix: 'scan-', parallelism: 4 });
  if (fleet.error) throw fleet.error;
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-bench-scan-'));
  let engine: EngineProxy | undefined;
  let hub: HubProcess | undefined;
  try {
    engine = await startEngineProxy(dockerd.socketPath, join(dir, 'engine.sock'));
    hub = await startHubProcess({
      env: {
        DD_WATCHER_LOCAL_SOCKET: engine.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
        // No registry here: the inventory comes from a refresh, and no watch cycle looks anything up.
        DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'false',
        DD_SECURITY_SCANNER: 'osv',
        DD_SECURITY_OSV_FILE: OSV_FIXTURE,
      },
    });
    const url = hub.url;
    const counts = engine.counts;
    const api = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
    const refreshed = await api('/api/v1/watchers/docker/local/inventory', { method: 'POST' });
    if (refreshed.status !== 200) throw new Error(`inventory refresh: ${refreshed.status} ${await refreshed.text()}`);
    for (let tries = 0; ; tries++) {
      const body = (await (await api('/api/v1/containers/security/vulnerabilities')).json()) as {
        total: number;
        database: { state: string };
      };
      if (body.database.state === 'ready' && body.total === options.containers) break;
      if (tries > 600) throw new Error(`scan: the hub never got ready (${JSON.stringify(body)})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stream = await openSse(api, '/api/v1/events/ui');
    engine.reset();
    const started = performance.now();
    const accepted = await api('/api/v1/containers/scan-all', { method: 'POST' });
    if (accepted.status !== 202) throw new Error(`scan-all: ${accepted.status} ${await accepted.text()}`);
    const end = dataOf<{ scanned: number; failed: number }>(
      await stream.nextOfType('security-scan-cycle-complete', 600_000),
    );
    const ms = performance.now() - started;
    await stream.close();
    const exports = [...counts]
      .filter(([kind]) => /^GET \/images\/.+\/get$/.test(kind))
      .reduce((sum, [, count]) => sum + count, 0);
    return {
      containers: options.containers,
      images: options.images,
      ms,
      exports,
      scanned: end.scanned,
      failed: end.failed,
    };
  } finally {
    await hub?.stop();
    await engine?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
