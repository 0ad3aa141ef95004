import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  SKIP_LIST_MAX,
  type UpdatePolicy,
  type UpdatePolicyAction,
  UpdatePolicyActionSchema,
} from '../schemas/update-policy';
import { applyPolicyAction, type PolicyActionContext, PolicyActionError } from './apply-policy-action';
import { DAY_MS } from './timestamp';

const NOW = Date.UTC(2025, 0, 1, 12);
const TAG_UPDATE = { kind: 'tag', remoteValue: '2.0.0' } as const;
const DIGEST_UPDATE = { kind: 'digest', remoteValue: 'sha256:bbb' } as const;

/** Parses the body like the route does, then applies it. */
function apply(policy: UpdatePolicy, body: unknown, context: Partial<PolicyActionContext> = {}) {
  const action: UpdatePolicyAction = v.parse(UpdatePolicyActionSchema, body);
  return applyPolicyAction(policy, action, { now: NOW, ...context });
}

function applied(policy: UpdatePolicy, body: unknown, context: Partial<PolicyActionContext> = {}): UpdatePolicy {
  const result = apply(policy, body, context);
  if (!result.ok) throw result.error;
  return result.policy;
}

function refused(policy: UpdatePolicy, body: unknown, context: Partial<PolicyActionContext> = {}): PolicyActionError {
  const result = apply(policy, body, context);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('skip-current', () => {
  it('skips the detected tag or digest in its own list', () => {
    expect(applied({}, { action: 'skip-current' }, { currentUpdate: TAG_UPDATE })).toEqual({ skipTags: ['2.0.0'] });
    expect(applied({}, { action: 'skip-current' }, { currentUpdate: DIGEST_UPDATE })).toEqual({
      skipDigests: ['sha256:bbb'],
    });
  });

  it('is refused with a 400 message when no update is detected', () => {
    const error = refused({}, { action: 'skip-current' });
    expect(error).toBeInstanceOf(PolicyActionError);
    expect(error.code).toBe('no-update-detected');
    expect(error.status).toBe(400);
    expect(error.message).toBe('skip-current: no update is detected for this container');
  });

  it('does not skip the same value twice', () => {
    const policy = { skipTags: ['2.0.0'] };
    expect(applied(policy, { action: 'skip-current' }, { currentUpdate: TAG_UPDATE })).toEqual({ skipTags: ['2.0.0'] });
  });

  it(`keeps at most ${SKIP_LIST_MAX} skips per list, dropping the oldest`, () => {
    const full = { skipDigests: Array.from({ length: SKIP_LIST_MAX }, (_, i) => `sha256:${i}`) };
    const next = applied(full, { action: 'skip-current' }, { currentUpdate: DIGEST_UPDATE });
    expect(next.skipDigests).toHaveLength(SKIP_LIST_MAX);
    expect(next.skipDigests?.[0]).toBe('sha256:1');
    expect(next.skipDigests?.at(-1)).toBe('sha256:bbb');
  });

  it('leaves the given policy untouched and shares no array with it', () => {
    const policy: UpdatePolicy = Object.freeze({
      skipTags: Object.freeze(['1.0.0']) as string[],
      snoozeUntil: '2025-02-01T00:00:00.000Z',
    });
    const next = applied(policy, { action: 'skip-current' }, { currentUpdate: TAG_UPDATE });
    expect(next).toEqual({ skipTags: ['1.0.0', '2.0.0'], snoozeUntil: '2025-02-01T00:00:00.000Z' });
    expect(policy.skipTags).toEqual(['1.0.0']);
    const same = applied(next, { action: 'skip-current' }, { currentUpdate: TAG_UPDATE });
    expect(same.skipTags).not.toBe(next.skipTags);
  });
});

describe('remove-skip and clear-skips', () => {
  const policy = { skipTags: ['1.0.0', '2.0.0'], skipDigests: ['sha256:aaa'], maturityMode: 'mature' as const };

  it('removes one entry from the named list only', () => {
    expect(applied(policy, { action: 'remove-skip', kind: 'tag', value: '1.0.0' })).toEqual({
      ...policy,
      skipTags: ['2.0.0'],
    });
    expect(applied(policy, { action: 'remove-skip', kind: 'digest', value: '1.0.0' })).toEqual(policy);
  });

  it('drops a list that becomes empty', () => {
    expect(applied(policy, { action: 'remove-skip', kind: 'digest', value: 'sha256:aaa' })).toEqual({
      skipTags: ['1.0.0', '2.0.0'],
      maturityMode: 'mature',
    });
  });

  it('succeeds when the value was not skipped', () => {
    expect(applied({}, { action: 'remove-skip', kind: 'tag', value: '9.9.9' })).toEqual({});
  });

  it('clear-skips removes both lists and nothing else', () => {
    expect(applied(policy, { action: 'clear-skips' })).toEqual({ maturityMode: 'mature' });
  });
});

describe('snooze and unsnooze', () => {
  it('snoozes for a number of days from now, stored as an ISO timestamp', () => {
    expect(applied({}, { action: 'snooze', days: 7 })).toEqual({
      snoozeUntil: new Date(NOW + 7 * DAY_MS).toISOString(),
    });
  });

  it('snoozes until a future date, stored in canonical form', () => {
    expect(applied({}, { action: 'snooze', snoozeUntil: '2025-01-10T14:00:00+02:00' })).toEqual({
      snoozeUntil: '2025-01-10T12:00:00.000Z',
    });
    expect(applied({}, { action: 'snooze', snoozeUntil: '2025-01-02' })).toEqual({
      snoozeUntil: '2025-01-02T00:00:00.000Z',
    });
  });

  it('replaces an earlier snooze', () => {
    expect(applied({ snoozeUntil: '2025-01-05T00:00:00.000Z' }, { action: 'snooze', days: 1 })).toEqual({
      snoozeUntil: new Date(NOW + DAY_MS).toISOString(),
    });
  });

  it.each([
    ['now itself', new Date(NOW).toISOString()],
    ['one millisecond ago', new Date(NOW - 1).toISOString()],
    ['a past date', '2024-06-01'],
  ])('refuses a snoozeUntil of %s', (_why, snoozeUntil) => {
    const error = refused({}, { action: 'snooze', snoozeUntil });
    expect(error.code).toBe('snooze-not-in-future');
    expect(error.message).toBe('snooze: snoozeUntil must be in the future (now is 2025-01-01T12:00:00.000Z)');
  });

  it('refuses a snoozeUntil beyond 3650 days and accepts exactly 3650', () => {
    expect(refused({}, { action: 'snooze', snoozeUntil: new Date(NOW + 3650 * DAY_MS + 1).toISOString() }).code).toBe(
      'snooze-too-far',
    );
    expect(
      applied({}, { action: 'snooze', snoozeUntil: new Date(NOW + 3650 * DAY_MS).toISOString() }).snoozeUntil,
    ).toBeDefined();
  });

  it('unsnooze removes snoozeUntil, and is a no-op without one', () => {
    expect(applied({ snoozeUntil: '2025-02-01T00:00:00.000Z', skipTags: ['1.0.0'] }, { action: 'unsnooze' })).toEqual({
      skipTags: ['1.0.0'],
    });
    expect(applied({}, { action: 'unsnooze' })).toEqual({});
  });
});

describe('clear and the maturity policy', () => {
  const full: UpdatePolicy = {
    skipTags: ['1.0.0'],
    skipDigests: ['sha256:aaa'],
    snoozeUntil: '2025-02-01T00:00:00.000Z',
    maturityMode: 'mature',
    maturityMinAgeDays: 3,
  };

  it('clear removes the whole policy', () => {
    expect(applied(full, { action: 'clear' })).toEqual({});
  });

  it('set-maturity-policy enables the gate with the given or default minimum age', () => {
    expect(applied({}, { action: 'set-maturity-policy', mode: 'mature' })).toEqual({
      maturityMode: 'mature',
      maturityMinAgeDays: 7,
    });
    expect(applied(full, { action: 'set-maturity-policy', mode: 'mature', minAgeDays: 30 })).toEqual({
      ...full,
      maturityMinAgeDays: 30,
    });
  });

  it('set-maturity-policy with mode all stores no minimum age', () => {
    expect(applied(full, { action: 'set-maturity-policy', mode: 'all', minAgeDays: 30 })).toEqual({
      skipTags: ['1.0.0'],
      skipDigests: ['sha256:aaa'],
      snoozeUntil: '2025-02-01T00:00:00.000Z',
      maturityMode: 'all',
    });
  });

  it('clear-maturity-policy removes mode and minimum age only', () => {
    expect(applied(full, { action: 'clear-maturity-policy' })).toEqual({
      skipTags: ['1.0.0'],
      skipDigests: ['sha256:aaa'],
      snoozeUntil: '2025-02-01T00:00:00.000Z',
    });
  });
});
