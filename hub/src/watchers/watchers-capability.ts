import { containerIdentity } from '../../../shared/update/update-clock';
import type { ApprovalService } from '../approvals/approval-service';
import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { NotificationService } from '../notifications/notification-service';
import type { RegistryAccess } from '../registries/registries-capability';
import { newFileSourceWatcher } from '../sources/file-source-watcher';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import { inventoryWriter } from '../store/inventory-writer';
import type { LabelOverrideStore } from '../store/label-override-store';
import { createSwarmHost } from '../swarm/swarm-host';
import { TagPolicyCache } from './container-check';
import type { Fleet } from './fleet';
import type { MaturityLifts } from './maturity-lifts';
import { createWatcherFactory, type WatcherFactory, type WatcherFactoryDeps } from './watcher-factory';

export type WatchersCapabilityDeps = Pick<
  HubFoundation,
  'input' | 'config' | 'storage' | 'logger' | 'now' | 'publish' | 'metrics' | 'scheduler'
> & {
  containers: ContainerStore;
  audit: AuditStore;
  labelOverrides: LabelOverrideStore;
  registries: RegistryAccess | undefined;
  fleet: Fleet;
  maturityLifts: MaturityLifts;
  approvals: ApprovalService;
  notifications: NotificationService;
  /** The automatic updates: a late binding, they queue updates, which run on the watchers' hosts. */
  autoUpdate: WatcherFactoryDeps['autoUpdate'];
};

/**
 * The watchers, the hub's and its agents', all built alike by one factory; the hub's own (one per
 * Docker endpoint, one per file source) start with the hub. Every watcher of the fleet, agents'
 * included, stops here, after the agents (registered later) have closed their links.
 */
export function watchersCapability(deps: WatchersCapabilityDeps): Capability<{ newWatcher: WatcherFactory }> {
  const { input, config, storage, logger, now, metrics, containers, audit, fleet } = deps;
  const { maturityLifts, approvals, notifications, labelOverrides } = deps;
  const newWatcher = createWatcherFactory({
    containers,
    lookups: deps.registries?.lookups,
    tagPolicies: new TagPolicyCache(),
    thresholdDays: config.ui.maturityThresholdDays,
    logger,
    now,
    publish: deps.publish,
    audit,
    writeInventory: inventoryWriter(storage, containers, audit, (entries) => {
      for (const entry of entries) metrics.auditEntries.inc({ action: entry.action });
    }),
    metrics,
    // Approvals first: a new candidate's approval exists before its update-available notification names it.
    notify: async (changes) => {
      maturityLifts.inventoryApplied(changes);
      await approvals.inventoryApplied(changes);
      await notifications.inventoryApplied(changes);
    },
    autoUpdate: deps.autoUpdate,
    schedule: deps.scheduler,
    labelOverrides: (record) => labelOverrides.resolve(containerIdentity(record), record),
    labelOverridesRevision: () => labelOverrides.revision(),
  });
  return {
    parts: { newWatcher },
    start() {
      // One Docker watcher per configured endpoint, where the runtime can reach Docker at all.
      const dockerHostFor = input.dockerHostFor;
      if (dockerHostFor) {
        for (const watcherConfig of config.watchers) {
          const watcher = newWatcher(watcherConfig, dockerHostFor(watcherConfig.endpoint));
          fleet.add(watcher);
          watcher.start();
        }
      }
      // Podman watchers (docs/sources.md): a Podman service's Docker-compatible socket, watched as Docker.
      for (const podmanConfig of config.podmanWatchers) {
        if (!input.podmanHostFor) {
          logger.error('podman watchers need a Docker Engine client, which this runtime does not have', {
            watcher: `podman.${podmanConfig.name}`,
          });
          continue;
        }
        const watcher = newWatcher(podmanConfig, input.podmanHostFor(podmanConfig.endpoint), { type: 'podman' });
        fleet.add(watcher);
        watcher.start();
      }
      // Swarm watchers (docs/sources.md): a manager's services, through its Engine API.
      for (const swarmConfig of config.swarmWatchers) {
        if (!input.swarmEngineFor) {
          logger.error('swarm watchers need a Docker Engine client, which this runtime does not have', {
            watcher: `swarm.${swarmConfig.name}`,
          });
          continue;
        }
        const host = createSwarmHost(input.swarmEngineFor(swarmConfig.endpoint), `swarm.${swarmConfig.name}`);
        const watcher = newWatcher(swarmConfig, host, { type: 'swarm' });
        fleet.add(watcher);
        watcher.start();
      }
      // File sources (docs/sources.md) where the runtime reads files; Workers refuse DD_WATCHER_* before this.
      for (const sourceConfig of config.fileSources) {
        if (!input.sourceFilesFor) {
          logger.error('file sources need a file system, which this runtime does not have', {
            watcher: `${sourceConfig.type}.${sourceConfig.name}`,
          });
          continue;
        }
        const files = input.sourceFilesFor(sourceConfig);
        const watcher = newFileSourceWatcher(newWatcher, sourceConfig, files, { now, logger: logger.child('sources') });
        fleet.add(watcher);
        watcher.start();
      }
    },
    async stop() {
      await Promise.all(fleet.all().map((watcher) => watcher.stop()));
      await Promise.all(fleet.all().map((watcher) => watcher.host.close()));
    },
  };
}
