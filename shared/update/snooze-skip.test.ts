import { describe, expect, it } from 'vitest';
import type { UpdatePolicy } from '../schemas/update-policy';
import { evaluateMaturityGate } from './maturity';
import { isSkipped, isSnoozed, updateBlockers } from './snooze-skip';
import { DAY_MS } from './timestamp';

const NOW = Date.UTC(2025, 0, 10, 8);
const UNTIL = '2025-01-12T00:00:00.000Z';
const UNTIL_MS = Date.UTC(2025, 0, 12);

describe('isSnoozed', () => {
  it('is true before snoozeUntil and ends at that instant', () => {
    expect(isSnoozed({ snoozeUntil: UNTIL }, NOW)).toBe(true);
    expect(isSnoozed({ snoozeUntil: UNTIL }, UNTIL_MS - 1)).toBe(true);
    expect(isSnoozed({ snoozeUntil: UNTIL }, UNTIL_MS)).toBe(false);
    expect(isSnoozed({ snoozeUntil: UNTIL }, UNTIL_MS + DAY_MS)).toBe(false);
  });

  it('is false without a snooze or with an unreadable one', () => {
    expect(isSnoozed({}, NOW)).toBe(false);
    expect(isSnoozed({ snoozeUntil: 'forever' }, NOW)).toBe(false);
  });
});

describe('isSkipped', () => {
  const policy = { skipTags: ['2.0.0'], skipDigests: ['sha256:bbb'] };

  it('matches a tag update against skipTags and a digest update against skipDigests', () => {
    expect(isSkipped(policy, { kind: 'tag', remoteValue: '2.0.0' })).toBe(true);
    expect(isSkipped(policy, { kind: 'digest', remoteValue: 'sha256:bbb' })).toBe(true);
    expect(isSkipped(policy, { kind: 'tag', remoteValue: '2.0.1' })).toBe(false);
  });

  it('does not cross the lists', () => {
    expect(isSkipped(policy, { kind: 'digest', remoteValue: '2.0.0' })).toBe(false);
    expect(isSkipped(policy, { kind: 'tag', remoteValue: 'sha256:bbb' })).toBe(false);
    expect(isSkipped({}, { kind: 'tag', remoteValue: '2.0.0' })).toBe(false);
  });
});

describe('updateBlockers', () => {
  const update = { kind: 'tag', remoteValue: '2.0.0' } as const;
  const everything: UpdatePolicy = {
    skipTags: ['2.0.0'],
    snoozeUntil: UNTIL,
    maturityMode: 'mature',
    maturityMinAgeDays: 7,
  };
  const heldGate = evaluateMaturityGate({ policy: everything, updateDetectedAt: NOW - DAY_MS, now: NOW });

  it('lists every reason in a fixed order, with the time each lapses', () => {
    expect(updateBlockers({ policy: everything, update, gate: heldGate, now: NOW })).toEqual([
      { reason: 'skipped' },
      { reason: 'snoozed', liftableAt: UNTIL },
      { reason: 'maturity-not-reached', liftableAt: new Date(NOW + 6 * DAY_MS).toISOString() },
    ]);
  });

  it('drops the snooze once it has expired', () => {
    const later = UNTIL_MS;
    expect(updateBlockers({ policy: everything, update, gate: heldGate, now: later }).map((b) => b.reason)).toEqual([
      'skipped',
      'maturity-not-reached',
    ]);
  });

  it('is empty without a pending update, and for an update nothing holds back', () => {
    expect(updateBlockers({ policy: everything, update: undefined, gate: heldGate, now: NOW })).toEqual([]);
    const applicable = evaluateMaturityGate({ policy: {}, updateDetectedAt: NOW, now: NOW });
    expect(updateBlockers({ policy: {}, update, gate: applicable, now: NOW })).toEqual([]);
    expect(updateBlockers({ policy: {}, update, gate: undefined, now: NOW })).toEqual([]);
  });
});
