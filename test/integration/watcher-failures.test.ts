/**
 * Watch cycles that meet failures, on real components: a dockerd, a registry the images are pushed
 * to with the docker CLI, and the hub. A container removed between list and inspect, and a
 * registry that never answers for one repository: the affected record says what happened, the
 * others are checked as usual, and no record is lost. (A daemon that disappears mid-cycle is
 * covered by containers-e2e.test.ts.)
 */
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import type { Hub } from '../../hub/src/compose-hub';
import type { DockerHost } from '../../shared/docker/docker-host';
import { silentSink } from '../../shared/logging/logger';
import type { Container } from '../../shared/schemas/container';
import { delegatingHost } from '../support/docker/delegating-host';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { createMemoryHub } from '../support/hub-harness';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry({ variant: 'plain' });
}, 60_000);
afterAll(() => registry?.stop());

async function cli(dockerd: TestDockerd, args: string[]): Promise<void> {
  const result = await dockerd.cli(args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
}

/** A local busybox build, tagged as `reference` (and pushed, unless that registry is not one). */
async function publish(dockerd: TestDockerd, reference: string, build: string, push = true): Promise<void> {
  await importBusyboxImage(dockerd.docker, {
    repository: 'local/app',
    tag: build,
    cmd: ['sleep', '3600'],
    extraFile: { path: '/b', content: build },
  });
  await cli(dockerd, ['tag', `local/app:${build}`, reference]);
  if (push) await cli(dockerd, ['push', reference]);
}

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The real Engine client with one addition: it force-removes a chosen container (a real removal on
 * the real daemon) right after the next listing returns, before the cycle inspects it. The event
 * stream is muted so that only the cycle under test lists containers (events: containers-e2e).
 */
function removingAfterList(real: DockerHost, dockerd: TestDockerd) {
  let armed: string | undefined;
  const inspected: string[] = [];
  const host = delegatingHost(real, {
    async listContainers(all) {
      const listed = await real.listContainers(all);
      const victim = armed;
      armed = undefined;
      if (victim) await dockerd.docker.getContainer(victim).remove({ force: true });
      return listed;
    },
    inspectContainer: (id) => {
      inspected.push(id);
      return real.inspectContainer(id);
    },
    subscribeEvents: () => ({ close: () => undefined }),
  });
  return { host, inspected, removeAfterNextList: (id: string) => (armed = id) };
}

const _readNothing = (path: string): string => {
  throw new Error(`no file ${path} in tests`);
};

/** The hub in memory, its one watcher on the given Engine client. */
async function startHubOn(host: DockerHost, socketPath: string): Promise<Hub> {
  const client = await createMemoryHub(
    { DD_WATCHER_LOCAL_SOCKET: socketPath, DD_WATCHER_LOCAL_JITTER: '0' },
    { dockerHostFor: () => host },
  );
  return client.hub;
}

const withError = (records: readonly Container[]) =>
  records.filter((c) => c.error).map((c) => `${c.name}: ${JSON.stringify(c.error)}`);

describe('a container removed between list and inspect', () => {
  let dockerd: TestDockerd;
  let hub: Hub;
  let rig: ReturnType<typeof removingAfterList>;
  const ids: string[] = [];
  const ref = (tag: string) => `${registry.host}/test/app:${tag}`;
  const json = async <T>(path: string, init?: RequestInit) => (await (await hub.app.request(path, init)).json()) as T;
  const records = async () => (await json<{ data: Container[] }>('/api/v1/containers')).data;

  beforeAll(async () => {
    dockerd = await startDockerd();
    await publish(dockerd, ref('1.0.0'), 'one');
    await publish(dockerd, ref('2.0.0'), 'two');
    for (let i = 0; i < 6; i++) ids.push(await runContainer(dockerd.docker, { name: `app-${i}`, image: ref('1.0.0') }));
    rig = removingAfterList(dockerd.dockerHost, dockerd);
    hub = await startHubOn(rig.host, dockerd.socketPath);
    // The watcher's own first cycle (2 s after start) fills the store; nothing else lists after it.
    await waitFor(() => hub.parts.fleet.all()[0]?.lastRunAt, 20_000);
  }, 90_000);
  afterAll(async () => {
    await hub?.stop();
    await dockerd?.stop();
  });

  it('drops a known record as removed: the refresh stays authoritative and nobody else gets an error', async () => {
    const before = await records();
    expect(before.map((c) => c.name).sort()).toEqual(['app-0', 'app-1', 'app-2', 'app-3', 'app-4', 'app-5']);
    expect(withError(before)).toEqual([]);
    const victim = ids[2] as string;
    rig.removeAfterNextList(victim);
    rig.inspected.length = 0;
    const result = await json<{
      authoritative: boolean;
      errors: unknown[];
      removedIds: string[];
      containers: Container[];
    }>('/api/v1/watchers/docker/local/inventory', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    // It was listed, then inspected after its removal: the 404 of the inspect is what made it go.
    expect(rig.inspected).toContain(victim);
    expect({ authoritative: result.authoritative, errors: result.errors, removedIds: result.removedIds }).toEqual({
      authoritative: true,
      errors: [],
      removedIds: [victim],
    });
    const after = await records();
    expect(after.map((c) => c.id).sort()).toEqual(
      before
        .map((c) => c.id)
        .filter((id) => id !== victim)
        .sort(),
    );
    // The others are exactly as they were: nothing touched, no error.
    expect(after).toEqual(before.filter((c) => c.id !== victim));
  });

  it('never records a new container removed between list and inspect during a full watch cycle', async () => {
    const newcomer = await runContainer(dockerd.docker, { name: 'newcomer', image: ref('1.0.0') });
    rig.removeAfterNextList(newcomer);
    rig.inspected.length = 0;
    const watcher = hub.parts.fleet.all()[0];
    const result = await watcher?.watch();
    expect(rig.inspected).toContain(newcomer);
    expect({ authoritative: result?.authoritative, errors: result?.errors, removedIds: result?.removedIds }).toEqual({
      authoritative: true,
      errors: [],
      removedIds: [],
    });
    const after = await records();
    expect(after.map((c) => c.name).sort()).toEqual(['app-0', 'app-1', 'app-3', 'app-4', 'app-5']);
    expect(withError(after)).toEqual([]);
    // The registry checks of the others went on as usual.
    expect(
      after.every((c) => c.updateAvailable && c.updateKind.kind === 'tag' && c.updateKind.remoteValue === '2.0.0'),
    ).toBe(true);
  });

  it('under a real race (containers force-removed while a cycle inspects): each record gone or intact, then gone', async () => {
    for (let i = 0; i < 24; i++) await runContainer(dockerd.docker, { name: `race-${i}`, image: ref('1.0.0') });
    // The Engine lists newest first and the cycle inspects in that order: the oldest are reached last.
    const running = (await dockerd.docker.listContainers()).sort((a, b) => a.Created - b.Created).map((c) => c.Id);
    const doomed = running.slice(0, 6);
    rig.inspected.length = 0;
    const cycle = hub.app.request('/api/v1/containers/watch', { method: 'POST' });
    await waitFor(() => (rig.inspected.length > 0 ? true : undefined), 10_000);
    await Promise.all(doomed.map((id) => dockerd.docker.getContainer(id).remove({ force: true })));
    const response = await cycle;
    expect(response.status).toBe(200);
    const during = (await response.json()) as { data: Container[] };
    expect(withError(during.data)).toEqual([]);
    expect(
      during.data
        .filter((c) => !doomed.includes(c.id))
        .map((c) => c.id)
        .sort(),
    ).toEqual(running.slice(6).sort());
    const refresh = await json<{ authoritative: boolean; errors: unknown[] }>(
      '/api/v1/watchers/docker/local/inventory',
      {
        method: 'POST',
      },
    );
    expect(refresh).toMatchObject({ authoritative: true, errors: [] });
    const after = await records();
    expect(after.map((c) => c.id).sort()).toEqual(running.slice(6).sort());
    expect(withError(after)).toEqual([]);
  }, 60_000);
});

/** A TCP server that accepts every connection, reads what it is sent and never answers. */
async function startSilentServer(): Promise<{ host: string; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('a registry that never answers for one container', () => {
  let dockerd: TestDockerd;
  let silent: Awaited<ReturnType<typeof startSilentServer>>;
  let hub: Awaited<ReturnType<typeof startNodeHub>>;
  let startedAt: number;
  const json = async <T>(path: string, init?: RequestInit) =>
    (await (await fetch(`${hub.url}${path}`, init)).json()) as T;
  const byName = async () =>
    new Map((await json<{ data: Container[] }>('/api/v1/containers')).data.map((c) => [c.name, c]));

  beforeAll(async () => {
    [dockerd, silent] = await Promise.all([startDockerd(), startSilentServer()]);
    await publish(dockerd, `${registry.host}/fail/app:1.0.0`, 'one');
    await publish(dockerd, `${registry.host}/fail/app:2.0.0`, 'two');
    await publish(dockerd, `${registry.host}/fail/app:latest`, 'two');
    // Only tagged locally: the image's registry host is the silent server, which holds nothing.
    await publish(dockerd, `${silent.host}/x/y:1.0.0`, 'stuck', false);
    await runContainer(dockerd.docker, { name: 'web', image: `${registry.host}/fail/app:1.0.0` });
    await runContainer(dockerd.docker, { name: 'cache', image: `${registry.host}/fail/app:latest` });
    await runContainer(dockerd.docker, { name: 'stuck', image: `${silent.host}/x/y:1.0.0` });
    startedAt = Date.now();
    hub = await startNodeHub({
      env: {
        DD_STORE_DRIVER: 'memory',
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
        DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
        DD_REGISTRY_TIMEOUT: '2',
      },
      sink: silentSink,
    });
  }, 90_000);
  afterAll(async () => {
    await hub?.close();
    await silent?.close();
    await dockerd?.stop();
  });

  it('gives that container a timeout error within the deadline and checks the others as usual', async () => {
    // The watcher's first cycle starts 2 s after start; DD_REGISTRY_TIMEOUT=2 bounds each registry
    // request to 2 s (and a timeout is not retried).
    const endedAt = await waitFor(async () => {
      const watchers = await json<{ data: { metadata: { lastRunAt?: string } }[] }>('/api/v1/watchers');
      const at = watchers.data[0]?.metadata.lastRunAt;
      return at === undefined ? undefined : Date.parse(at);
    }, 40_000);
    expect(endedAt - startedAt).toBeLessThan(2_000 + 2_000 + 5_000);
    expect(silent.connections()).toBeGreaterThan(0);
    const records = await byName();
    expect([...records.keys()].sort()).toEqual(['cache', 'stuck', 'web']);
    expect(records.get('stuck')).toMatchObject({
      updateAvailable: false,
      error: { phase: 'tags', kind: 'timeout', message: expect.stringContaining(silent.host) },
    });
    expect(records.get('stuck')?.checkedAt).toBeUndefined();
    expect(records.get('web')).toMatchObject({
      updateAvailable: true,
      updateKind: { kind: 'tag', remoteValue: '2.0.0' },
    });
    expect(records.get('cache')).toMatchObject({ updateAvailable: false, image: { digest: { watch: true } } });
    for (const name of ['web', 'cache']) {
      expect(records.get(name)?.error, name).toBeUndefined();
      expect(records.get(name)?.checkedAt, name).toEqual(expect.any(String));
    }
  }, 60_000);

  it('keeps every record, and the error, through an inventory refresh', async () => {
    const result = await json<{ authoritative: boolean; errors: unknown[]; containers: Container[] }>(
      '/api/v1/watchers/docker/local/inventory',
      { method: 'POST' },
    );
    expect({ authoritative: result.authoritative, errors: result.errors }).toEqual({ authoritative: true, errors: [] });
    expect(result.containers.map((c) => c.name).sort()).toEqual(['cache', 'stuck', 'web']);
    expect((await byName()).get('stuck')?.error).toMatchObject({ kind: 'timeout' });
  });
});
