import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DockerContainerEvent, type DockerHost, DockerNotFoundError } from '../../../shared/docker/docker-host';
import { startDockerd, type TestDockerd } from '../../../test/support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../../../test/support/docker/test-images';
import { createDockerHost } from './index';

const BASE = 'localhost/busybox:base';
const SLEEP = ['sleep', '1000'];

/** Records a subscription's events; `next` resolves on the first (recorded or coming) match. */
function recordEvents(host: DockerHost) {
  const events: DockerContainerEvent[] = [];
  const closes: Array<Error | undefined> = [];
  const waiters = new Set<{
    match: (e: DockerContainerEvent) => boolean;
    resolve: (e: DockerContainerEvent) => void;
  }>();
  let closed: ((error: Error | undefined) => void) | undefined;
  const onClose = new Promise<Error | undefined>((resolve) => {
    closed = resolve;
  });
  const subscription = host.subscribeEvents({
    onEvent(event) {
      events.push(event);
      for (const waiter of waiters) if (waiter.match(event)) waiter.resolve(event);
    },
    onClose(error) {
      closes.push(error);
      closed?.(error);
    },
  });
  const next = (id: string, action: string) =>
    new Promise<DockerContainerEvent>((resolve) => {
      const match = (e: DockerContainerEvent) => e.id === id && e.action === action;
      const seen = events.find(match);
      if (seen) resolve(seen);
      else waiters.add({ match, resolve });
    });
  return { events, closes, next, onClose, close: () => subscription.close() };
}

describe('createDockerHost against a real dockerd', () => {
  let dockerd: TestDockerd;
  let host: DockerHost;
  let docker: Docker;
  let count = 0;
  const name = (prefix: string) => `${prefix}-${++count}`;

  beforeAll(async () => {
    dockerd = await startDockerd();
    ({ dockerHost: host, docker } = dockerd);
    await importBusyboxImage(docker, { repository: 'localhost/busybox', tag: 'base' });
  });
  afterAll(() => dockerd?.stop());

  it('pings the Engine and names it by its socket', async () => {
    await host.ping();
    expect(host.endpoint).toBe(`unix://${dockerd.socketPath}`);
  });

  it('lists running containers, and with `all` the exited ones too', async () => {
    const before = Date.now();
    const runningName = name('running');
    const running = await runContainer(docker, { name: runningName, image: BASE, cmd: SLEEP, labels: { tier: 'web' } });
    const exited = await runContainer(docker, { name: name('exited'), image: BASE, cmd: ['true'] });
    await docker.getContainer(exited).wait();

    const live = await host.listContainers(false);
    expect(live.map((c) => c.id)).toContain(running);
    expect(live.map((c) => c.id)).not.toContain(exited);
    const all = await host.listContainers(true);
    const summary = all.find((c) => c.id === running);
    expect(summary).toMatchObject({ name: runningName, image: BASE, state: 'running', labels: { tier: 'web' } });
    expect(summary?.imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The list gives whole seconds, inspect gives the exact time.
    expect(summary?.createdAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(all.find((c) => c.id === exited)?.state).toBe('exited');
  });

  it('keeps Config.Image in the list after the tag moved to a newer image', async () => {
    const oldId = await importBusyboxImage(docker, { repository: 'localhost/moving', tag: '1' });
    const id = await runContainer(docker, { name: name('moving'), image: 'localhost/moving:1', cmd: SLEEP });
    const newId = await importBusyboxImage(docker, {
      repository: 'localhost/moving',
      tag: '1',
      extraFile: { path: 'etc/build', content: '2' },
    });
    expect(newId).not.toBe(oldId);

    // What the Engine itself lists then: the old image's id instead of the reference.
    const raw = await docker.listContainers({ filters: { id: [id] } });
    expect(raw[0]?.Image).toBe(oldId);
    const [summary] = (await host.listContainers(false)).filter((c) => c.id === id);
    expect(summary).toMatchObject({ image: 'localhost/moving:1', imageId: oldId });
  });

  it('inspects labels, env, start time and restart count', async () => {
    const inspectName = name('inspect');
    const id = await runContainer(docker, {
      name: inspectName,
      image: BASE,
      cmd: SLEEP,
      labels: { a: '1' },
      env: ['FOO=bar'],
    });
    const details = await host.inspectContainer(id);
    expect(details).toMatchObject({
      id,
      name: inspectName,
      image: BASE,
      state: 'running',
      labels: { a: '1' },
      restartCount: 0,
    });
    expect(details?.env).toContain('FOO=bar');
    expect(Date.parse(details?.startedAt ?? '')).toBeGreaterThanOrEqual(details?.createdAt ?? Number.NaN);
    expect(details?.health).toBeUndefined();
    // By name as well as by id.
    expect((await host.inspectContainer(inspectName))?.id).toBe(id);
  });

  it('reports health from HEALTHCHECK, as the health_status events announce it', async () => {
    await importBusyboxImage(docker, { repository: 'localhost/health', tag: 'ok', cmd: SLEEP, healthcheck: ['true'] });
    await importBusyboxImage(docker, {
      repository: 'localhost/health',
      tag: 'bad',
      cmd: SLEEP,
      healthcheck: ['false'],
    });
    const recorder = recordEvents(host);
    const healthy = await runContainer(docker, { name: name('healthy'), image: 'localhost/health:ok' });
    const unhealthy = await runContainer(docker, { name: name('unhealthy'), image: 'localhost/health:bad' });
    await Promise.all([
      recorder.next(healthy, 'health_status: healthy'),
      recorder.next(unhealthy, 'health_status: unhealthy'),
    ]);
    recorder.close();

    expect((await host.inspectContainer(healthy))?.health).toBe('healthy');
    expect((await host.inspectContainer(unhealthy))?.health).toBe('unhealthy');
    // Each probe is an exec: the host filters those events out of the lifecycle stream.
    expect(recorder.events.filter((e) => e.action.startsWith('exec_'))).toEqual([]);
  });

  it('answers undefined for a removed container and for ids that are no container reference', async () => {
    const id = await runContainer(docker, { name: name('removed'), image: BASE, cmd: SLEEP });
    await docker.getContainer(id).remove({ force: true });
    expect(await host.inspectContainer(id)).toBeUndefined();
    expect(await host.inspectContainer('../images/json')).toBeUndefined();
  });

  it('inspects images; an imported image has tags but no RepoDigests (those come from registries)', async () => {
    const image = await host.inspectImage(BASE);
    expect(image).toMatchObject({ repoTags: [BASE], repoDigests: [], os: 'linux' });
    expect(image?.architecture).toBe(process.arch === 'x64' ? 'amd64' : process.arch);
    expect(image?.id).toMatch(/^sha256:/);
    expect(Date.parse(image?.created ?? '')).toBeGreaterThan(0);
    expect(await host.inspectImage(image?.id ?? '')).toMatchObject({ repoTags: [BASE] });
    expect(await host.inspectImage('localhost/none:missing')).toBeUndefined();
  });

  it('streams create, start, rename, die and destroy of containers made after subscribing', async () => {
    const recorder = recordEvents(host);
    const before = Date.now();
    const [first, second] = [name('events'), name('renamed')];
    const container = await docker.createContainer({
      name: first,
      Image: BASE,
      Cmd: SLEEP,
      HostConfig: { Init: true },
    });
    const { id } = container;
    await container.start();
    await container.rename({ name: second });
    await container.stop({ t: 1 });
    await container.remove();

    const created = await recorder.next(id, 'create');
    expect(created.attributes).toMatchObject({ name: first, image: BASE });
    expect(created.time).toBeGreaterThanOrEqual(before - 1_000);
    expect(created.time).toBeLessThanOrEqual(Date.now());
    await recorder.next(id, 'start');
    expect((await recorder.next(id, 'rename')).attributes).toMatchObject({ name: second, oldName: `/${first}` });
    await recorder.next(id, 'stop');
    expect((await recorder.next(id, 'die')).attributes['exitCode']).toBeDefined();
    await recorder.next(id, 'destroy');
    const order = recorder.events.filter((e) => e.id === id).map((e) => e.action);
    expect(order.indexOf('create')).toBeLessThan(order.indexOf('destroy'));
    recorder.close();
  });

  it('delivers nothing more, and no onClose, after close()', async () => {
    const closedEarly = recordEvents(host);
    closedEarly.close();
    const open = recordEvents(host);
    const id = await runContainer(docker, { name: name('after-close'), image: BASE, cmd: ['true'] });
    await open.next(id, 'die');
    open.close();
    // The aborted request settled long before this later event arrived on the other stream.
    expect(closedEarly.events).toEqual([]);
    expect(closedEarly.closes).toEqual([]);
  });

  it('starts, stops, restarts and removes; repeating a start or stop is no error', async () => {
    const id = await runContainer(docker, { name: name('lifecycle'), image: BASE, cmd: SLEEP });
    const firstStart = (await host.inspectContainer(id))?.startedAt;
    await host.stop(id);
    expect((await host.inspectContainer(id))?.state).toBe('exited');
    expect((await host.inspectContainer(id))?.startedAt).toBeUndefined();
    await host.stop(id);
    await host.start(id);
    await host.start(id);
    expect((await host.inspectContainer(id))?.state).toBe('running');
    await host.restart(id);
    const restarted = await host.inspectContainer(id);
    expect(restarted?.state).toBe('running');
    expect(restarted?.startedAt).not.toBe(firstStart);

    await expect(host.remove(id)).rejects.toThrow(`docker(unix://${dockerd.socketPath}): remove ${id}: `);
    await host.stop(id);
    await host.remove(id);
    expect(await host.inspectContainer(id)).toBeUndefined();
  });

  it('throws DockerNotFoundError for unknown containers', async () => {
    const calls: Array<(id: string) => Promise<unknown>> = [
      (id) => host.start(id),
      (id) => host.stop(id),
      (id) => host.restart(id),
      (id) => host.remove(id),
      (id) => host.stats(id),
    ];
    for (const call of calls) await expect(call('no-such-container')).rejects.toBeInstanceOf(DockerNotFoundError);
    await expect(host.stop('../../info')).rejects.toBeInstanceOf(DockerNotFoundError);
  });

  it('measures a busy container the way docker stats does', async () => {
    const id = await runContainer(docker, {
      name: name('busy'),
      image: BASE,
      cmd: ['sh', '-c', 'while :; do :; done'],
    });
    const stats = await host.stats(id);
    // One busy loop is about one CPU (100); the bounds leave room for a loaded machine.
    expect(stats.cpuPercent).toBeGreaterThan(10);
    expect(stats.cpuPercent).toBeLessThanOrEqual(100 * 64);
    expect(stats.memoryBytes).toBeGreaterThan(0);
    expect(stats.memoryLimitBytes).toBeGreaterThan(stats.memoryBytes);
    await docker.getContainer(id).remove({ force: true });
  });
});

describe('createDockerHost when the Engine goes away', () => {
  let dockerd: TestDockerd | undefined;
  afterAll(() => dockerd?.stop());

  it('rejects calls with the endpoint in the message and reports the event stream closed with an error', async () => {
    dockerd = await startDockerd();
    // A host of its own: the instance's own host is closed (quietly) before the daemon stops.
    const host = createDockerHost({ socketPath: dockerd.socketPath });
    await importBusyboxImage(dockerd.docker, { repository: 'localhost/busybox', tag: 'base' });
    const recorder = recordEvents(host);
    const id = await runContainer(dockerd.docker, { name: 'doomed', image: BASE, cmd: SLEEP });
    await recorder.next(id, 'start');

    await dockerd.stop();
    const error = await recorder.onClose;
    expect(error?.message).toMatch(new RegExp(`^docker\\(unix://${dockerd.socketPath}\\): events: `));
    await expect(host.listContainers(true)).rejects.toThrow(
      `docker(unix://${dockerd.socketPath}): list containers: connect ENOENT`,
    );
    await expect(host.inspectContainer(id)).rejects.toThrow(`inspect ${id}:`);
    await host.close();
  });
});
