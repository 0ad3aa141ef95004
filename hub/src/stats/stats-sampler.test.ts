import { describe, expect, it } from 'vitest';
import { DockerNotFoundError, type DockerStats } from '../../../shared/docker/docker-host';
import { createStatsSampler, type StatsTarget } from './stats-sampler';

function fakeHost(answer: (id: string) => DockerStats | Error) {
  const calls: string[] = [];
  return {
    calls,
    async stats(id: string): Promise<DockerStats> {
      calls.push(id);
      const result = answer(id);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

const use = (cpuPercent: number, memoryBytes = 100, memoryLimitBytes = 1000): DockerStats => ({
  cpuPercent,
  memoryBytes,
  memoryLimitBytes,
});

describe('stats sampler', () => {
  it('shares a sample between concurrent and near callers, and keeps a bounded history', async () => {
    let now = 0;
    const host = fakeHost(() => use(now / 1000));
    const sampler = createStatsSampler({ now: () => now, isKnown: () => true, historySize: 3, freshMs: 1_000 });
    const [a, b] = await Promise.all([sampler.sample('c1', host), sampler.sample('c1', host)]);
    expect(a).toBe(b);
    now = 999;
    expect(await sampler.sample('c1', host)).toBe(a);
    expect(host.calls).toEqual(['c1']);
    for (const at of [1_000, 2_000, 3_000]) {
      now = at;
      await sampler.sample('c1', host);
    }
    expect(host.calls).toHaveLength(4);
    expect(sampler.history('c1').map((sample) => sample.cpuPercent)).toEqual([1, 2, 3]);
    expect(sampler.history('c1')[2]).toEqual({
      cpuPercent: 3,
      memoryBytes: 100,
      memoryLimitBytes: 1000,
      at: new Date(3_000).toISOString(),
    });
    expect(sampler.history('other')).toEqual([]);
  });

  it('passes Docker failures to the caller and keeps no sample of them', async () => {
    const host = fakeHost(() => new DockerNotFoundError('container c1'));
    const sampler = createStatsSampler({ now: () => 0, isKnown: () => true });
    await expect(sampler.sample('c1', host)).rejects.toBeInstanceOf(DockerNotFoundError);
    expect(sampler.history('c1')).toEqual([]);
  });

  it('drops the histories of containers the inventory no longer has once over its bound', async () => {
    let now = 0;
    const known = new Set(['a', 'b', 'c']);
    const host = fakeHost(() => use(1));
    const sampler = createStatsSampler({ now: () => now, isKnown: (id) => known.has(id), maxTracked: 2 });
    await sampler.sample('a', host);
    await sampler.sample('b', host);
    known.delete('a');
    now = 10_000;
    await sampler.sample('c', host);
    expect(sampler.history('a')).toEqual([]);
    expect(sampler.history('b')).toHaveLength(1);
    expect(sampler.history('c')).toHaveLength(1);
  });

  it('sums the fleet, counts host memory once per host, tolerates failures and shares the result for a while', async () => {
    let now = 0;
    const host = fakeHost((id) =>
      id === 'broken' ? new Error('docker: stats failed') : use(id === 'a' ? 10.5 : 20.25, 100, 8_000),
    );
    const other = fakeHost(() => use(1, 50, 4_000));
    const targets: StatsTarget[] = [
      { id: 'a', host, hostKey: 'docker.local' },
      { id: 'b', host, hostKey: 'docker.local' },
      { id: 'broken', host, hostKey: 'docker.local' },
      { id: 'x', host: other, hostKey: 'docker.nas' },
    ];
    let loads = 0;
    const load = () => {
      loads++;
      return { running: 5, targets };
    };
    const sampler = createStatsSampler({ now: () => now, isKnown: () => true, summaryTtlMs: 2_000, concurrency: 2 });
    const [first, same] = await Promise.all([sampler.summary(load), sampler.summary(load)]);
    expect(first).toEqual({
      containers: 5,
      sampled: 3,
      cpuPercent: 31.75,
      memoryBytes: 250,
      memoryLimitBytes: 12_000,
      at: new Date(0).toISOString(),
    });
    expect(same).toBe(first);
    now = 1_999;
    expect(await sampler.summary(load)).toBe(first);
    expect(loads).toBe(1);
    now = 2_000;
    expect((await sampler.summary(load)).at).toBe(new Date(2_000).toISOString());
    expect(loads).toBe(2);
  });
});
