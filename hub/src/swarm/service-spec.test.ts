import { describe, expect, it } from 'vitest';
import type { SwarmService } from '../../../shared/docker/swarm-engine';
import { settleTimeoutMs, specImage, specWithImage } from './service-spec';

const spec: SwarmService['Spec'] = {
  Name: 'web',
  Labels: { 'dd.tag.include': '^1' },
  TaskTemplate: { ContainerSpec: { Image: 'app:1.0.0@sha256:aaa', Env: ['A=1'] }, RestartPolicy: { Condition: 'any' } },
  Mode: { Replicated: { Replicas: 5 } },
  UpdateConfig: { Parallelism: 2, Delay: 3e9, Monitor: 1e9, FailureAction: 'rollback' },
};
const service: SwarmService = { ID: 's', Spec: spec };

describe('specWithImage', () => {
  it('changes the image alone, keeping the rest of the spec (its UpdateConfig applies)', () => {
    const next = specWithImage(spec, 'app:2.0.0');
    expect(next).toEqual({
      ...spec,
      TaskTemplate: { ...spec.TaskTemplate, ContainerSpec: { Image: 'app:2.0.0', Env: ['A=1'] } },
    });
    expect(specImage(spec)).toBe('app:1.0.0');
  });

  it('raises ForceUpdate when the reference is the one the spec names (a rebuilt image under its tag)', () => {
    const unpinned = {
      ...spec,
      TaskTemplate: { ...spec.TaskTemplate, ContainerSpec: { Image: 'app:1.0.0' }, ForceUpdate: 4 },
    };
    expect(specWithImage(unpinned, 'app:1.0.0').TaskTemplate.ForceUpdate).toBe(5);
    expect(specWithImage(spec, 'app:1.0.0').TaskTemplate).not.toHaveProperty('ForceUpdate');
  });
});

describe('settleTimeoutMs', () => {
  it('allows the health timeout, Delay and Monitor for each batch of Parallelism tasks', () => {
    // 5 replicas, 2 at a time: 3 batches of (10 s + 3 s + 1 s).
    expect(settleTimeoutMs(service, 5, 10_000, spec.UpdateConfig)).toBe(42_000);
    // Parallelism 0 is every task at once; Monitor defaults to 5 s; a global service counts its tasks.
    const global = { ...service, Spec: { ...spec, Mode: { Global: {} } } };
    expect(settleTimeoutMs(global, 3, 10_000, { Parallelism: 0 })).toBe(15_000);
    expect(settleTimeoutMs(global, 3, 10_000, undefined)).toBe(45_000);
  });
});
