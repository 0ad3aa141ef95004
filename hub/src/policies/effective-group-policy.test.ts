import { describe, expect, it } from 'vitest';
import type { GroupPolicy } from '../../../shared/schemas/group-policy';
import { containerRecord } from '../../../test/support/container-fixture';
import { approvalRequirement } from '../approvals/approval-policy';
import {
  autoUpdatePolicyOf,
  effectiveGroupPolicy,
  groupApprovalPolicy,
  insideWindows,
  rolloutHostOf,
} from './effective-group-policy';

const at = (iso: string) => Date.parse(iso);
const policy = (scope: GroupPolicy['scope'], name: string, fields: Partial<GroupPolicy>): GroupPolicy => ({
  scope,
  name,
  ...fields,
  createdAt: '',
  updatedAt: '',
});

describe('insideWindows (UTC)', () => {
  // 2026-11-27 is a Friday.
  it('is always open without windows, and open within [start, end) of a listed day', () => {
    expect(insideWindows(undefined, at('2026-11-27T12:00:00Z'))).toBe(true);
    expect(insideWindows([], at('2026-11-27T12:00:00Z'))).toBe(true);
    const office = [{ days: ['fri' as const], start: '09:00', end: '17:00' }];
    expect(insideWindows(office, at('2026-11-27T09:00:00Z'))).toBe(true);
    expect(insideWindows(office, at('2026-11-27T16:59:00Z'))).toBe(true);
    expect(insideWindows(office, at('2026-11-27T17:00:00Z'))).toBe(false);
    expect(insideWindows(office, at('2026-11-26T12:00:00Z'))).toBe(false);
  });

  it('crosses midnight when end is before start: the morning part belongs to the day it started', () => {
    const night = [{ days: ['fri' as const], start: '22:00', end: '04:00' }];
    expect(insideWindows(night, at('2026-11-27T23:30:00Z'))).toBe(true);
    expect(insideWindows(night, at('2026-11-28T03:59:00Z'))).toBe(true); // Saturday morning
    expect(insideWindows(night, at('2026-11-27T03:00:00Z'))).toBe(false); // Friday morning: Thursday's night
    expect(insideWindows(night, at('2026-11-28T04:00:00Z'))).toBe(false);
  });
});

describe('what group and agent policies ask of updates', () => {
  const web = containerRecord({ name: 'web', group: 'shop', agent: 'edge-1' });
  const policies = [
    policy('group', 'shop', {
      maturityMode: 'mature',
      maturityMinAgeDays: 2,
      windows: [{ start: '01:00', end: '02:00' }],
    }),
    policy('agent', 'edge-1', { updateMode: 'auto', approvalRequired: true }),
  ];
  const store = { get: (scope: string, name: string) => policies.find((p) => p.scope === scope && p.name === name) };
  const settings = { get: () => ({ updateMode: 'manual' as const, approvalRequired: false }) };

  it('names hosts by agent, or __local__ and the watcher', () => {
    expect(rolloutHostOf(web)).toBe('edge-1');
    expect(rolloutHostOf(containerRecord({ watcher: 'nas' }))).toBe('__local__:nas');
  });

  it("takes the agent's mode and approval, the group's windows and maturity gate, until the candidate is old enough", () => {
    const firstSeenAt = at('2026-11-26T01:30:00Z');
    const of = (now: string) =>
      autoUpdatePolicyOf({ store, settings, firstSeenAt: () => firstSeenAt, now: () => at(now) })(web);
    expect(of('2026-11-27T01:30:00Z')).toEqual({
      mode: 'auto',
      insideWindow: true,
      immatureUntil: '2026-11-28T01:30:00.000Z',
    });
    expect(of('2026-11-28T01:30:00Z')).toEqual({ mode: 'auto', insideWindow: true });
    expect(of('2026-11-28T12:00:00Z')).toEqual({ mode: 'auto', insideWindow: false });
    expect(groupApprovalPolicy(store)(web)).toEqual({ value: true, source: 'agent-policy' });
    // The container's own maturity label wins: the label gate (its blockers) decides, not the policy.
    const labelled = containerRecord({ ...web, labels: { 'dd.updatePolicy.maturityMode': 'all' } });
    expect(
      autoUpdatePolicyOf({ store, settings, firstSeenAt: () => firstSeenAt, now: () => at('2026-11-27T01:30:00Z') })(
        labelled,
      ),
    ).toEqual({ mode: 'auto', insideWindow: true });
  });

  it('shows the approval requirement the approval gate applies: one precedence for both', () => {
    const cases = [
      web,
      containerRecord({ name: 'db' }),
      containerRecord({ ...web, labels: { 'dd.update.approval': 'none' } }),
      containerRecord({ ...web, effectiveLabels: { 'dd.update.approval': { value: 'none', source: 'override' } } }),
    ];
    for (const container of cases)
      expect(effectiveGroupPolicy(container, settings.get(), store).effective.approvalRequired).toEqual(
        approvalRequirement(settings.get(), container, groupApprovalPolicy(store)),
      );
    expect(effectiveGroupPolicy(web, settings.get(), store).effective.approvalRequired).toEqual({
      value: true,
      source: 'agent-policy',
    });
  });

  it('leaves everything to the settings where no policy applies', () => {
    const other = containerRecord({ name: 'db' });
    expect(
      autoUpdatePolicyOf({ store, settings, firstSeenAt: () => undefined, now: () => at('2026-11-27T12:00:00Z') })(
        other,
      ),
    ).toEqual({ insideWindow: true });
    expect(groupApprovalPolicy(store)(other)).toBeUndefined();
  });
});
