import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { UpdatePolicyActionSchema, UpdatePolicySchema } from './update-policy';

const parseAction = (body: unknown) => v.safeParse(UpdatePolicyActionSchema, body);

describe('UpdatePolicySchema', () => {
  it('accepts the empty policy and a full one', () => {
    expect(v.parse(UpdatePolicySchema, {})).toEqual({});
    const full = {
      skipTags: ['1.2.3'],
      skipDigests: [`sha256:${'a'.repeat(64)}`],
      snoozeUntil: '2025-02-01T00:00:00.000Z',
      maturityMode: 'mature',
      maturityMinAgeDays: 14,
    };
    expect(v.parse(UpdatePolicySchema, full)).toEqual(full);
  });

  it.each([
    ['maturityMinAgeDays 0', { maturityMinAgeDays: 0 }],
    ['maturityMinAgeDays 366', { maturityMinAgeDays: 366 }],
    ['a fractional maturityMinAgeDays', { maturityMinAgeDays: 1.5 }],
    ['an unknown maturityMode', { maturityMode: 'stable' }],
    ['an unreadable snoozeUntil', { snoozeUntil: 'next week' }],
    ['an empty skipped tag', { skipTags: [''] }],
    ['101 skipped tags', { skipTags: Array.from({ length: 101 }, (_, i) => `1.0.${i}`) }],
    ['101 skipped digests', { skipDigests: Array.from({ length: 101 }, (_, i) => `sha256:${i}`) }],
  ])('refuses %s', (_why, policy) => {
    expect(v.safeParse(UpdatePolicySchema, policy).success).toBe(false);
  });
});

describe('UpdatePolicyActionSchema', () => {
  it.each([
    { action: 'skip-current' },
    { action: 'remove-skip', kind: 'tag', value: '2.0.0' },
    { action: 'remove-skip', kind: 'digest', value: 'sha256:abc' },
    { action: 'clear-skips' },
    { action: 'snooze', days: 7 },
    { action: 'snooze', days: 3650 },
    { action: 'snooze', snoozeUntil: '2025-02-01T00:00:00Z' },
    { action: 'snooze', snoozeUntil: '2025-02-01' },
    { action: 'unsnooze' },
    { action: 'clear' },
    { action: 'set-maturity-policy', mode: 'mature', minAgeDays: 365 },
    { action: 'set-maturity-policy', mode: 'all' },
    { action: 'clear-maturity-policy' },
  ])('accepts %o', (body) => {
    expect(parseAction(body).success).toBe(true);
  });

  it('defaults minAgeDays of set-maturity-policy to 7', () => {
    expect(v.parse(UpdatePolicyActionSchema, { action: 'set-maturity-policy', mode: 'mature' })).toEqual({
      action: 'set-maturity-policy',
      mode: 'mature',
      minAgeDays: 7,
    });
  });

  it.each([
    ['no action', {}],
    ['an unknown action', { action: 'skip-all' }],
    ['a non-object body', 'skip-current'],
    ['skip-current with a field', { action: 'skip-current', value: '1.2.3' }],
    ['remove-skip without kind', { action: 'remove-skip', value: '1.2.3' }],
    ['remove-skip with an unknown kind', { action: 'remove-skip', kind: 'label', value: '1.2.3' }],
    ['remove-skip without value', { action: 'remove-skip', kind: 'tag' }],
    ['remove-skip with an empty value', { action: 'remove-skip', kind: 'tag', value: '' }],
    ['remove-skip with an overlong value', { action: 'remove-skip', kind: 'tag', value: 'x'.repeat(257) }],
    ['clear-skips with a field', { action: 'clear-skips', kind: 'tag' }],
    ['snooze with neither days nor snoozeUntil', { action: 'snooze' }],
    ['snooze with both days and snoozeUntil', { action: 'snooze', days: 1, snoozeUntil: '2025-02-01T00:00:00Z' }],
    ['snooze for 0 days', { action: 'snooze', days: 0 }],
    ['snooze for 3651 days', { action: 'snooze', days: 3651 }],
    ['snooze for 1.5 days', { action: 'snooze', days: 1.5 }],
    ['snooze for "7" days', { action: 'snooze', days: '7' }],
    ['snooze with a typo field', { action: 'snooze', day: 7 }],
    ['snooze until an unreadable date', { action: 'snooze', snoozeUntil: 'tomorrow' }],
    ['snooze until a zone-less time', { action: 'snooze', snoozeUntil: '2025-02-01T00:00:00' }],
    ['unsnooze with a field', { action: 'unsnooze', days: 1 }],
    ['clear with a field', { action: 'clear', all: true }],
    ['set-maturity-policy without mode', { action: 'set-maturity-policy', minAgeDays: 7 }],
    ['set-maturity-policy with an unknown mode', { action: 'set-maturity-policy', mode: 'stable' }],
    ['set-maturity-policy with minAgeDays 0', { action: 'set-maturity-policy', mode: 'mature', minAgeDays: 0 }],
    ['set-maturity-policy with minAgeDays 366', { action: 'set-maturity-policy', mode: 'mature', minAgeDays: 366 }],
    ['set-maturity-policy with minAgeDays 2.5', { action: 'set-maturity-policy', mode: 'mature', minAgeDays: 2.5 }],
    ['clear-maturity-policy with a field', { action: 'clear-maturity-policy', mode: 'all' }],
  ])('refuses %s', (_why, body) => {
    expect(parseAction(body).success).toBe(false);
  });

  it('says why a snooze needs exactly one of its fields', () => {
    const result = parseAction({ action: 'snooze', days: 1, snoozeUntil: '2025-02-01' });
    expect(result.issues?.[0]?.message).toBe('snooze needs exactly one of days or snoozeUntil');
  });
});
