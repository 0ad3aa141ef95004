/**
 * A warm watch cycle that finds nothing changed writes nothing and publishes nothing (issue 30):
 * the hub as `npm start` runs it, with its file store, watching a real dockerd whose containers run
 * images pushed to a real registry. Writes are seen as the store directory's files changing, events
 * as what the UI stream sends; the registry is reached through a counting pass-through, so the
 * cycles are seen to ask it.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeHub, startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import type { Container } from '../../shared/schemas/container';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type LatencyProxy, startLatencyProxy } from '../support/latency-proxy';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { openSse, type SseStream } from '../support/sse-client';

/** Each file of the store with its size and modification time. */
async function storeFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path);
    files.set(path, `${info.size}:${info.mtimeMs}`);
  }
  return files;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a warm watch cycle over an unchanged fleet', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let proxy: LatencyProxy;
  let dataDir: string;
  let hub: NodeHub;
  let stream: SseStream | undefined;
  /** The scheduled cycle soon after start: it stores the job's next run when it has run. */
  let startUpRunAt: number | undefined;

  const watchAll = async () => {
    const response = await fetch(`${hub.url}/api/v1/containers/watch`, { method: 'POST' });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Container[] }).data;
  };

  async function publish(tags: string[], build: string): Promise<void> {
    await importBusyboxImage(dockerd.docker, {
      repository: 'quiet/app',
      tag: build,
      cmd: ['sleep', '3600'],
      extraFile: { path: '/build', content: build },
    });
    for (const tag of tags)
      for (const args of [
        ['tag', `quiet/app:${build}`, `${proxy.host}/quiet/app:${tag}`],
        ['push', `${proxy.host}/quiet/app:${tag}`],
      ]) {
        const result = await dockerd.cli(args);
        if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
      }
  }

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    proxy = await startLatencyProxy(registry.url, 0);
    dataDir = await mkdtemp(join(tmpdir(), 'hub-quiet-cycle-'));
    await publish(['1.0.0', 'latest'], 'one');
    await publish(['1.1.0'], 'two');
    await runContainer(dockerd.docker, { name: 'pinned', image: `${proxy.host}/quiet/app:1.0.0` });
    await runContainer(dockerd.docker, { name: 'rolling', image: `${proxy.host}/quiet/app:latest` });
    hub = await startNodeHub({
      env: {
        DD_STORE_PATH: dataDir,
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
        DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
      },
      sink: silentSink,
    });
    startUpRunAt = hub.hub.parts.fleet.all()[0]?.nextRunAt;
  }, 120_000);

  afterAll(async () => {
    await stream?.close();
    await hub?.close();
    await proxy?.close();
    await Promise.all([dockerd?.stop(), registry?.stop()]);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('checks every container against the registry, and stores and announces nothing', async () => {
    // The first cycle stores the records, the next their first check-time stamp; the rest are warm and quiet.
    const first = await watchAll();
    expect(first.map((c) => [c.name, c.updateAvailable]).sort()).toEqual([
      ['pinned', true],
      ['rolling', false],
    ]);
    await watchAll();
    // The start-up cycle's own write (the schedule's next run) is not one of the measured cycles':
    // waited for, or on a busy machine it lands among them (seen in CI with five files at once).
    await expect.poll(() => hub.hub.parts.fleet.all()[0]?.nextRunAt, { timeout: 30_000 }).not.toBe(startUpRunAt);
    await sleep(500);
    stream = await openSse((path, init) => fetch(`${hub.url}${path}`, init), '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');
    const before = await storeFiles(dataDir);
    proxy.reset();

    for (let cycle = 0; cycle < 3; cycle++) {
      const startedAt = new Date().toISOString();
      const records = await watchAll();
      // Checked now: each record carries this cycle's check time and its verdict.
      expect(records.every((c) => (c.checkedAt ?? '') >= startedAt && !c.error)).toBe(true);
      expect(records.find((c) => c.name === 'pinned')?.updateAvailable).toBe(true);
    }
    await sleep(500);

    expect(proxy.total()).toBeGreaterThanOrEqual(3);
    const after = await storeFiles(dataDir);
    const written = [...after].filter(([path, stamp]) => before.get(path) !== stamp).map(([path]) => path);
    expect(written).toEqual([]);
    expect([...before.keys()].filter((path) => !after.has(path))).toEqual([]);
    // Nothing on the UI stream but its heartbeats.
    const events: string[] = [];
    for (;;) {
      const event = await stream.next(200).catch(() => undefined);
      if (!event) break;
      if (event.event !== 'dd:heartbeat') events.push(event.event);
    }
    expect(events).toEqual([]);
  }, 60_000);
});
