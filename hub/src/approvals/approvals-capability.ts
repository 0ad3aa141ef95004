import type { UpdateOperation } from '../../../shared/update-engine';
import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import { groupApprovalPolicy } from '../policies/effective-group-policy';
import { createGroupPolicyStore, type GroupPolicyStore } from '../policies/group-policy-store';
import type { ApiKeyStore } from '../store/api-key-store';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import { createPartyOf } from './approval-actors';
import { type ApprovalService, createApprovalService } from './approval-service';

export type ApprovalsCapabilityDeps = Pick<
  HubFoundation,
  'config' | 'storage' | 'storeLogger' | 'logger' | 'now' | 'publish'
> & {
  audit: AuditStore;
  containers: ContainerStore;
  settings: SettingsStore;
  apiKeys: ApiKeyStore;
  /** Runs an approved update: a late binding, the updates are built after the approvals that gate them. */
  runApproved: (containerId: string) => Promise<UpdateOperation>;
};

/** The group policies, and the approvals that gate updates by them. */
export function approvalsCapability(
  deps: ApprovalsCapabilityDeps,
): Capability<{ approvals: ApprovalService; groupPolicies: GroupPolicyStore }> {
  const { config, storage } = deps;
  const groupPolicies = createGroupPolicyStore(storage, deps.storeLogger.child('group-policies'));
  const approvals = createApprovalService({
    groupPolicy: groupApprovalPolicy(groupPolicies),
    storage,
    logger: deps.logger,
    now: deps.now,
    audit: deps.audit,
    containers: deps.containers,
    settings: deps.settings,
    publish: deps.publish,
    requestUpdate: deps.runApproved,
    separateDuties: config.approvals.separate ? { partyOf: createPartyOf(deps.apiKeys) } : undefined,
  });
  return {
    parts: { approvals, groupPolicies },
    async load() {
      await approvals.load();
      await groupPolicies.load();
    },
  };
}
