import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { toContainerEvent, toStats, toSummary } from './engine-mapping';

describe('toStats', () => {
  it('computes CPU and memory as docker stats does (cgroup v1 sample from dockerd 20.10)', () => {
    const stats = toStats({
      cpu_stats: {
        cpu_usage: { total_usage: 3_168_062_702, percpu_usage: [3_082_540_418, 85_522_284] },
        system_cpu_usage: 6_260_050_000_000,
        online_cpus: 2,
      },
      precpu_stats: { cpu_usage: { total_usage: 2_167_049_671 }, system_cpu_usage: 6_258_040_000_000 },
      memory_stats: { usage: 748_000, limit: 25_276_514_304, stats: { cache: 8_192, total_inactive_file: 200_000 } },
    });
    // 1.001 s of CPU time in 2.01 s of host time on 2 CPUs: one busy CPU.
    expect(stats.cpuPercent).toBeCloseTo(99.6, 1);
    expect(stats).toMatchObject({ memoryBytes: 548_000, memoryLimitBytes: 25_276_514_304 });
  });

  it('subtracts inactive_file on cgroup v2, counts percpu entries without online_cpus, and is 0 without a previous sample', () => {
    const v2 = toStats({
      cpu_stats: { cpu_usage: { total_usage: 400, percpu_usage: [1, 2, 3, 4] }, system_cpu_usage: 2_000 },
      precpu_stats: { cpu_usage: { total_usage: 200 }, system_cpu_usage: 1_000 },
      memory_stats: { usage: 1_000, limit: 4_000, stats: { inactive_file: 300 } },
    });
    expect(v2).toEqual({ cpuPercent: 80, memoryBytes: 700, memoryLimitBytes: 4_000 });
    // A stopped container: empty sections.
    expect(toStats({ cpu_stats: {}, precpu_stats: {}, memory_stats: {} })).toEqual({
      cpuPercent: 0,
      memoryBytes: 0,
      memoryLimitBytes: 0,
    });
  });
});

describe('toSummary', () => {
  it('takes the own name rather than a link alias, and maps null labels and foreign states', () => {
    const entry = {
      Id: 'a',
      Names: ['/web/db', '/db'],
      Image: 'db:1',
      ImageID: 'sha256:1',
      State: 'stopped',
      Labels: null,
      Created: 10,
    };
    expect(toSummary(entry as unknown as Docker.ContainerInfo)).toEqual({
      id: 'a',
      name: 'db',
      image: 'db:1',
      imageId: 'sha256:1',
      state: 'exited',
      labels: {},
      createdAt: 10_000,
    });
  });
});

describe('toContainerEvent', () => {
  it('prefers timeNano and the Actor, falling back to the pre-1.22 fields', () => {
    // Parsed from text as the Engine sends it: timeNano is past 2^53.
    const line =
      '{"Action":"start","Actor":{"ID":"x","Attributes":{"name":"n"}},"time":1700000000,"timeNano":1700000000123456789}';
    const modern = toContainerEvent(JSON.parse(line));
    expect(modern).toEqual({ id: 'x', action: 'start', time: 1_700_000_000_123, attributes: { name: 'n' } });
    expect(toContainerEvent({ status: 'die', id: 'y', time: 1_700_000_001 })).toEqual({
      id: 'y',
      action: 'die',
      time: 1_700_000_001_000,
      attributes: {},
    });
  });
});

/** Payloads of Podman 4.3.1's Docker-compatible API (`podman system service`), as seen on Debian 12. */
describe('Podman 4.3.1 payloads', () => {
  it('lists with a numeric Created, sha256: image ids and the qualified image name a short one resolved to', () => {
    const entry = {
      Id: 'ef4a7ad6cca12c637ab305fc9c7fd81a6ddafddeb9c49a311baa8fbe90e8fed4',
      Names: ['/short'],
      Image: '127.0.0.1:5999/app:2.0.0',
      ImageID: 'sha256:0bb2c6c803430d36f7438bc34b2f0a76a833cf6987d4f2d38adec3f5783273bb',
      Command: 'sleep 3600',
      Created: 1796586632,
      Ports: [],
      Labels: {},
      State: 'running',
      Status: 'Up Less than a second',
      NetworkSettings: { Networks: null },
      Mounts: [],
      Name: '',
      Config: null,
      NetworkingConfig: null,
      Platform: null,
      AdjustCPUShares: false,
    };
    expect(toSummary(entry as unknown as Docker.ContainerInfo)).toMatchObject({
      name: 'short',
      image: '127.0.0.1:5999/app:2.0.0',
      imageId: 'sha256:0bb2c6c803430d36f7438bc34b2f0a76a833cf6987d4f2d38adec3f5783273bb',
      state: 'running',
      createdAt: 1796586632_000,
    });
    // Podman's own states, should one reach the list: `configured` (created), `stopped` (exited).
    expect(toSummary({ ...entry, State: 'configured' } as unknown as Docker.ContainerInfo).state).toBe('created');
  });

  it('reads its events: a podId attribute, and an image pull with an empty Actor.ID', () => {
    const start = JSON.parse(
      '{"status":"start","id":"ef4a","from":"127.0.0.1:5999/app:1.0.0","Type":"container","Action":"start","Actor":{"ID":"ef4a","Attributes":{"containerExitCode":"0","image":"127.0.0.1:5999/app:1.0.0","name":"web","podId":""}},"scope":"local","time":1796586632,"timeNano":1796586632849041077}',
    );
    expect(toContainerEvent(start)).toMatchObject({ id: 'ef4a', action: 'start', time: 1796586632849 });
    expect(toContainerEvent(start).attributes).toMatchObject({ name: 'web', podId: '' });
    const pull = { status: 'pull', Type: 'image', Action: 'pull', Actor: { ID: '', Attributes: { name: 'app:1' } } };
    expect(toContainerEvent(pull)).toMatchObject({ id: '', action: 'pull' });
  });
});
