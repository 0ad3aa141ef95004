import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHub } from '../../hub/src/adapter/node/start-node-hub';
import type { Container } from '../../shared/schemas/container';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { openSse, type SseStream } from '../support/sse-client';
import { publishTestApp, startWatchingHub, testAppRef, waitFor } from '../support/test-app-image';

/**
 * The containers capability end to end, on real components: a dockerd, a registry that images are
 * pushed to with the docker CLI, and the hub as `npm start` runs it, watching that dockerd.
 */
describe('containers on a real Docker Engine, checked against a real registry', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let dataDir: string;
  let hub: NodeHub;
  let stream: SseStream | undefined;
  const ref = (tag: string) => testAppRef(registry, tag);

  const publish = (tag: string, build: string) => publishTestApp(dockerd, registry, tag, build);

  const api = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init);
  const json = async (path: string, init?: RequestInit) => (await api(path, init)).json();
  const byName = async (name: string): Promise<Container> =>
    ((await json('/api/v1/containers')) as { data: Container[] }).data.find((c) => c.name === name) as Container;

  const startHub = () => startWatchingHub(dockerd, dataDir);

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    dataDir = await mkdtemp(join(tmpdir(), 'hub-containers-'));
    await publish('1.0.0', 'one');
    await publish('latest', 'one');
    await runContainer(dockerd.docker, {
      name: 'web',
      image: ref('1.0.0'),
      labels: { 'dd.display.name': 'Web shop' },
      env: ['API_TOKEN=s3cr3t', 'MODE=prod'],
    });
    await runContainer(dockerd.docker, { name: 'cache', image: ref('latest') });
    await runContainer(dockerd.docker, { name: 'ignored', image: ref('latest'), labels: { 'dd.watch': 'false' } });
    hub = await startHub();
  }, 120_000);

  afterAll(async () => {
    await stream?.close?.();
    await hub?.close();
    await dockerd?.stop();
    await registry?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists every running container with what is newer, env redacted', async () => {
    await publish('2.0.0', 'two');
    const watched = await json('/api/v1/containers/watch', { method: 'POST' });
    expect(watched.total).toBe(3);
    const web = await byName('web');
    expect(web).toMatchObject({
      displayName: 'Web shop',
      watcher: 'local',
      status: 'running',
      watched: true,
      image: { registry: { url: registry.host }, name: 'test/app', tag: { value: '1.0.0', semver: true } },
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
      result: { tag: '2.0.0', publishedAtTrusted: false },
    });
    expect(web.image.digest.repo).toMatch(/^sha256:/);
    expect(web.env).toEqual(
      expect.arrayContaining([
        { key: 'API_TOKEN', value: '***' },
        { key: 'MODE', value: 'prod' },
      ]),
    );
    expect(await byName('cache')).toMatchObject({
      updateAvailable: false,
      image: { tag: { value: 'latest', semver: false }, digest: { watch: true } },
    });
    expect(await byName('ignored')).toMatchObject({ watched: false, updateAvailable: false });
    expect(JSON.stringify(await json('/api/v1/containers'))).not.toContain('s3cr3t');
    expect(await json('/api/v1/containers/summary')).toMatchObject({
      containers: { total: 3, running: 3, updatesAvailable: 1 },
    });
    const audit = await json('/api/v1/audit?limit=200');
    const actions = audit.data.map(
      (entry: { action: string; containerName: string }) => `${entry.action}:${entry.containerName}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining(['container-added:web', 'container-added:cache', 'update-available:web']),
    );
    expect(await json('/api/v1/containers?status=update-available&kind=major')).toMatchObject({
      total: 1,
      data: [{ name: 'web' }],
    });
  });

  it('sees a rebuilt latest as a digest update', async () => {
    await publish('latest', 'rebuilt');
    await api('/api/v1/containers/watch', { method: 'POST' });
    const cache = await byName('cache');
    expect(cache).toMatchObject({
      updateAvailable: true,
      updateKind: { kind: 'digest', localValue: cache.image.digest.repo },
    });
    expect(cache.updateKind.kind === 'digest' && cache.updateKind.remoteValue).toMatch(/^sha256:/);
  });

  it('follows containers started, stopped and removed while it watches, on the UI stream', async () => {
    stream = await openSse(api, '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');
    const id = await runContainer(dockerd.docker, { name: 'worker', image: ref('1.0.0') });
    const added = JSON.parse((await stream.nextOfType('dd:container-added', 15_000)).data);
    expect(added).toMatchObject({ id, name: 'worker', status: 'running' });
    await dockerd.docker.getContainer(id).stop();
    const removed = JSON.parse((await stream.nextOfType('dd:container-removed', 15_000)).data);
    expect(removed).toMatchObject({ id, name: 'worker' });
    expect(await byName('worker')).toBeUndefined();
  });

  it('announces a container whose health check turns unhealthy, and audits it', async () => {
    stream ??= await openSse(api, '/api/v1/events/ui');
    await importBusyboxImage(dockerd.docker, {
      repository: 'test/sick',
      tag: '1',
      cmd: ['sleep', '3600'],
      healthcheck: ['/bin/false'],
    });
    const id = await runContainer(dockerd.docker, {
      name: 'sick',
      image: 'test/sick:1',
      labels: { 'dd.watch': 'false' },
    });
    const event = JSON.parse((await stream.nextOfType('dd:container-unhealthy', 20_000)).data);
    expect(event).toMatchObject({ containerName: 'sick', health: 'unhealthy', container: { id, health: 'unhealthy' } });
    const audit = await json('/api/v1/audit?action=container-unhealthy');
    expect(audit.data[0]).toMatchObject({ action: 'container-unhealthy', containerName: 'sick' });
    await dockerd.docker.getContainer(id).remove({ force: true });
    await stream.nextOfType('dd:container-removed', 15_000);
  });

  it('refreshes the inventory without registry checks, exactly as http-interface §4.3 says', async () => {
    const result = await json('/api/v1/watchers/docker/local/inventory', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(result.context).toEqual({
      operationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      source: { type: 'docker', name: 'local' },
    });
    expect(result).toMatchObject({ authoritative: true, errors: [], removedIds: [] });
    expect(result.containers.map((c: Container) => c.name).sort()).toEqual(['cache', 'ignored', 'web']);
    const watchers = await json('/api/v1/watchers');
    expect(watchers.data[0]).toMatchObject({
      id: 'docker.local',
      type: 'docker',
      name: 'local',
      metadata: { inventoryRefreshSupported: true, lastRunAt: expect.any(String) },
    });
    expect(watchers.data[0].configuration.endpoint).toBe(`unix://${dockerd.socketPath}`);
  });

  it('keeps a policy across re-creation of the container and a restart of the hub', async () => {
    const web = await byName('web');
    const skipped = await json(`/api/v1/containers/${web.id}/update-policy`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'skip-current' }),
    });
    expect(skipped).toMatchObject({ updatePolicy: { skipTags: ['2.0.0'] }, blockers: [{ reason: 'skipped' }] });
    await dockerd.docker.getContainer(web.id).remove({ force: true });
    const recreated = await runContainer(dockerd.docker, { name: 'web', image: ref('1.0.0') });
    await hub.close();
    hub = await startHub();
    await api('/api/v1/containers/watch', { method: 'POST' });
    const again = await byName('web');
    expect(again.id).toBe(recreated);
    expect(again).toMatchObject({ updatePolicy: { skipTags: ['2.0.0'] } });
    // 2.0.0 is skipped, so no other candidate is newer: nothing to offer.
    expect(again.updateAvailable).toBe(false);
  });

  it('keeps every record when the Docker daemon goes away mid-watch', async () => {
    const before = (await json('/api/v1/containers')).total;
    expect(before).toBe(3);
    // SIGKILL, not dockerd.stop(): that removes the containers first, and the hub rightly follows.
    const pid = Number(await readFile(join(dirname(dockerd.socketPath), 'dockerd.pid'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    await waitFor(
      async () =>
        (await dockerd.dockerHost.ping().then(
          () => 'up',
          () => 'down',
        )) === 'down',
      10_000,
    );
    const result = await json('/api/v1/watchers/docker/local/inventory', { method: 'POST' });
    expect(result.authoritative).toBe(false);
    expect(result.errors[0]).toMatchObject({ phase: 'list' });
    expect((await json('/api/v1/containers')).total).toBe(before);
    expect((await api('/health')).status).toBe(200);
  });
});
