import { imageOf } from '../../../shared/containers/container-record';
import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import type { EdgeWatcher } from '../../../shared/edge/protocol';
import type { Logger } from '../../../shared/logging/logger';
import type { Publish } from '../events/event-bus';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { toPublicContainer } from '../watchers/public-container';
import type { WatcherFactory } from '../watchers/watcher-factory';
import { EdgeDockerHost, type EdgeLink } from './edge-docker-host';
import type { SharedImages } from './shared-images';

export interface AgentRuntimeDeps {
  newWatcher: WatcherFactory;
  containers: Pick<ContainerStore, 'ofSource' | 'removeMany'>;
  audit: Pick<AuditStore, 'appendMany'>;
  publish: Publish;
  logger: Logger;
  now: () => number;
  requestTimeoutMs: number;
  /** The fleet's image descriptions, one object each (SharedImages). */
  sharedImages?: SharedImages | undefined;
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

/** Whether a re-announced watcher can keep running as it is (the same Engine type, the same schedule). */
const sameSchedule = (a: EdgeWatcher, b: EdgeWatcher) =>
  (a.type ?? 'docker') === (b.type ?? 'docker') &&
  a.cron === b.cron &&
  a.jitterSeconds === b.jitterSeconds &&
  a.watchAll === b.watchAll &&
  a.watchByDefault === b.watchByDefault;

/**
 * The hub side of one edge agent's watchers: an EdgeDockerHost and an ordinary DockerWatcher per
 * watcher the agent announced, scheduled by the hub (registry checks run here, sharing the
 * fleet's lookups). Watchers run while the agent is connected and stand still while it is away.
 */
export class AgentRuntime {
  private readonly watchers = new Map<string, AgentWatcher>();
  /** Watchers of a resumed session still waiting for the full sync that refills their host (resumed()). */
  private readonly unsynced = new Set<string>();

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
        this.deps.logger.warn('could not retire an agent watcher', {
          agent: this.name,
          watcher: name,
          error: String(error),
        }),
      );
    }
    for (const config of announced) {
      if (!this.watchers.has(config.name)) changes.added.push(this.create(config, undefined).watcher);
    }
    return changes;
  }

  private async retire(entry: AgentWatcher, gone: boolean): Promise<void> {
    await entry.watcher.stop({ forgetSchedule: gone });
    if (!gone) return;
    await entry.host.close();
    await this.dropRecords(entry.config.name);
  }

  /**
   * The session was resumed after the hub hibernated (docs/workers.md "Edge sockets"): the records
   * are stored, but the agent's inventory as it sent it (each host's mirror) was in memory only.
   * Each watcher waits for a full sync, asked of the agent (`requestSync`) at its first delta
   * (takeResync) or when its cycle falls due, whichever comes first.
   */
  resumed(requestSync: (watcherName: string) => void): void {
    for (const [name, entry] of this.watchers) {
      if (entry.running) continue;
      this.unsynced.add(name);
      entry.watcher.scheduleUntilStarted(() => {
        if (this.takeResync(name)) requestSync(name);
      });
    }
  }

  /** True once for a resumed watcher that has not had a full sync since: the caller asks the agent for one. */
  takeResync(watcherName: string): boolean {
    return this.unsynced.delete(watcherName);
  }

  /** A session began (link) or ended (undefined): hosts follow it, watchers stop until the next full sync. */
  setLink(link: EdgeLink | undefined): void {
    for (const entry of this.watchers.values()) {
      entry.host.setLink(link);
      // A watcher of a resumed session that never ran holds its schedule too (scheduleUntilStarted).
      if (!link && (entry.running || this.unsynced.has(entry.config.name))) {
        entry.running = false;
        void entry.watcher.stop();
      }
    }
    if (!link) this.unsynced.clear();
  }

  /**
   * A complete snapshot arrived. Without an operationId it is a full sync: the watcher (re)starts
   * and runs one cycle at once, so new containers get their registry check. With one it answers
   * an inventory refresh, whose route observes it without checks.
   */
  applySnapshot(
    watcherName: string,
    containers: DockerContainerDetails[],
    images: DockerImageDetails[],
    fullSync: boolean,
  ): void {
    const entry = this.watchers.get(watcherName);
    if (!entry) return;
    entry.host.applySnapshot(containers, images);
    if (!fullSync) return;
    this.unsynced.delete(watcherName);
    if (!entry.running) {
      entry.running = true;
      // startDelayMs 0: start() itself schedules the one cycle that follows the sync.
      entry.watcher.start();
      return;
    }
    entry.watcher
      .watch({ joinCycle: true })
      .catch((error: unknown) =>
        this.deps.logger.warn('agent watch cycle failed', { agent: this.name, error: String(error) }),
      );
  }

  async stop(): Promise<void> {
    await Promise.all([...this.watchers.values()].map((entry) => entry.watcher.stop()));
  }

  private create(config: EdgeWatcher, reuse: EdgeDockerHost | undefined): AgentWatcher {
    const host =
      reuse ??
      new EdgeDockerHost({
        agentName: this.name,
        watcherName: config.name,
        endpoint: config.endpoint,
        requestTimeoutMs: this.deps.requestTimeoutMs,
        now: this.deps.now,
        sharedImages: this.deps.sharedImages,
      });
    const watcher = this.deps.newWatcher(
      {
        name: config.name,
        // Not dialled: the agent reaches Docker. Kept for the type; the masked endpoint is on the host.
        endpoint: { socketPath: config.endpoint },
        cron: config.cron,
        jitterSeconds: Math.min(config.jitterSeconds, MAX_JITTER_SECONDS),
        watchByDefault: config.watchByDefault,
        watchAll: config.watchAll,
      },
      host,
      // Agents' containers raise the same notification events and go through the same
      // automatic-update policy as local ones (updates then run on the agent).
      // The agent gathered its Docker events before sending them: the watcher applies each change at
      // once (no second debounce), so a change reaches the UI one hop after the agent sent it.
      {
        agent: this.name,
        // A Podman host's watcher is listed and found as podman (GET /watchers/podman/<name>?agent=…).
        type: config.type ?? 'docker',
        startDelayMs: 0,
        eventDebounceMs: 0,
        onPublished: this.deps.onRecordsChanged,
      },
    );
    const entry: AgentWatcher = { config, host, watcher, running: false };
    this.watchers.set(config.name, entry);
    return entry;
  }

  private async dropRecords(watcherName: string): Promise<void> {
    const { containers, audit, publish } = this.deps;
    const records = containers.ofSource(this.name, watcherName);
    if (records.length === 0) return;
    await containers.removeMany(records.map((record) => record.id));
    await audit.appendMany(
      records.map((record) => ({
        action: 'container-removed' as const,
        containerName: record.name,
        containerImage: imageOf(record),
        details: `agent ${this.name} no longer has watcher ${watcherName}`,
      })),
    );
    for (const record of records) publish('dd:container-removed', toPublicContainer(record));
    this.deps.onRecordsChanged();
  }
}
