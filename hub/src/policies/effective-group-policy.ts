import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Container } from '../../../shared/schemas/container';
import type {
  EffectiveGroupPolicy,
  GroupPolicy,
  PolicySource,
  ScheduleWindow,
} from '../../../shared/schemas/group-policy';
import { WEEKDAYS } from '../../../shared/schemas/group-policy';
import type { Settings } from '../../../shared/schemas/settings';
import { MATURITY_MIN_AGE_DAYS_DEFAULT, type MaturityMode } from '../../../shared/schemas/update-policy';
import { DAY_MS } from '../../../shared/update/timestamp';
import { LOCAL_AGENT } from '../../../shared/update/update-clock';
import { approvalRequirement, type GroupApprovalPolicy, labelSourceOf } from '../approvals/approval-policy';
import type { GroupPolicyStore } from './group-policy-store';

/** The host a container runs on, as rollouts and agent policies name it: the agent, or `__local__:<watcher>`. */
export function rolloutHostOf(container: Pick<Container, 'agent' | 'watcher'>): string {
  return container.agent ?? `${LOCAL_AGENT}:${container.watcher}`;
}

/** The name of the agent policy that applies to a container: its agent, or `__local__` for the hub's own hosts. */
const agentNameOf = (container: Pick<Container, 'agent'>) => container.agent ?? LOCAL_AGENT;

/** The group policy, then the agent policy, for one field: the first that sets it. */
function fromPolicies<K extends keyof GroupPolicy>(
  group: GroupPolicy | undefined,
  agent: GroupPolicy | undefined,
  key: K,
): { value: NonNullable<GroupPolicy[K]>; source: 'group-policy' | 'agent-policy' } | undefined {
  if (group?.[key] !== undefined) return { value: group[key] as NonNullable<GroupPolicy[K]>, source: 'group-policy' };
  if (agent?.[key] !== undefined) return { value: agent[key] as NonNullable<GroupPolicy[K]>, source: 'agent-policy' };
  return undefined;
}

/**
 * What decides a container's updates (docs/group-policies.md "Precedence"): its label, then its label
 * override, then its group's policy, then its agent's, then the hub's settings.
 */
export function effectiveGroupPolicy(
  container: Container,
  settings: Pick<Settings, 'updateMode' | 'approvalRequired'>,
  store: Pick<GroupPolicyStore, 'get'>,
): EffectiveGroupPolicy {
  const group = container.group === undefined ? undefined : store.get('group', container.group);
  const agent = store.get('agent', agentNameOf(container));
  const labels = actingLabels(container);
  const maturityByLabel = labels['dd.updatePolicy.maturityMode']?.trim();
  const maturityMode =
    maturityByLabel === 'all' || maturityByLabel === 'mature'
      ? { value: maturityByLabel as MaturityMode, source: labelSourceOf(container, 'dd.updatePolicy.maturityMode') }
      : fromPolicies(group, agent, 'maturityMode');
  const maturityMinAgeDays = fromPolicies(group, agent, 'maturityMinAgeDays');
  const windows = fromPolicies(group, agent, 'windows');
  const rollout = fromPolicies(group, agent, 'rollout');
  return {
    containerId: container.id,
    group: container.group ?? null,
    host: rolloutHostOf(container),
    policies: [agent, group].filter((policy): policy is GroupPolicy => policy !== undefined),
    effective: {
      updateMode: fromPolicies(group, agent, 'updateMode') ?? { value: settings.updateMode, source: 'setting' },
      approvalRequired: approvalRequirement(settings, container, () => fromPolicies(group, agent, 'approvalRequired')),
      ...(maturityMode && { maturityMode }),
      ...(maturityMinAgeDays && { maturityMinAgeDays }),
      ...(windows && { windows }),
      ...(rollout && { rollout }),
    },
  };
}

/** Minutes since midnight of "HH:MM". */
const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Whether `at` (UTC) falls in one of the windows; no windows at all means always. */
export function insideWindows(windows: readonly ScheduleWindow[] | undefined, at: number): boolean {
  if (!windows || windows.length === 0) return true;
  const date = new Date(at);
  const minute = date.getUTCHours() * 60 + date.getUTCMinutes();
  const today = WEEKDAYS[(date.getUTCDay() + 6) % 7] as (typeof WEEKDAYS)[number];
  const yesterday = WEEKDAYS[(date.getUTCDay() + 5) % 7] as (typeof WEEKDAYS)[number];
  return windows.some((window) => {
    const start = minutesOf(window.start);
    const end = minutesOf(window.end);
    const on = (day: (typeof WEEKDAYS)[number]) => window.days === undefined || window.days.includes(day);
    if (start <= end) return on(today) && minute >= start && minute < end;
    // Across midnight: the evening part belongs to today, the morning part to the day it started.
    return (on(today) && minute >= start) || (on(yesterday) && minute < end);
  });
}

/** The approvals' say of the policies (hub/src/approvals/approval-policy.ts): the group's, else the agent's. */
export function groupApprovalPolicy(store: Pick<GroupPolicyStore, 'get'>): GroupApprovalPolicy {
  return (container) => {
    const group = container.group === undefined ? undefined : store.get('group', container.group);
    return fromPolicies(group, store.get('agent', agentNameOf(container)), 'approvalRequired');
  };
}

/** What a group or agent policy decides of automatic updates; absent fields leave it to the settings. */
export interface AutoUpdatePolicy {
  mode?: Settings['updateMode'] | undefined;
  /** Outside these windows nothing is updated by itself (blocked `outside-schedule-window`). */
  insideWindow?: boolean | undefined;
  /** The candidate is younger than the policy's maturity age (blocked `maturity-not-reached`). */
  immatureUntil?: string | undefined;
}

/**
 * What a container's group or agent policy asks of the auto-update policy: its mode, whether now is
 * inside its windows, and (when the policy, not a label, sets the maturity gate) until when the
 * candidate is too young.
 */
export function autoUpdatePolicyOf(deps: {
  store: Pick<GroupPolicyStore, 'get'>;
  settings: { get(): Pick<Settings, 'updateMode' | 'approvalRequired'> };
  firstSeenAt: (container: Container) => number | undefined;
  now: () => number;
}): (container: Container) => AutoUpdatePolicy {
  return (container) => {
    const { effective } = effectiveGroupPolicy(container, deps.settings.get(), deps.store);
    const byPolicy = (source: PolicySource) => source === 'group-policy' || source === 'agent-policy';
    const now = deps.now();
    let immatureUntil: string | undefined;
    const firstSeenAt = deps.firstSeenAt(container);
    if (effective.maturityMode?.value === 'mature' && byPolicy(effective.maturityMode.source) && firstSeenAt) {
      const days = effective.maturityMinAgeDays?.value ?? MATURITY_MIN_AGE_DAYS_DEFAULT;
      if (firstSeenAt + days * DAY_MS > now) immatureUntil = new Date(firstSeenAt + days * DAY_MS).toISOString();
    }
    return {
      ...(byPolicy(effective.updateMode.source) && { mode: effective.updateMode.value }),
      insideWindow: insideWindows(effective.windows?.value, now),
      ...(immatureUntil !== undefined && { immatureUntil }),
    };
  };
}
