import type { LabelMap } from '../../../shared/containers/label-overrides';
import { APPROVAL_LABEL } from '../../../shared/schemas/approval';
import { scopeSatisfies } from '../../../shared/scopes';
import type { Principal } from '../auth/principal';
import { HttpError } from '../http/http-error';

/**
 * DD_APPROVALS_SEPARATE (docs/approvals.md "Separation of duties"): a per-container label override
 * that sets, changes or clears `dd.update.approval` needs `admin`, or a `containers:update` key
 * could lift the approval it is not allowed to give. (Global overrides need `admin` anyway.)
 * Sessions hold every scope, as everywhere.
 */
export function assertMayOverrideApprovalLabel(
  enabled: boolean,
  principal: Principal,
  before: Readonly<LabelMap> | undefined,
  after: Readonly<LabelMap>,
): void {
  if (!enabled || before?.[APPROVAL_LABEL] === after[APPROVAL_LABEL]) return;
  if (principal.kind !== 'api-key' || scopeSatisfies(principal.scopes, 'admin')) return;
  throw new HttpError(403, `Overriding ${APPROVAL_LABEL} needs the admin scope while DD_APPROVALS_SEPARATE is on`, {
    requiredScope: 'admin',
    label: APPROVAL_LABEL,
  });
}
