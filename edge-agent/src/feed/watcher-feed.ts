import type { DockerContainerEvent, DockerHost, DockerSubscription } from '../../../shared/docker/docker-host';
import type { AgentFrame } from '../../../shared/edge/protocol';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import { createBackoff } from '../link/backoff';
import { fitsContainer, fitsImage } from '../link/frame-checks';
import type { Timers } from '../link/timers';
import { INSPECT_CONCURRENCY } from './observe-watcher';

export type ContainerDelta = Extract<AgentFrame, { type: 'container.changed' | 'container.removed' }>;

export interface WatcherFeedOptions {
  watcher: string;
  host: DockerHost;
  watchAll: boolean;
  logger: Logger;
  timers: Timers;
  /** Events of one container within this long become one re-inspection. */
  debounceMs?: number;
  /** A delta ready to go (the agent passes it to the live session, if there is one). */
  onDelta(delta: ContainerDelta): void;
  /** The event stream broke, so events may have been missed: this watcher needs a full resync. */
  onGap(): void;
}

export const EVENT_DEBOUNCE_MS = 250;

/**
 * The Docker event stream of one watcher, turned into deltas: each container's events are
 * debounced, then the container is re-inspected and reported as changed or removed. While a
 * snapshot of the watcher is being taken (hold()), due containers wait and are re-inspected after
 * it, so no delta older than the snapshot can reach the hub after it.
 */
export class WatcherFeed {
  private subscription: DockerSubscription | undefined;
  private readonly debounces = new Map<string, unknown>();
  private readonly deferred = new Set<string>();
  private readonly inFlight = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly limiter = createConcurrencyLimiter(INSPECT_CONCURRENCY);
  private readonly backoff = createBackoff({ minMs: 1_000, maxMs: 60_000, resetAfterMs: 0 });
  private resubscribeTimer: unknown;
  private holds = 0;
  /** Bumped by each hold(): an inspection begun before it must not be sent after it. */
  private epoch = 0;
  private stopped = true;

  constructor(private readonly options: WatcherFeedOptions) {}

  start(): void {
    this.stopped = false;
    this.subscribe();
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.close();
    this.subscription = undefined;
    if (this.resubscribeTimer !== undefined) this.options.timers.clearTimeout(this.resubscribeTimer);
    for (const timer of this.debounces.values()) this.options.timers.clearTimeout(timer);
    this.debounces.clear();
    this.deferred.clear();
  }

  /** Holds deltas back (a snapshot is being taken); call the returned function when it has been sent. */
  hold(): () => void {
    this.holds++;
    this.epoch++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds > 0) return;
      const ids = [...this.deferred];
      this.deferred.clear();
      for (const id of ids) this.due(id);
    };
  }

  private subscribe(): void {
    if (this.stopped) return;
    this.subscription = this.options.host.subscribeEvents({
      onEvent: (event) => this.onEvent(event),
      onClose: (error) => {
        if (this.stopped) return;
        const delayMs = this.backoff.next();
        this.options.logger.warn(
          `docker event stream of watcher ${this.options.watcher} closed (${error?.message ?? 'ended'}); resubscribing in ${delayMs} ms`,
        );
        this.resubscribeTimer = this.options.timers.setTimeout(() => {
          this.resubscribeTimer = undefined;
          this.subscribe();
          // Whatever happened while the stream was down is only in a full observation.
          this.options.onGap();
        }, delayMs);
      },
    });
  }

  private onEvent(event: DockerContainerEvent): void {
    this.backoff.reset();
    const timers = this.options.timers;
    const pending = this.debounces.get(event.id);
    if (pending !== undefined) timers.clearTimeout(pending);
    this.debounces.set(
      event.id,
      timers.setTimeout(() => {
        this.debounces.delete(event.id);
        this.due(event.id);
      }, this.options.debounceMs ?? EVENT_DEBOUNCE_MS),
    );
  }

  private due(id: string): void {
    if (this.stopped) return;
    if (this.holds > 0) this.deferred.add(id);
    else if (this.inFlight.has(id)) this.again.add(id);
    else void this.refresh(id);
  }

  /**
   * Re-inspects one container at once and hands its delta over before resolving: the hub's reply
   * to a start, stop, restart or remove must come after the record that shows its effect (a
   * reply first would let the hub answer with the state from before the action).
   */
  async reportNow(id: string): Promise<void> {
    const pending = this.debounces.get(id);
    if (pending !== undefined) {
      this.options.timers.clearTimeout(pending);
      this.debounces.delete(id);
    }
    // An inspection begun before the action may report the old state; ours follows it.
    await this.running.get(id);
    if (this.stopped) return;
    // A snapshot being taken now observes the container after the action and carries it.
    if (this.holds > 0) return;
    await this.refresh(id);
  }

  /** One inspection per container at a time, so two answers about it can never arrive out of order. */
  private refresh(id: string): Promise<void> {
    const run = this.inspectAndSend(id).finally(() => {
      if (this.running.get(id) === run) this.running.delete(id);
    });
    this.running.set(id, run);
    return run;
  }

  private async inspectAndSend(id: string): Promise<void> {
    this.inFlight.add(id);
    const epoch = this.epoch;
    try {
      const delta = await this.limiter.run(() => this.deltaFor(id));
      if (this.stopped || !delta) return;
      if (this.holds > 0 || epoch !== this.epoch) this.deferred.add(id);
      else this.options.onDelta(delta);
    } catch (error) {
      this.options.logger.warn(
        `watcher ${this.options.watcher}: re-inspecting container ${id} failed: ${errorMessage(error)}`,
      );
    } finally {
      this.inFlight.delete(id);
      if (this.again.delete(id)) this.due(id);
    }
  }

  private async deltaFor(id: string): Promise<ContainerDelta | undefined> {
    const { host, watcher, watchAll } = this.options;
    const container = await host.inspectContainer(id);
    // Without WATCHALL only running containers are in the inventory: a stopped one leaves it.
    if (!container || (!watchAll && container.state !== 'running'))
      return { type: 'container.removed', watcher, containerId: id };
    if (!fitsContainer(container)) {
      this.options.logger.warn(`watcher ${watcher}: container ${id} does not fit the edge protocol's limits; not sent`);
      return undefined;
    }
    const image = await host.inspectImage(container.imageId);
    return image && fitsImage(image)
      ? { type: 'container.changed', watcher, container, image }
      : { type: 'container.changed', watcher, container };
  }
}
