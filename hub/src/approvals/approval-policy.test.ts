import { describe, expect, it } from 'vitest';
import { containerRecord } from '../../../test/support/container-fixture';
import { approvalLabel, approvalRequired } from './approval-policy';

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
    expect(approvalRequired({ approvalRequired: false }, plain, () => true)).toBe(true);
    expect(approvalRequired({ approvalRequired: true }, plain, () => false)).toBe(false);
    expect(approvalRequired({ approvalRequired: true }, plain, () => undefined)).toBe(true);
    expect(approvalRequired({ approvalRequired: false }, exempt, () => true)).toBe(false);
  });
});
