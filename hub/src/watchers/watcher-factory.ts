import type { DockerHost } from '../../../shared/docker/docker-host';
import type { WatcherConfig, WatcherType } from '../../../shared/docker/watcher-config';
import type { Logger } from '../../../shared/logging/logger';
import type { FleetLookups } from '../checks/fleet-lookups';
import type { Publish } from '../events/event-bus';
import { type HubMetrics, watchCycleRecorder } from '../metrics/hub-metrics';
import type { AppliedChange } from '../notifications/inventory-events';
import type { Scheduler } from '../schedule/scheduler';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { ApplyTargets } from './apply-inventory';
import type { TagPolicyCache } from './container-check';
import { DockerWatcher, type DockerWatcherDeps } from './docker-watcher';

/** What every watcher of the hub shares, local or an agent's. */
export interface WatcherFactoryDeps {
  containers: ContainerStore;
  /** Registry lookups shared by the whole fleet; no update checks without registry providers. */
  lookups: FleetLookups | undefined;
  tagPolicies: TagPolicyCache;
  thresholdDays: number;
  logger: Logger;
  now: () => number;
  publish: Publish;
  audit: Pick<AuditStore, 'appendMany'>;
  /** An observation's records and audit entries in one storage batch (ApplyTargets.write). */
  writeInventory?: ApplyTargets['write'];
  metrics: HubMetrics;
  /** The notification events of every applied observation (update-available, maturity-cleared, unhealthy). */
  notify: (changes: readonly AppliedChange[]) => Promise<void>;
  /** The automatic-update policy, told the same changes after notify. */
  autoUpdate: (changes: readonly AppliedChange[]) => Promise<void>;
  /** The durable schedules the watch cycles run on. */
  schedule: Pick<Scheduler, 'job' | 'forget'>;
  /** The label overrides every watcher applies to the records it builds. */
  labelOverrides?: DockerWatcherDeps['labelOverrides'];
  labelOverridesRevision?: DockerWatcherDeps['labelOverridesRevision'];
}

export interface WatcherOptions {
  /** The agent whose Docker host this is; undefined for the hub's own. */
  agent?: string | undefined;
  /** Told after each record this watcher writes (an agent's counts may have moved). */
  onPublished?: (() => void) | undefined;
  startDelayMs?: number | undefined;
  /** `docker` unless the host is a file source's (docs/sources.md). */
  type?: WatcherType | undefined;
  /** How long Docker events are gathered before one refresh (250 ms for a local Engine). */
  eventDebounceMs?: number | undefined;
}

export type WatcherFactory = (config: WatcherConfig, host: DockerHost, options?: WatcherOptions) => DockerWatcher;

/** One way to build a watcher, so the hub's and its agents' behave alike. */
export function createWatcherFactory(deps: WatcherFactoryDeps): WatcherFactory {
  // One function for all the watchers, not one each: an edge fleet has 10,000 (issue 30 item 3).
  const audit: DockerWatcherDeps['audit'] = (records) => deps.audit.appendMany(records);
  return (config, host, options = {}) => {
    const { agent, onPublished } = options;
    const publish: Publish = onPublished
      ? (type, data) => {
          deps.publish(type, data);
          onPublished();
        }
      : deps.publish;
    const type = options.type ?? 'docker';
    return new DockerWatcher({
      config,
      type,
      host,
      agent,
      store: deps.containers,
      lookups: deps.lookups,
      policies: deps.tagPolicies,
      thresholdDays: deps.thresholdDays,
      logger: deps.logger.child(
        agent === undefined ? `watcher.${type}.${config.name}` : `watcher.${type}.${agent}.${config.name}`,
      ),
      now: deps.now,
      ...(options.startDelayMs !== undefined && { startDelayMs: options.startDelayMs }),
      ...(options.eventDebounceMs !== undefined && { eventDebounceMs: options.eventDebounceMs }),
      publish,
      audit,
      write: deps.writeInventory,
      notify: deps.notify,
      autoUpdate: deps.autoUpdate,
      onCycle: watchCycleRecorder(deps.metrics, config.name, agent),
      schedule: deps.schedule,
      labelOverrides: deps.labelOverrides,
      labelOverridesRevision: deps.labelOverridesRevision,
    });
  };
}
