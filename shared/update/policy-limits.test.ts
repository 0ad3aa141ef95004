import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { UpdatePolicyActionSchema } from '../schemas/update-policy';
import { daysProblem, MATURITY_MIN_AGE_DAYS_MAX, SNOOZE_MAX_DAYS } from './policy-limits';

describe('daysProblem', () => {
  it('says in words why the values of issue 28 are refused', () => {
    expect(daysProblem('-3', SNOOZE_MAX_DAYS)).toBe('Enter at least 1 day.');
    expect(daysProblem('0.5', SNOOZE_MAX_DAYS)).toBe('Enter whole days: 0.5 is not a whole number.');
    expect(daysProblem('99999', SNOOZE_MAX_DAYS)).toBe('Enter at most 3,650 days.');
    expect(daysProblem('', SNOOZE_MAX_DAYS)).toBe('Enter a number of days.');
    expect(daysProblem('366', MATURITY_MIN_AGE_DAYS_MAX)).toBe('Enter at most 365 days.');
  });

  it('accepts exactly what the API schema accepts', () => {
    for (const text of ['-3', '0', '0.5', '1', '7', '3650', '3651', '99999', '1e3', ' 12 ']) {
      const schemaTakes = v.safeParse(UpdatePolicyActionSchema, { action: 'snooze', days: Number(text) }).success;
      expect(daysProblem(text, SNOOZE_MAX_DAYS) === undefined, text).toBe(schemaTakes);
    }
  });
});
