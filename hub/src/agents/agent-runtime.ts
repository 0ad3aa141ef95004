import { imageOf } from '../../../shared/containers/container-record';
import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import type { EdgeWatcher } from '../../../shared/edge/protocol';
import type { HubServices } from '../hub-services';
import { watchCycleRecorder } from '../metrics/hub-metrics';
import { DockerWatcher } from '../watchers/docker-watcher';
import { toPublicContainer } from '../watchers/public-container';
import { EdgeDockerHost, type EdgeLink } from './edge-docker-host';

export interface AgentRuntimeDeps {
  services: HubServices;
  requestTimeoutMs: number;
  /** A record of this agent was added, changed or removed (its counts may have moved). */
  onRecordsChanged: () => void;
}

interface AgentWatcher {
  config: EdgeWatcher;
  host: EdgeDockerHost;
  watcher: DockerWatcher;
  /** Scheduled and subscribed: from the first full sync of a session until the session ends. */
  running: boolean;
}

export interface WatcherChanges {
  added: DockerWatcher[];
  removed: DockerWatcher[];
}

/** Jitter the hub applies to an agent's schedule: what the agent asks for, within the hub's own bound. */
const MAX_JITTER_SECONDS = 3600;

const sameSchedule = (a: EdgeWatcher, b: EdgeWatcher) =>
  a.cron === b.cron && a.jitterSeconds === b.jitterSeconds && a.watchAll === b.watchAll && a.watchByDefault === b.watchByDefault;

/**
 * The hub side of one edge agent's watchers: an EdgeDockerHost and an ordinary DockerWatcher per
 * watcher the agent announced, scheduled by the hub (registry checks run here, sharing the
 * fleet's lookups). Watchers run while the agent is connected and stand still while it is away.
 */
export class AgentRuntime {
  private readonly watchers = new Map<string, AgentWatcher>();

  constructor(
    readonly name: string,
    private readonly deps: AgentRuntimeDeps,
  ) {}

  list(): { config: EdgeWatcher; watcher: DockerWatcher; host: EdgeDockerHost }[] {
    return [...this.watchers.values()];
  }

  get(watcherName: string): { config: EdgeWatcher; watcher: DockerWatcher; host: EdgeDockerHost } | undefined {
    return this.watchers.get(watcherName);
  }

  /**
   * Matches the watchers to what the agent announced: new ones are created, one whose schedule
   * changed is replaced, and one the agent no longer has is dropped with its records (the agent
   * said so itself, so they are gone, not merely unseen). Synchronous, so the snapshot frames that
   * follow the welcome find their watchers; stopping the old ones finishes in the background.
   */
  reconcile(announced: readonly EdgeWatcher[]): WatcherChanges {
    const changes: WatcherChanges = { added: [], removed: [] };
    const wanted = new Map(announced.map((config) => [config.name, config]));
    for (const [name, entry] of [...this.watchers]) {
      const config = wanted.get(name);
      if (config && sameSchedule(config, entry.config)) {
        entry.config = config;
        continue;
      }
      this.watchers.delete(name);
      changes.removed.push(entry.watcher);
      if (config) changes.added.push(this.create(config, entry.host).watcher);
      this.retire(entry, config === undefined).catch((error: unknown) =>
        this.deps.services.logger.warn('could not retire an agent watcher', { agent: this.name, watcher: name, error: String(error) }),
      );
    }
    for (const config of announced) {
      if (!this.watchers.has(config.name)) changes.added.push(this.create(config, undefined).watcher);
    }
    return changes;
  }

  private async retire(entry: AgentWatcher, gone: boolean): Promise<void> {
    await entry.watcher.stop();
    if (!gone) return;
    await entry.host.close();
    await this.dropRecords(entry.config.name);
  }

  /** A session began (link) or ended (undefined): hosts follow it, watchers stop until the next full sync. */
  setLink(link: EdgeLink | undefined): void {
    for (const entry of this.watchers.values()) {
      entry.host.setLink(link);
      if (!link && entry.running) {
        entry.running = false;
        void entry.watcher.stop();
      }
    }
  }

  /**
   * A complete snapshot arrived. Without an operationId it is a full sync: the watcher (re)starts
   * and runs one cycle at once, so new containers get their registry check. With one it answers
   * an inventory refresh, whose route observes it without checks.
   */
  applySnapshot(watcherName: string, containers: DockerContainerDetails[], images: DockerImageDetails[], fullSync: boolean): void {
    const entry = this.watchers.get(watcherName);
    if (!entry) return;
    entry.host.applySnapshot(containers, images);
    if (!fullSync) return;
    if (!entry.running) {
      entry.running = true;
      // startDelayMs 0: start() itself schedules the one cycle that follows the sync.
      entry.watcher.start();
      return;
    }
    entry.watcher
      .watch({ joinCycle: true })
      .catch((error: unknown) => this.deps.services.logger.warn('agent watch cycle failed', { agent: this.name, error: String(error) }));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.watchers.values()].map((entry) => entry.watcher.stop()));
  }

  private create(config: EdgeWatcher, reuse: EdgeDockerHost | undefined): AgentWatcher {
    const { services } = this.deps;
    const host =
      reuse ??
      new EdgeDockerHost({
        agentName: this.name,
        watcherName: config.name,
        endpoint: config.endpoint,
        requestTimeoutMs: this.deps.requestTimeoutMs,
      });
    const watcher = new DockerWatcher({
      config: {
        name: config.name,
        // Not dialled: the agent reaches Docker. Kept for the type; the masked endpoint is on the host.
        endpoint: { socketPath: config.endpoint },
        cron: config.cron,
        jitterSeconds: Math.min(config.jitterSeconds, MAX_JITTER_SECONDS),
        watchByDefault: config.watchByDefault,
        watchAll: config.watchAll,
      },
      host,
      agent: this.name,
      store: services.containers,
      lookups: services.registries?.lookups,
      policies: services.tagPolicies,
      thresholdDays: services.config.ui.maturityThresholdDays,
      logger: services.logger.child(`watcher.docker.${this.name}.${config.name}`),
      now: services.now,
      startDelayMs: 0,
      publish: (type, data) => {
        services.publish(type, data);
        this.deps.onRecordsChanged();
      },
      audit: (record) => services.audit.append(record),
      // Agents' containers raise the same notification events as local ones.
      notify: (changes) => services.notifications.inventoryApplied(changes),
      // ...and go through the same automatic-update policy (updates then run on the agent).
      autoUpdate: (changes) => services.autoUpdates.inventoryApplied(changes),
      onCycle: watchCycleRecorder(services.metrics, config.name, this.name),
    });
    const entry: AgentWatcher = { config, host, watcher, running: false };
    this.watchers.set(config.name, entry);
    return entry;
  }

  private async dropRecords(watcherName: string): Promise<void> {
    const { services } = this.deps;
    const records = services.containers.all().filter((c) => c.agent === this.name && c.watcher === watcherName);
    for (const record of records) {
      await services.containers.remove(record.id);
      await services.audit.append({
        action: 'container-removed',
        containerName: record.name,
        containerImage: imageOf(record),
        details: `agent ${this.name} no longer has watcher ${watcherName}`,
      });
      services.publish('dd:container-removed', toPublicContainer(record));
    }
    if (records.length > 0) this.deps.onRecordsChanged();
  }
}
