/**
 * Issue 28 item 7, the words and the rules the administration pages restate from the hub: a
 * rollout's preview of its waves (hub/src/rollouts/rollout-plan.ts), its state in a sentence, a
 * group policy's summary and windows, label lines and selectors (hub/src/store/label-override-store.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import type { Rollout } from '../../shared/schemas/rollout';
import { parseLabels } from '../../ui/src/views/policies/label-lines';
import { globMatches, policyMatches, selectorMatches } from '../../ui/src/views/policies/policy-matches';
import { parseWindows, policySummary } from '../../ui/src/views/policies/policy-words';
import { previewRollout, repositoryOfInput, rolloutImages } from '../../ui/src/views/rollouts/rollout-preview';
import { abortSentence, hostWords, primaryAction, stateSentence } from '../../ui/src/views/rollouts/rollout-words';
import { containerRecord, withImage } from '../support/container-fixture';

/** `name` on `host` (an agent, or the hub's watcher `local`) running ghcr.io/acme/web:1.0.0, `to` pending (null: none). */
const web = (name: string, host: string | undefined, to: string | null = '2.0.0', group = 'shop'): Container => ({
  ...withImage(containerRecord({ id: name.padEnd(64, '0'), name }), 'ghcr.io', 'acme/web'),
  ...(host && { agent: host }),
  group,
  labels: { 'dd.group': group },
  updateAvailable: to !== null,
  updateKind: to ? { kind: 'tag', localValue: '1.0.0', remoteValue: to, semverDiff: 'major' } : { kind: 'unknown' },
});

describe('the rollout preview', () => {
  const fleet = [
    web('web-c', 'edge-c'),
    web('web-a', 'edge-a'),
    web('web-local', undefined),
    web('web-b', 'edge-b'),
    web('web-old', 'edge-b', null),
    web('web-1-old-1765000000000', 'edge-a'),
  ];

  it('plans the canary host first, then the others by name, waveSize a wave, as the hub does', () => {
    const preview = previewRollout(fleet, { image: 'ghcr.io/acme/web:1.0.0', waveSize: 2, canaryHost: 'edge-b' });
    expect(preview.toVersion).toBe('2.0.0');
    expect(preview.waves).toEqual([
      { wave: 0, hosts: [{ host: 'edge-b', containers: ['web-b'] }] },
      {
        wave: 1,
        hosts: [
          { host: '__local__:local', containers: ['web-local'] },
          { host: 'edge-a', containers: ['web-a'] },
        ],
      },
      { wave: 2, hosts: [{ host: 'edge-c', containers: ['web-c'] }] },
    ]);
  });

  it('asks for the version when containers wait for different ones, and keeps to a group', () => {
    const mixed = [...fleet, web('web-d', 'edge-d', '3.0.0')];
    expect(previewRollout(mixed, { image: 'ghcr.io/acme/web', waveSize: 1 })).toEqual({
      toVersion: undefined,
      candidates: ['2.0.0', '3.0.0'],
      waves: [],
    });
    const other = [...fleet, web('web-e', 'edge-e', '2.0.0', 'other')];
    const hosts = previewRollout(other, { image: 'ghcr.io/acme/web', waveSize: 9, group: 'other' }).waves;
    expect(hosts).toEqual([{ wave: 0, hosts: [{ host: 'edge-e', containers: ['web-e'] }] }]);
  });

  it('reads the image as the hub does, and offers only images with an update pending', () => {
    expect(repositoryOfInput('127.0.0.1:5000/a/b:1.0@sha256:00')).toBe('127.0.0.1:5000/a/b');
    expect(repositoryOfInput('127.0.0.1:5000/a/b')).toBe('127.0.0.1:5000/a/b');
    const hub = { ...withImage(containerRecord(), 'docker.io', 'library/nginx'), updateAvailable: false };
    expect(rolloutImages([...fleet, hub])).toEqual(['ghcr.io/acme/web']);
  });
});

describe('a rollout in words', () => {
  const rollout = (over: Partial<Rollout>): Rollout => ({
    id: 'r1',
    image: 'ghcr.io/acme/web',
    toVersion: '2.0.0',
    origin: 'api',
    state: 'running',
    waveSize: 1,
    pauseSeconds: 0,
    currentWave: 1,
    waves: 3,
    hosts: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  });

  it('says where it is and what the one action is', () => {
    expect(stateSentence(rollout({}))).toBe('Updating: wave 1 of 3.');
    expect(stateSentence(rollout({ nextWaveAt: '2026-01-01T01:00:00.000Z' }))).toBe('Waiting before wave 1 of 3.');
    expect(stateSentence(rollout({ state: 'paused', currentWave: 0 }))).toBe(
      'Paused before canary of 3. Resume to go on.',
    );
    expect(
      stateSentence(
        rollout({
          state: 'halted',
          failure: { host: 'edge-a', wave: 0, containerName: 'web', reason: 'rolled back: unhealthy' },
        }),
      ),
    ).toBe('Halted at canary: web rolled back: unhealthy. Later hosts were not touched.');
    expect([primaryAction('running'), primaryAction('interrupted'), primaryAction('completed')]).toEqual([
      'pause',
      'resume',
      undefined,
    ]);
    const host = (name: string, state: Rollout['hosts'][number]['state']) => ({
      host: name,
      wave: 1,
      state,
      containers: [],
    });
    expect(
      abortSentence(
        rollout({ hosts: [host('edge-a', 'succeeded'), host('edge-b', 'updating'), host('edge-c', 'pending')] }),
      ),
    ).toBe(
      'The updates under way on edge-b end by themselves: they are not cancelled. Not touched, staying on their version: edge-c. An aborted rollout cannot be resumed.',
    );
    expect(hostWords('__local__:local')).toBe('this hub (watcher local)');
    expect(hostWords('edge-1')).toBe('edge-1');
  });
});

describe('group policies and label overrides in words', () => {
  it('reads windows a line, days optional, and says which line is wrong', () => {
    expect(parseWindows('sat, sun 02:00-05:00\n\n22:00-01:00')).toEqual({
      windows: [
        { days: ['sat', 'sun'], start: '02:00', end: '05:00' },
        { start: '22:00', end: '01:00' },
      ],
    });
    expect(parseWindows('weekend 24:00-05:00')).toEqual({
      problem: expect.stringContaining('“weekend 24:00-05:00” is not a window'),
    });
  });

  it('summarises what a policy sets and nothing else', () => {
    const base = { scope: 'group' as const, name: 'shop', createdAt: '', updatedAt: '' };
    expect(policySummary(base)).toBe('nothing set (every field falls to the next level)');
    expect(
      policySummary({
        ...base,
        updateMode: 'auto',
        maturityMode: 'mature',
        rollout: { waveSize: 2, pauseSeconds: 60, automatic: true, canaryHost: 'edge-a' },
      }),
    ).toBe(
      'update mode auto; updates wait until 7 days old; rolled out 2 hosts a wave, 60 s apart, canary edge-a, automatically',
    );
  });

  it('reads label lines, refusing hooks and keys the hub does not override', () => {
    expect(parseLabels('dd.watch=false\n dd.display.name = Shop = web ')).toEqual({
      labels: { 'dd.watch': 'false', 'dd.display.name': 'Shop = web' },
    });
    expect(parseLabels('dd.hook.pre=rm')).toEqual({ problem: expect.stringContaining('stays a label only') });
    expect(parseLabels('dd.nope=1')).toEqual({ problem: expect.stringContaining('dd.nope cannot be overridden') });
    expect(parseLabels('  \n')).toEqual({ problem: expect.stringContaining('at least one label') });
  });

  it('matches selectors and policies as the hub does', () => {
    expect(globMatches('web-?', 'web-1')).toBe(true);
    expect(globMatches('web.*', 'web-1')).toBe(false);
    const local = web('web-1', undefined);
    const edge = web('web-2', 'edge-a');
    expect(selectorMatches({ image: 'ghcr.io/acme/*:1.0.0', agent: '__local__' }, local)).toBe(true);
    expect(selectorMatches({ image: 'ghcr.io/acme/*:1.0.0', agent: '__local__' }, edge)).toBe(false);
    // The group of the container's own labels, not one an override gave it.
    expect(selectorMatches({ group: 'shop' }, { ...local, group: 'moved', labels: { 'dd.group': 'shop' } })).toBe(true);
    expect(policyMatches({ scope: 'agent', name: '__local__' }, local)).toBe(true);
    expect(policyMatches({ scope: 'group', name: 'shop' }, edge)).toBe(true);
  });
});
