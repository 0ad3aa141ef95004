/**
 * Issue 28 items 1 and 4, the words and the order the page shows: an update's phases as plain
 * steps, its outcome as a sentence, backups by direction, bell entries in words, and the
 * dashboard's ranking of pending updates (major before patch, security fixes lifted).
 */
import { describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { iconPath } from '../../ui/src/icon-path';
import { backupDirection, isRollingBack, outcomeOf, stepsOf } from '../../ui/src/update-steps';
import { bellSentence } from '../../ui/src/views/bell-words';
import { rankPendingUpdates } from '../../ui/src/views/dashboard/attention';

const progress = (status: string, phase: string, more: object = {}) => ({
  status,
  phase,
  containerName: 'web',
  fromVersion: '1.0.0',
  toVersion: '2.0.0',
  ...more,
});
const labelled = (steps: { label: string; state: string }[]) => steps.map((s) => `${s.label}:${s.state}`);

describe('an update as plain steps', () => {
  it('names each step in words and marks the one running (renamed means creating the new container)', () => {
    expect(labelled(stepsOf(progress('in-progress', 'prepare')))).toEqual([
      'Pulling the image:current',
      'Creating the new container:pending',
      'Stopping the old container:pending',
      'Starting the new one:pending',
      'Health check:pending',
      'Done:pending',
    ]);
    expect(labelled(stepsOf(progress('in-progress', 'new-created'))).slice(0, 4)).toEqual([
      'Pulling the image:done',
      'Creating the new container:done',
      'Stopping the old container:current',
      'Starting the new one:pending',
    ]);
    expect(stepsOf(progress('in-progress', 'health-gate')).find((s) => s.state === 'current')?.label).toBe(
      'Health check',
    );
    expect(labelled(stepsOf(progress('succeeded', 'succeeded'))).every((s) => s.endsWith(':done'))).toBe(true);
  });

  it('marks the step that failed and ends in "Rolled back"; a rollback offers no cancel', () => {
    const steps = stepsOf(progress('rolled-back', 'rolled-back'), 'health-gate');
    expect(labelled(steps).slice(-2)).toEqual(['Health check:failed', 'Rolled back:done']);
    expect(labelled(stepsOf(progress('in-progress', 'rollback-started'), 'new-created')).at(-1)).toBe(
      'Rolling back:current',
    );
    expect(isRollingBack(progress('in-progress', 'rollback-started'))).toBe(true);
    expect(isRollingBack(progress('in-progress', 'renamed', { kind: 'rollback' }))).toBe(true);
    expect(isRollingBack(progress('in-progress', 'renamed', { kind: 'update' }))).toBe(false);
    expect(stepsOf(progress('queued', 'prepare'))[0]).toEqual({ label: 'Waiting in the queue', state: 'current' });
  });

  it('says what happened, with the time it took', () => {
    expect(outcomeOf(progress('succeeded', 'succeeded', { kind: 'update', durationMs: 2_630 }))).toBe(
      'Updated web to 2.0.0 in 2.6 s',
    );
    expect(
      outcomeOf(progress('succeeded', 'succeeded', { kind: 'rollback', fromVersion: '2.0.0', toVersion: '1.0.0' })),
    ).toBe('Rolled back web to 1.0.0');
    expect(
      outcomeOf(progress('succeeded', 'succeeded', { kind: 'rollback', fromVersion: '1.0.0', toVersion: '2.0.0' })),
    ).toBe('Returned web to 2.0.0');
    expect(outcomeOf(progress('rolled-back', 'rolled-back', { kind: 'update' }))).toBe(
      'The update of web to 2.0.0 did not work: rolled back web to 1.0.0',
    );
    expect(outcomeOf(progress('failed', 'prepare', { kind: 'update' }))).toBe(
      'The update of web to 2.0.0 failed before anything was changed',
    );
    expect(outcomeOf(progress('in-progress', 'renamed'))).toBeUndefined();
  });

  it('labels a backup by the way it moves the container', () => {
    expect(backupDirection('1.0.0', '2.0.0')).toBe('back');
    expect(backupDirection('2.0.0', '1.0.0')).toBe('forward');
    expect(backupDirection('v1.10.0', '1.9.3')).toBe('forward');
    expect(backupDirection('latest', 'latest')).toBe('same');
  });
});

describe('bell entries in words', () => {
  it('says what happened instead of the event id', () => {
    expect(
      bellSentence({ event: 'update-available', containerName: 'web', fromVersion: '1.0.0', toVersion: '2.0.0' }),
    ).toBe('web can be updated from 1.0.0 to 2.0.0');
    expect(
      bellSentence({ event: 'update-applied', containerName: 'web', fromVersion: '1.0.0', toVersion: '2.0.0' }),
    ).toBe('web was updated from 1.0.0 to 2.0.0');
    expect(bellSentence({ event: 'update-failed', containerName: 'db', toVersion: '1.1.0' })).toBe(
      'The update of db to 1.1.0 failed',
    );
    expect(bellSentence({ event: 'agent-disconnect', details: 'agent edge-1 disconnected (closed)' })).toBe(
      'Agent edge-1 disconnected (closed)',
    );
  });
});

describe('the icon of dd.display.icon', () => {
  it('goes through the hub proxy for the sets it serves, and nowhere else', () => {
    expect(iconPath('sh:nginx')).toBe('/api/v1/icons/selfhst/nginx');
    expect(iconPath('si-redis')).toBe('/api/v1/icons/simple-icons/redis');
    expect(iconPath('simple-icons:redis')).toBe('/api/v1/icons/simple-icons/redis');
    expect(iconPath('hl:home-assistant')).toBe('/api/v1/icons/dashboard-icons/home-assistant');
    expect(iconPath('mdi:docker')).toBeUndefined();
    expect(iconPath('https://evil.example/x.svg')).toBeUndefined();
    expect(iconPath('sh:../../etc')).toBeUndefined();
    expect(iconPath(undefined)).toBeUndefined();
  });
});

describe('the dashboard order of pending updates', () => {
  const container = (name: string, semverDiff: string | null, more: Partial<Container> = {}): Container =>
    ({
      id: name,
      name,
      displayName: name,
      watcher: 'local',
      updateAvailable: semverDiff !== null,
      updateKind:
        semverDiff === 'digest'
          ? { kind: 'digest', localValue: 'a', remoteValue: 'b' }
          : { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff },
      image: { tag: { value: '1.0.0' } },
      ...more,
    }) as unknown as Container;
  const delta = (severity: string) => ({
    status: 'scanned' as const,
    summary: { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 },
    delta: { fixed: [{ severity }], introduced: [] },
  });

  it('puts major before minor before patch before digest, leaves out the up to date and temporary ones', () => {
    const ranked = rankPendingUpdates([
      container('api', 'patch'),
      container('cache', 'digest'),
      container('web', 'major'),
      container('db', 'minor'),
      container('calm', null),
      container('web-old-1700000000000', 'major'),
    ]);
    expect(ranked.map((c) => c.name)).toEqual(['web', 'db', 'api', 'cache']);
  });

  it('lifts a security fix: a critical or high one above everything, any other within its kind', () => {
    const ranked = rankPendingUpdates([
      container('web', 'major'),
      container('api', 'patch'),
      container('proxy', 'patch', { security: delta('critical') }),
      container('db', 'minor'),
      container('queue', 'minor', { security: delta('low') }),
    ]);
    expect(ranked.map((c) => c.name)).toEqual(['proxy', 'web', 'queue', 'db', 'api']);
  });
});
