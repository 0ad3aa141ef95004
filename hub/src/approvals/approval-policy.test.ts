import { describe, expect, it } from 'vitest';
import { containerRecord } from '../../../test/support/container-fixture';
import { approvalLabel, approvalRequired, approvalRequirement } from './approval-policy';

describe('approval policy', () => {
  it('reads dd.update.approval: required and none, in any case and spacing; anything else says nothing', () => {
    expect(approvalLabel({ 'dd.update.approval': 'required' })).toBe(true);
    expect(approvalLabel({ 'dd.update.approval': ' NONE ' })).toBe(false);
    expect(approvalLabel({ 'dd.update.approval': 'true' })).toBeUndefined();
    expect(approvalLabel({})).toBeUndefined();
  });

  it('takes the label first, then the group policy, then the setting', () => {
    const plain = containerRecord();
    const required = containerRecord({ labels: { 'dd.update.approval': 'required' } });
    const exempt = containerRecord({ labels: { 'dd.update.approval': 'none' } });
    expect(approvalRequired({ approvalRequired: false }, plain)).toBe(false);
    expect(approvalRequired({ approvalRequired: true }, plain)).toBe(true);
    expect(approvalRequired({ approvalRequired: false }, required)).toBe(true);
    expect(approvalRequired({ approvalRequired: true }, exempt)).toBe(false);
    expect(approvalRequired({ approvalRequired: false }, plain, () => ({ value: true, source: 'group-policy' }))).toBe(
      true,
    );
    expect(approvalRequired({ approvalRequired: true }, plain, () => ({ value: false, source: 'agent-policy' }))).toBe(
      false,
    );
    expect(approvalRequired({ approvalRequired: true }, plain, () => undefined)).toBe(true);
    expect(approvalRequired({ approvalRequired: false }, exempt, () => ({ value: true, source: 'group-policy' }))).toBe(
      false,
    );
  });

  it('says what decided: the label, its override, a group or agent policy, or the setting', () => {
    const byGroup = () => ({ value: true, source: 'group-policy' as const });
    expect(approvalRequirement({ approvalRequired: false }, containerRecord(), byGroup)).toEqual({
      value: true,
      source: 'group-policy',
    });
    expect(approvalRequirement({ approvalRequired: true }, containerRecord())).toEqual({
      value: true,
      source: 'setting',
    });
    const labelled = containerRecord({ labels: { 'dd.update.approval': 'none' } });
    expect(approvalRequirement({ approvalRequired: true }, labelled, byGroup)).toEqual({
      value: false,
      source: 'label',
    });
    const overridden = containerRecord({
      effectiveLabels: { 'dd.update.approval': { value: 'required', source: 'override' } },
    });
    expect(approvalRequirement({ approvalRequired: false }, overridden)).toEqual({ value: true, source: 'override' });
  });
});
