import { actingLabels } from '../../../shared/containers/label-overrides';
import { APPROVAL_LABEL } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import type { PolicySource } from '../../../shared/schemas/group-policy';
import type { Settings } from '../../../shared/schemas/settings';

/** What a group or agent policy says of approvals, and which of the two said it. */
export type PolicyApproval = { value: boolean; source: 'group-policy' | 'agent-policy' };

/**
 * The group's, else the agent's, say on approvals (hub/src/policies/effective-group-policy.ts:
 * groupApprovalPolicy); undefined leaves it to the setting.
 */
export type GroupApprovalPolicy = (container: Container) => PolicyApproval | undefined;

/** `dd.update.approval`: `required` → true, `none` → false; absent or anything else → undefined. */
export function approvalLabel(labels: Readonly<Record<string, string>>): boolean | undefined {
  const value = labels[APPROVAL_LABEL]?.trim().toLowerCase();
  if (value === 'required') return true;
  if (value === 'none') return false;
  return undefined;
}

/** A dd.* label's own source: the container's label, or a label override of it (docs/label-overrides.md). */
export function labelSourceOf(container: Container, key: string): 'label' | 'override' {
  const source = container.effectiveLabels?.[key]?.source;
  return source === 'override' || source === 'global-override' ? 'override' : 'label';
}

/**
 * Whether an update of this container waits for an approval, and what decided it: the one place of
 * the precedence of docs/approvals.md and docs/group-policies.md "Precedence", most specific first.
 * The container's `dd.update.approval` label (or a label override of it), then its group's policy,
 * then its agent's, then the hub's `approvalRequired` setting. The approval gate and the effective
 * policy the API shows both ask here, so they cannot disagree.
 */
export function approvalRequirement(
  settings: Pick<Settings, 'approvalRequired'>,
  container: Container,
  groupPolicy?: GroupApprovalPolicy,
): { value: boolean; source: PolicySource } {
  // Through the label overrides (docs/label-overrides.md): an override of the label counts as the label.
  const byLabel = approvalLabel(actingLabels(container));
  if (byLabel !== undefined) return { value: byLabel, source: labelSourceOf(container, APPROVAL_LABEL) };
  return groupPolicy?.(container) ?? { value: settings.approvalRequired, source: 'setting' };
}

/** Whether an update of this container waits for an approval (approvalRequirement's answer). */
export function approvalRequired(
  settings: Pick<Settings, 'approvalRequired'>,
  container: Container,
  groupPolicy?: GroupApprovalPolicy,
): boolean {
  return approvalRequirement(settings, container, groupPolicy).value;
}
