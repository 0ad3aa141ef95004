import { describe, expect, it } from 'vitest';
import type { DockerContainerSummary, UpdatableDockerHost } from '../../../shared/docker/docker-host';
import { fakeDockerHost } from '../../../test/support/fake-docker-host';
import { PodmanHost } from './podman-host';

const summary = (id: string, image: string, labels: Record<string, string> = {}): DockerContainerSummary => ({
  id,
  name: id,
  image,
  imageId: `sha256:${id}`,
  state: 'running',
  labels,
  createdAt: 0,
});

const web = summary('web', '127.0.0.1:5000/app:1.0.0', { 'io.containers.autoupdate': 'local' });
const one = summary('one', 'docker.io/library/redis:7');
const infra = summary('infra', 'localhost/podman-pause:4.3.1-0', { 'io.buildah.version': '1.28.2' });
const POD = { Name: 'shop', InfraId: 'infra', Containers: [{ Id: 'one' }, { Id: 'infra' }] };

/** A Podman host over a fake engine whose containers and pods the test sets. */
function bed(containers: DockerContainerSummary[], pods: unknown[]) {
  let podCalls = 0;
  const engine = fakeDockerHost({
    listContainers: async () => containers,
    inspectContainer: async (id) => {
      const found = containers.find((container) => container.id === id);
      return found && { ...found, env: [], restartCount: 0 };
    },
    inspectImage: async () => undefined,
  }) as UpdatableDockerHost;
  const created: unknown[] = [];
  const host = new PodmanHost(engine, {
    listPods: async () => {
      podCalls += 1;
      return pods;
    },
    createContainer: async (body) => {
      created.push(body);
      return 'new-id';
    },
    ...noHealthchecks,
  });
  return { host, engine, created, podCalls: () => podCalls };
}

const unexpected = async (): Promise<never> => {
  throw new Error('not expected in this test');
};
/** For containers without a health check: the host never asks. */
const noHealthchecks = { inspectContainer: unexpected, runHealthcheck: unexpected, inspectImage: unexpected };

describe('PodmanHost', () => {
  it("lists a pod's containers with their pod as group, leaves the infra container out, reads the policy label", async () => {
    const { host, podCalls } = bed([web, one, infra], [POD]);
    const listed = await host.listContainers(true);
    expect(listed.map((container) => container.id)).toEqual(['web', 'one']);
    expect(listed[0]?.labels).toEqual({ 'io.containers.autoupdate': 'local', 'dd.watch': 'false' });
    expect(listed[1]?.labels).toEqual({ 'dd.group': 'shop', 'dockwatch.podman.pod': 'shop' });
    expect(podCalls()).toBe(1);
  });

  it('inspects with the same labels, asking for the pods again only for a container created since', async () => {
    const containers = [web, one, infra];
    const pods = [POD];
    const { host, podCalls } = bed(containers, pods);
    await host.listContainers(false);
    expect((await host.inspectContainer('one'))?.labels['dd.group']).toBe('shop');
    expect(await host.inspectContainer('web')).toMatchObject({ labels: { 'dd.watch': 'false' } });
    expect(await host.inspectContainer('infra')).toBeUndefined();
    expect(podCalls()).toBe(1);

    // Created in the pod after the listing: its event's inspect learns its pod.
    containers.push(summary('two', 'quay.io/acme/api:2'));
    pods[0] = { ...POD, Containers: [...POD.Containers, { Id: 'two' }] };
    expect((await host.inspectContainer('two'))?.labels['dd.group']).toBe('shop');
    expect(podCalls()).toBe(2);
    // What was known before stays known.
    await host.inspectContainer('web');
    await host.inspectContainer('two');
    expect(podCalls()).toBe(2);
    expect(await host.inspectContainer('gone')).toBeUndefined();
  });

  it('names the socket when the pods cannot be listed (a Docker Engine has no libpod API)', async () => {
    const engine = fakeDockerHost({
      listContainers: async () => [web],
      inspectContainer: async () => undefined,
      inspectImage: async () => undefined,
    }) as UpdatableDockerHost;
    const failing = new PodmanHost(engine, {
      listPods: async () => {
        throw new Error('(HTTP code 404) unexpected - not found (is this a Podman socket?)');
      },
      createContainer: unexpected,
      ...noHealthchecks,
    });
    await expect(failing.listContainers(false)).rejects.toThrow(
      'podman(unix:///fake.sock): list pods: (HTTP code 404) unexpected - not found (is this a Podman socket?)',
    );
    const odd = new PodmanHost(engine, {
      listPods: async () => ({ message: 'page not found' }),
      createContainer: unexpected,
      ...noHealthchecks,
    });
    await expect(odd.listContainers(false)).rejects.toThrow(/libpod pods: unexpected answer/);
  });

  it("creates a pod's container again in its pod through libpod, any other through the Docker API", async () => {
    const { host, engine, created } = bed([web, one, infra], [POD]);
    const compat: string[] = [];
    engine.createContainer = async (spec) => {
      compat.push(spec.name);
      return 'compat-id';
    };
    const spec = {
      name: 'one',
      image: 'docker.io/library/redis:8',
      env: ['MODE=prod'],
      labels: {},
      exposedPorts: [],
      portBindings: {},
      publishAllPorts: false,
      binds: ['data:/data', '/srv/conf:/conf:ro'],
      mounts: [],
      tmpfs: {},
      networkMode: 'container:infra',
      networks: [],
      restartPolicy: { name: 'always', maximumRetryCount: 0 },
      resources: { memory: 64 * 1024 * 1024 },
      capAdd: [],
      capDrop: [],
      devices: [],
      privileged: false,
      extraHosts: [],
      tty: false,
      openStdin: false,
      stdinOnce: false,
      otherHostConfig: { IpcMode: 'container:infra', UTSMode: 'container:infra', Runtime: 'oci' },
    };
    expect(await host.createContainer(spec)).toBe('new-id');
    expect(created[0]).toMatchObject({
      name: 'one',
      pod: 'shop',
      image: 'docker.io/library/redis:8',
      env: { MODE: 'prod' },
      restart_policy: 'always',
      volumes: [{ Name: 'data', Dest: '/data', Options: [] }],
      mounts: [{ type: 'bind', source: '/srv/conf', destination: '/conf', options: ['rbind', 'ro'] }],
      resource_limits: { memory: { limit: 64 * 1024 * 1024 } },
    });
    expect(await host.createContainer({ ...spec, name: 'web', networkMode: 'none' })).toBe('compat-id');
    expect(compat).toEqual(['web']);
    // What the libpod mapping does not carry is refused, never dropped.
    await expect(
      host.createContainer({
        ...spec,
        devices: [{ pathOnHost: '/dev/fuse', pathInContainer: '/dev/fuse', cgroupPermissions: 'rwm' }],
      }),
    ).rejects.toThrow(/cannot re-create one in the pod shop: not carried by this re-creation: devices/);
    await expect(host.createContainer({ ...spec, otherHostConfig: { Sysctls: { a: '1' } } })).rejects.toThrow(
      /HostConfig.Sysctls/,
    );
  });

  it('runs the health check of a starting container when one is due (no systemd timer does), and answers its outcome', async () => {
    const details = { ...web, env: [], restartCount: 0, startedAt: '2026-01-01T00:00:00Z' };
    let health: 'starting' | 'healthy' = 'starting';
    let clock = Date.parse('2026-01-01T00:00:01Z');
    const log: { End: string }[] = [];
    const runs: string[] = [];
    const engine = fakeDockerHost({
      listContainers: async () => [web],
      inspectContainer: async (id) => (id === 'web' ? { ...details, health } : undefined),
      inspectImage: async () => undefined,
    }) as UpdatableDockerHost;
    const host = new PodmanHost(
      engine,
      {
        listPods: async () => [],
        createContainer: unexpected,
        inspectImage: unexpected,
        inspectContainer: async () => ({
          Config: { Healthcheck: { Interval: 2e9 } },
          State: { StartedAt: details.startedAt, Health: { Log: log.length > 0 ? log : null } },
        }),
        runHealthcheck: async (id) => {
          runs.push(id);
          log.push({ End: new Date(clock).toISOString() });
          // Its second run passes (the service took a moment to come up).
          if (runs.length === 2) health = 'healthy';
        },
      },
      () => clock,
    );
    // The check keeps failing within its start period: still starting, run again only once its interval passed.
    expect(await host.inspectContainer('web')).toMatchObject({
      id: 'web',
      health: 'starting',
      labels: { 'dd.watch': 'false' },
    });
    clock += 1_000;
    expect(await host.inspectContainer('web')).toMatchObject({ health: 'starting' });
    expect(runs).toEqual(['web']);
    clock += 1_000;
    expect(await host.inspectContainer('web')).toMatchObject({ health: 'healthy' });
    expect(runs).toEqual(['web', 'web']);
    // Healthy (or unhealthy): Podman's verdict stands, nothing more is run.
    clock += 10_000;
    await host.inspectContainer('web');
    expect(runs).toHaveLength(2);
  });
});
