import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { type PlanResult, planRollout, type RolloutPlan, repositoryOfInput } from './rollout-plan';

function container(name: string, agent: string | undefined, toVersion: string | undefined, group?: string): Container {
  return {
    id: `${agent ?? 'local'}-${name}`,
    name,
    watcher: 'local',
    ...(agent !== undefined && { agent }),
    ...(group !== undefined && { group }),
    labels: {},
    env: [],
    image: {
      id: 'sha256:1',
      registry: { name: 'custom', url: 'registry.test:5000' },
      name: 'team/web',
      tag: { value: '1.0.0', semver: true },
      digest: { watch: false },
      architecture: 'amd64',
      os: 'linux',
    },
    updateAvailable: toVersion !== undefined,
    updateKind:
      toVersion === undefined
        ? { kind: 'unknown' }
        : { kind: 'tag', localValue: '1.0.0', remoteValue: toVersion, semverDiff: 'major' },
  } as unknown as Container;
}

const reasonOf = (result: PlanResult) => (result.ok ? undefined : result.refusal.reason);
const planOf = (result: PlanResult): RolloutPlan => {
  if (!result.ok) throw new Error(`refused: ${result.refusal.message}`);
  return result.plan;
};

describe('planRollout', () => {
  const fleet = ['e', 'a', 'c', 'b', 'd'].map((agent) => container('web', agent, '2.0.0'));

  it('puts the canary host first, then the other hosts by name in waves of waveSize', () => {
    const plan = planOf(planRollout(fleet, { image: 'registry.test:5000/team/web' }, { canaryHost: 'c', waveSize: 2 }));
    expect(plan.toVersion).toBe('2.0.0');
    expect(plan.hosts.map((host) => [host.host, host.wave])).toEqual([
      ['c', 0],
      ['a', 1],
      ['b', 1],
      ['d', 2],
      ['e', 2],
    ]);
    expect(plan.waves).toBe(3);
  });

  it('takes the first host by name as canary when none is named or the named one does not run the image', () => {
    const plan = planOf(
      planRollout(fleet, { image: 'registry.test:5000/team/web:1.0.0' }, { canaryHost: 'zz', waveSize: 3 }),
    );
    expect(plan.hosts.map((host) => [host.host, host.wave])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 1],
      ['d', 1],
      ['e', 2],
    ]);
  });

  it('keeps to the group and the candidate, and refuses when nothing or several candidates match', () => {
    const mixed = [
      container('web', 'a', '2.0.0', 'shop'),
      container('web', 'b', '2.1.0', 'shop'),
      container('web', 'c', '2.0.0'),
      container('web', 'd', undefined, 'shop'),
    ];
    const differ = planRollout(mixed, { image: 'registry.test:5000/team/web' }, { waveSize: 1 });
    expect(differ).toMatchObject({
      ok: false,
      refusal: { reason: 'candidates-differ', candidates: ['2.0.0', '2.1.0'] },
    });
    const plan = planOf(
      planRollout(mixed, { image: 'registry.test:5000/team/web', group: 'shop', toVersion: '2.0.0' }, { waveSize: 1 }),
    );
    expect(plan.hosts.map((host) => host.host)).toEqual(['a']);
    expect(reasonOf(planRollout(mixed, { image: 'registry.test:5000/team/api' }, { waveSize: 1 }))).toBe(
      'no-candidates',
    );
    expect(
      reasonOf(planRollout(mixed, { image: 'registry.test:5000/team/web', toVersion: '9' }, { waveSize: 1 })),
    ).toBe('no-candidates');
  });

  it('reads the repository out of a reference with a tag, a digest or a registry port', () => {
    expect(repositoryOfInput('registry.test:5000/team/web:2')).toBe('registry.test:5000/team/web');
    expect(repositoryOfInput('registry.test:5000/team/web')).toBe('registry.test:5000/team/web');
    expect(repositoryOfInput('nginx@sha256:abc')).toBe('nginx');
  });
});
