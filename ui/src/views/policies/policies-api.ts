// The group policy and global label override routes (docs/group-policies.md,
// docs/label-overrides.md), typed from the schemas that validate them: `import type` only.
import type * as v from 'valibot';
import type { GroupPolicy, GroupPolicyBody, GroupPolicyScope } from '../../../../shared/schemas/group-policy';
import type {
  GlobalLabelOverride,
  GlobalLabelOverrideBodySchema,
  LabelOverrideSelector,
} from '../../../../shared/schemas/label-override';
import { call } from '../../api';

export type { GlobalLabelOverride, GroupPolicy, GroupPolicyBody, GroupPolicyScope, LabelOverrideSelector };
export type GlobalLabelOverrideBody = v.InferOutput<typeof GlobalLabelOverrideBodySchema>;

const part = encodeURIComponent;
const policyPath = (scope: GroupPolicyScope, name: string) => `/group-policies/${part(scope)}/${part(name)}`;

export const policiesApi = {
  groupPolicies: () => call<{ data: GroupPolicy[]; total: number }>('/group-policies'),
  setGroupPolicy: (scope: GroupPolicyScope, name: string, body: GroupPolicyBody) =>
    call<GroupPolicy>(policyPath(scope, name), { method: 'PUT', body }),
  clearGroupPolicy: (scope: GroupPolicyScope, name: string) =>
    call<GroupPolicy>(policyPath(scope, name), { method: 'DELETE' }),

  labelOverrides: () => call<{ data: GlobalLabelOverride[]; total: number }>('/label-overrides'),
  addLabelOverride: (body: GlobalLabelOverrideBody) =>
    call<GlobalLabelOverride>('/label-overrides', { method: 'POST', body }),
  removeLabelOverride: (id: string) => call<GlobalLabelOverride>(`/label-overrides/${part(id)}`, { method: 'DELETE' }),
};
