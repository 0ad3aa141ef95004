import { describe, expect, it } from 'vitest';
import type { ContainerSpec } from '../../../shared/docker/docker-host';
import { toPodSpecGenerator } from './podman-pod-create';

/** A pod member as podman-spec.ts leaves it (Podman 4.3.1's inspect of `podman run --pod shop …`). */
const MEMBER: ContainerSpec = {
  name: 'shop-api',
  image: '127.0.0.1:5000/podman/app:2.0.0',
  cmd: ['sleep', '3600'],
  env: ['MODE=prod', 'EMPTY=', 'FLAG'],
  labels: { 'dd.watch': 'true' },
  exposedPorts: [],
  portBindings: {},
  publishAllPorts: false,
  binds: [],
  mounts: [],
  tmpfs: {},
  networkMode: 'container:infra',
  networks: [],
  restartPolicy: { name: '', maximumRetryCount: 0 },
  resources: { pidsLimit: 2048 },
  capAdd: [],
  capDrop: [],
  devices: [],
  privileged: false,
  extraHosts: [],
  tty: false,
  openStdin: false,
  stdinOnce: false,
  logConfig: { type: 'json-file', config: {} },
  otherHostConfig: {
    IpcMode: 'container:infra',
    PidMode: 'private',
    UTSMode: 'container:infra',
    ShmSize: 65536000,
    Runtime: 'oci',
    CgroupParent: '/libpod_parent/0a1b',
  },
};

describe('toPodSpecGenerator', () => {
  it("maps a pod member's own settings onto Podman's SpecGenerator, in its pod", () => {
    expect(toPodSpecGenerator(MEMBER, 'shop')).toEqual({
      name: 'shop-api',
      pod: 'shop',
      image: '127.0.0.1:5000/podman/app:2.0.0',
      command: ['sleep', '3600'],
      env: { MODE: 'prod', EMPTY: '', FLAG: '' },
      labels: { 'dd.watch': 'true' },
      terminal: false,
      stdin: false,
      privileged: false,
      cap_add: [],
      cap_drop: [],
      mounts: [],
      volumes: [],
      resource_limits: { pids: { limit: 2048 } },
      log_configuration: { driver: 'json-file', options: {} },
    });
  });

  it('takes stop signals by name or number, restart retries, the health check and resource limits', () => {
    const generated = toPodSpecGenerator(
      {
        ...MEMBER,
        entrypoint: ['/entry.sh'],
        user: '1000',
        workingDir: '/srv',
        stopSignal: 'SIGQUIT',
        stopTimeout: 30,
        restartPolicy: { name: 'on-failure', maximumRetryCount: 3 },
        healthcheck: { test: ['CMD', 'true'], intervalNs: 1e9, retries: 2 },
        resources: { memory: 1 << 26, cpuShares: 512, cpusetCpus: '0' },
      },
      'shop',
    );
    expect(generated).toMatchObject({
      entrypoint: ['/entry.sh'],
      user: '1000',
      work_dir: '/srv',
      stop_signal: 3,
      stop_timeout: 30,
      restart_policy: 'on-failure',
      restart_tries: 3,
      healthconfig: { Test: ['CMD', 'true'], Interval: 1e9, Retries: 2 },
      resource_limits: { memory: { limit: 1 << 26 }, cpu: { shares: 512, cpus: '0' } },
    });
    expect(toPodSpecGenerator({ ...MEMBER, stopSignal: '10' }, 'shop')['stop_signal']).toBe(10);
  });

  it('refuses what it does not carry, naming all of it, rather than dropping it', () => {
    expect(() =>
      toPodSpecGenerator(
        { ...MEMBER, tmpfs: { '/run': '' }, resources: { nanoCpus: 5e8 }, otherHostConfig: { Ulimits: [] } },
        'shop',
      ),
    ).toThrow(
      'cannot re-create shop-api in the pod shop: not carried by this re-creation: tmpfs mounts, --cpus, HostConfig.Ulimits',
    );
    expect(() => toPodSpecGenerator({ ...MEMBER, stopSignal: 'SIGWINCH' }, 'shop')).toThrow(/its stop signal/);
  });
});
