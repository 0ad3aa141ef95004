import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { GroupPolicyStore } from '../policies/group-policy-store';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import type { UpdateService } from '../updates/update-service';
import { createRolloutService, type RolloutService } from './rollout-service';

/** Staged rollouts (docs/group-policies.md "Staged rollouts"): waves of updates, driven by scheduler jobs. */
export function rolloutsCapability(
  deps: Pick<HubFoundation, 'storage' | 'logger' | 'now' | 'publish' | 'events' | 'scheduler'> & {
    audit: AuditStore;
    containers: ContainerStore;
    settings: SettingsStore;
    updates: UpdateService;
    groupPolicies: GroupPolicyStore;
  },
): Capability<{ rollouts: RolloutService }> {
  const rollouts = createRolloutService({
    storage: deps.storage,
    logger: deps.logger,
    now: deps.now,
    audit: deps.audit,
    publish: deps.publish,
    events: deps.events,
    containers: deps.containers,
    settings: deps.settings,
    updates: deps.updates,
    schedule: deps.scheduler,
    policies: deps.groupPolicies,
  });
  return {
    parts: { rollouts },
    load: () => rollouts.load(),
    // Rollouts go on after the updates they follow are recovered (the updates resume first).
    resume: () => rollouts.follow(),
    // No rollout requests an update past here: the next start carries each on from storage.
    drain: () => rollouts.stop(),
  };
}
