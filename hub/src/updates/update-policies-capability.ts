import { containerIdentity } from '../../../shared/update/update-clock';
import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import { autoUpdatePolicyOf } from '../policies/effective-group-policy';
import type { GroupPolicyStore } from '../policies/group-policy-store';
import type { RolloutService } from '../rollouts/rollout-service';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import { type AutoUpdater, createAutoUpdater } from './auto-update';
import { createDependencyGroupUpdates, type DependencyGroupUpdates } from './dependency-group-updates';
import type { UpdateService } from './update-service';

/** The policies that queue updates: automatic updates (straight or through a rollout) and dependency groups. */
export function updatePoliciesCapability(
  deps: Pick<HubFoundation, 'storage' | 'logger' | 'now' | 'publish' | 'events'> & {
    audit: AuditStore;
    containers: ContainerStore;
    settings: SettingsStore;
    groupPolicies: GroupPolicyStore;
    updates: UpdateService;
    rollouts: RolloutService;
  },
): Capability<{ autoUpdates: AutoUpdater; dependencyGroups: DependencyGroupUpdates }> {
  const { storage, logger, now, audit, containers, settings, updates } = deps;
  const autoUpdates = createAutoUpdater({
    ...{ storage, logger, audit, containers, settings, updates, rollouts: deps.rollouts },
    policyOf: autoUpdatePolicyOf({
      store: deps.groupPolicies,
      settings,
      firstSeenAt: (container) => containers.identityState(containerIdentity(container)).clock?.firstSeenAt,
      now,
    }),
  });
  const { events, publish } = deps;
  const dependencyGroups = createDependencyGroupUpdates({ logger, now, containers, audit, events, publish, updates });
  return {
    parts: { autoUpdates, dependencyGroups },
    load: () => autoUpdates.load(),
    // Running group updates settle (or roll back once signalled) while the watchers' hosts are still open.
    drain: () => dependencyGroups.stop(),
  };
}
