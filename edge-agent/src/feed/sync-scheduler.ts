import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { type Backoff, createBackoff } from '../link/backoff';
import type { Timers } from '../link/timers';
import type { WatcherRuntime } from './watcher-runtime';

export interface SyncSchedulerOptions {
  watchers: readonly WatcherRuntime[];
  /** Sends one watcher's full snapshot; throws when it could not. */
  sync(watcher: WatcherRuntime): Promise<void>;
  timers: Timers;
  logger: Logger;
  /** A failed snapshot (Docker unreachable) is retried with this backoff. */
  retry: { minMs: number; maxMs: number };
}

/**
 * The full resyncs of one session: asked for at the welcome, after an overflow of the send queue
 * and after a gap in a Docker event stream. Requests are coalesced (a watcher asked for twice while
 * waiting is synced once), watchers are synced one after the other, and a failed one is retried
 * with backoff for as long as the session lives.
 */
export class SyncScheduler {
  private readonly pending = new Set<string>();
  private readonly retries = new Map<string, { backoff: Backoff; timer: unknown }>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: SyncSchedulerOptions) {}

  /** Every watcher when no names are given. */
  request(names?: Iterable<string>): void {
    if (this.stopped) return;
    for (const name of names ?? this.options.watchers.map((w) => w.name)) this.pending.add(name);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when nothing is waiting or running (for tests and the agent's shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    for (const retry of this.retries.values()) this.options.timers.clearTimeout(retry.timer);
    this.retries.clear();
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.pending.size > 0) {
      const [name] = this.pending;
      this.pending.delete(name as string);
      const watcher = this.options.watchers.find((w) => w.name === name);
      if (watcher) await this.syncOne(watcher);
    }
  }

  private async syncOne(watcher: WatcherRuntime): Promise<void> {
    const retry = this.retries.get(watcher.name);
    if (retry) this.options.timers.clearTimeout(retry.timer);
    try {
      await this.options.sync(watcher);
      this.retries.delete(watcher.name);
    } catch (error) {
      if (this.stopped) return;
      const backoff =
        retry?.backoff ?? createBackoff({ ...this.options.retry, resetAfterMs: Number.POSITIVE_INFINITY });
      const delayMs = backoff.next();
      this.options.logger.warn(
        `watcher ${watcher.name}: full sync failed (${errorMessage(error)}); retrying in ${delayMs} ms`,
      );
      const timer = this.options.timers.setTimeout(() => this.request([watcher.name]), delayMs);
      this.retries.set(watcher.name, { backoff, timer });
    }
  }
}
