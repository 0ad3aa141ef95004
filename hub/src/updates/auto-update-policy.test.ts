import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import type { DockerActionTrigger } from './action-triggers';
import { type AutoUpdateInput, autoUpdateDecision } from './auto-update-policy';

const trigger = (name: string, auto: boolean): DockerActionTrigger => ({
  id: `docker.${name}`,
  type: 'docker',
  name,
  backupCount: 3,
  prune: false,
  healthTimeoutMs: 120_000,
  auto,
  watchers: undefined,
});

function container(labels: Record<string, string> = {}, extra: Partial<Container> = {}): Container {
  return {
    id: 'c1',
    name: 'web',
    watcher: 'local',
    labels,
    image: { registry: { url: 'registry.example' }, name: 'app', tag: { value: '1.0.0' }, digest: {} },
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0' },
    ...extra,
  } as unknown as Container;
}

const decide = (input: Partial<AutoUpdateInput>) =>
  autoUpdateDecision({
    mode: 'manual',
    container: container(),
    triggers: [trigger('update', false)],
    failedBefore: () => false,
    ...input,
  });

describe('the auto-update policy: precedence of updateMode, dd.action.auto and the trigger AUTO', () => {
  it('manual mode with no opt-in does nothing; auto mode updates through the first allowed trigger', () => {
    expect(decide({})).toEqual({ kind: 'off' });
    expect(decide({ mode: 'auto' })).toMatchObject({ kind: 'update', trigger: { id: 'docker.update' } });
  });

  it('a trigger with AUTO=true opts its containers in under manual mode, and is preferred', () => {
    const triggers = [trigger('plain', false), trigger('auto', true)];
    expect(decide({ triggers })).toMatchObject({ kind: 'update', trigger: { id: 'docker.auto' } });
    // Excluded from the AUTO trigger by its labels: nothing opts it in any more.
    expect(decide({ triggers, container: container({ 'dd.action.exclude': 'auto' }) })).toEqual({ kind: 'off' });
  });

  it('dd.action.auto=true opts in under manual mode; =false opts out of auto mode and of a trigger AUTO (blocked)', () => {
    expect(decide({ container: container({ 'dd.action.auto': 'true' }) })).toMatchObject({ kind: 'update' });
    expect(decide({ mode: 'auto', container: container({ 'dd.action.auto': 'false' }) })).toEqual({
      kind: 'blocked',
      reason: 'auto-disabled-by-label',
    });
    expect(
      decide({ triggers: [trigger('update', true)], container: container({ 'dd.action.auto': 'FALSE' }) }),
    ).toMatchObject({
      kind: 'blocked',
    });
    expect(decide({ container: container({ 'dd.action.auto': 'false' }) })).toEqual({ kind: 'off' });
  });

  it('notify mode turns everything off, the label included', () => {
    expect(
      decide({
        mode: 'notify',
        container: container({ 'dd.action.auto': 'true' }),
        triggers: [trigger('update', true)],
      }),
    ).toEqual({
      kind: 'off',
    });
  });

  it('gates: labels that exclude every trigger, no trigger, blockers in order, an earlier failed attempt', () => {
    expect(decide({ mode: 'auto', container: container({ 'dd.action.exclude': 'update' }) })).toEqual({
      kind: 'blocked',
      reason: 'excluded-by-labels',
    });
    expect(decide({ mode: 'auto', triggers: [] })).toEqual({ kind: 'blocked', reason: 'no-action-trigger' });
    const snoozed = container({}, { blockers: [{ reason: 'snoozed', liftableAt: '2099-01-01T00:00:00.000Z' }] });
    expect(decide({ mode: 'auto', container: snoozed })).toEqual({
      kind: 'blocked',
      reason: 'snoozed',
      liftableAt: '2099-01-01T00:00:00.000Z',
    });
    expect(decide({ mode: 'auto', failedBefore: () => true })).toEqual({
      kind: 'blocked',
      reason: 'previous-auto-update-failed',
    });
  });

  it('nothing pending, or a temporary -old- container: off', () => {
    expect(decide({ mode: 'auto', container: container({}, { updateAvailable: false }) })).toEqual({ kind: 'off' });
    expect(decide({ mode: 'auto', container: container({}, { name: 'web-old-1700000000000' }) })).toEqual({
      kind: 'off',
    });
  });
});
