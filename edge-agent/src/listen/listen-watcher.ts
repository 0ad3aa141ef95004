import { Cron } from 'croner';
import type { AgentActionResult, AgentContainer } from '../../../shared/agent-api/listen-schemas';
import type { DockerContainerDetails, DockerHost, DockerImageDetails } from '../../../shared/docker/docker-host';
import type { WatcherConfig } from '../../../shared/docker/watcher-config';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { observeWatcher } from '../feed/observe-watcher';
import { WatcherFeed } from '../feed/watcher-feed';
import type { Timers } from '../link/timers';
import { buildAgentContainer } from './agent-container';
import type { ListenState } from './listen-state';

export interface ObservationError {
  phase: string;
  id?: string;
  message: string;
}

/** One observation of a watcher, in the terms of http-interface §4.3. */
export interface Observation {
  /** The watcher's inventory after it (the last-known one when it failed). */
  containers: AgentContainer[];
  removedIds: string[];
  errors: ObservationError[];
  authoritative: boolean;
}

export interface ListenWatcherOptions {
  config: WatcherConfig;
  host: DockerHost;
  state: ListenState;
  logger: Logger;
  timers: Timers;
  /** Docker events of one container within this long become one re-inspection (default 250 ms). */
  eventDebounceMs?: number;
}

export type ContainerAction = 'start' | 'stop' | 'restart';

/**
 * One Docker watcher of a listen-mode agent: its Engine, its event feed (the edge agent's: each
 * container's events debounced and re-inspected), and observations of the whole host, at start,
 * on its cron (the agent's pollInterval), after a gap in the event stream and on request.
 * Observations run one at a time; the feed's deltas are held back while one runs, so nothing
 * older than an observation is applied after it.
 */
export class ListenWatcher {
  readonly name: string;
  readonly feed: WatcherFeed;
  /** Unix ms of the end of the latest successful observation. */
  lastRunAt: number | undefined;
  /** Why the latest observation failed; undefined once one succeeds. */
  lastError: string | undefined;
  private cron: Cron | undefined;
  private jitterTimer: unknown;
  private chain: Promise<unknown> = Promise.resolve();
  /** The newest inventory operation asked for: an older one still waiting must not apply. */
  private latestOperation: string | undefined;
  private stopped = false;

  constructor(private readonly options: ListenWatcherOptions) {
    this.name = options.config.name;
    this.feed = new WatcherFeed({
      watcher: this.name,
      host: options.host,
      watchAll: options.config.watchAll,
      logger: options.logger,
      timers: options.timers,
      ...(options.eventDebounceMs !== undefined && { debounceMs: options.eventDebounceMs }),
      onDelta: (delta) => {
        if (delta.type === 'container.removed') options.state.remove(this.name, delta.containerId);
        else options.state.upsert(this.build(delta.container, delta.image));
      },
      onGap: () => void this.observe(),
    });
  }

  get config(): WatcherConfig {
    return this.options.config;
  }

  get host(): DockerHost {
    return this.options.host;
  }

  /** Registered (http-interface §4.5 /health) once an observation succeeded: the agent sees this watcher's Docker. */
  get registered(): boolean {
    return this.lastRunAt !== undefined;
  }

  get nextRunAt(): number | undefined {
    return this.cron?.nextRun()?.getTime();
  }

  start(): void {
    this.feed.start();
    const { cron, jitterSeconds } = this.options.config;
    this.cron = new Cron(cron, () => {
      this.jitterTimer = this.options.timers.setTimeout(
        () => void this.observe(),
        Math.random() * jitterSeconds * 1000,
      );
    });
    void this.observe();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cron?.stop();
    if (this.jitterTimer !== undefined) this.options.timers.clearTimeout(this.jitterTimer);
    this.feed.stop();
    await this.chain.catch(() => undefined);
  }

  /**
   * A fresh look at the whole host, applied to the state. With an operationId (an inventory
   * refresh) the changes become dd:inventory-* events, and a request superseded by a newer one
   * while it waited applies nothing and says so (http-interface §4.3).
   */
  observe(operationId?: string): Promise<Observation> {
    if (operationId !== undefined) this.latestOperation = operationId;
    return this.serially(async () => {
      const { state, host, config, logger } = this.options;
      const lastKnown = (errors: ObservationError[]): Observation => ({
        containers: state.ofWatcher(this.name),
        removedIds: [],
        errors,
        authoritative: false,
      });
      if (operationId !== undefined && operationId !== this.latestOperation) {
        return lastKnown([
          {
            phase: 'stale',
            message: 'a newer inventory request superseded this one; its observations were not written',
          },
        ]);
      }
      if (this.stopped) return lastKnown([{ phase: 'list', message: 'the agent is stopping' }]);
      const release = this.feed.hold();
      try {
        const observation = await observeWatcher(host, config.watchAll);
        const images = new Map(observation.images.map((image) => [image.id, image]));
        const containers = observation.containers.map((details) => this.build(details, images.get(details.imageId)));
        const removedIds = state.replace(this.name, containers, operationId);
        if (this.lastError !== undefined || this.lastRunAt === undefined) {
          logger.info(`watcher ${this.name}: ${containers.length} container(s) on ${host.endpoint}`);
        }
        this.lastRunAt = Date.now();
        this.lastError = undefined;
        return { containers: state.ofWatcher(this.name), removedIds, errors: [], authoritative: true };
      } catch (error) {
        const message = errorMessage(error);
        if (message !== this.lastError)
          logger.warn(`watcher ${this.name}: observing ${host.endpoint} failed: ${message}`);
        this.lastError = message;
        return lastKnown([{ phase: 'list', message: message.slice(0, 500) }]);
      } finally {
        release();
      }
    });
  }

  /** Manual watch of one container: re-inspected and applied; undefined when it is not in the inventory. */
  async refreshContainer(id: string): Promise<AgentContainer | undefined> {
    await this.serially(() => this.feed.reportNow(id));
    return this.options.state.get(this.name, id);
  }

  /**
   * start, stop or restart (DockerNotFoundError for an unknown container), then the container
   * re-inspected and applied before the answer, which carries it whether or not it is still in the
   * inventory: the hub answers its API call with the state after the action.
   */
  async act(action: ContainerAction, id: string): Promise<AgentActionResult> {
    await this.options.host[action](id);
    await this.serially(() => this.feed.reportNow(id));
    return this.describe(id);
  }

  /** The container as Docker shows it now, in or out of the inventory. */
  async describe(id: string): Promise<AgentActionResult> {
    const details = await this.options.host.inspectContainer(id);
    const listed = this.options.state.get(this.name, id) !== undefined;
    if (!details) return { id, watcher: this.name, container: null, listed };
    const image = await this.options.host.inspectImage(details.imageId);
    return { id, watcher: this.name, container: this.build(details, image), listed };
  }

  private build(details: DockerContainerDetails, image: DockerImageDetails | undefined): AgentContainer {
    return buildAgentContainer(
      details,
      image,
      this.options.config,
      this.options.state.get(this.name, details.id),
      Date.now(),
    );
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work, work);
    this.chain = run.catch(() => undefined);
    return run;
  }
}
