import { actingLabels } from '../../../shared/containers/label-overrides';
import { APPROVAL_LABEL } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import type { Settings } from '../../../shared/schemas/settings';

/** A group's say on approvals (group policies are not built yet): undefined leaves it to the setting. */
export type GroupApprovalPolicy = (container: Container) => boolean | undefined;

/** `dd.update.approval`: `required` → true, `none` → false; absent or anything else → undefined. */
export function approvalLabel(labels: Readonly<Record<string, string>>): boolean | undefined {
  const value = labels[APPROVAL_LABEL]?.trim().toLowerCase();
  if (value === 'required') return true;
  if (value === 'none') return false;
  return undefined;
}

/**
 * Whether an update of this container waits for an approval (docs/approvals.md), most specific first:
 * the container's `dd.update.approval` label, then its group's policy (the seam for group policies),
 * then the hub's `approvalRequired` setting.
 */
export function approvalRequired(
  settings: Pick<Settings, 'approvalRequired'>,
  container: Container,
  groupPolicy?: GroupApprovalPolicy,
): boolean {
  // Through the label overrides (docs/label-overrides.md): an override of the label counts as the label.
  return approvalLabel(actingLabels(container)) ?? groupPolicy?.(container) ?? settings.approvalRequired;
}
