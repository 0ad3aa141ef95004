/** One queued update: what it locks, and the work itself (which settles its own operation and never throws). */
export interface ScheduledJob {
  id: string;
  /** One operation at a time per container (its identity, which outlives its id). */
  lockKey: string;
  /** One operation at a time per compose project; undefined when the container belongs to none. */
  groupKey?: string | undefined;
  run(signal: AbortSignal): Promise<void>;
}

/** queuePosition 0 is running; waiting jobs count from 1 in the order they will be considered. */
export interface QueuePosition {
  queuePosition: number;
  queueTotal: number;
}

export interface UpdateSchedulerOptions {
  /** Operations running at once across every container (pulls and starts are the heavy part). */
  maxConcurrent: number;
  /** Told whenever a position may have moved: a job was queued, started, finished or cancelled. */
  onChange?: (() => void) | undefined;
  onJobError?: ((id: string, error: unknown) => void) | undefined;
}

/** How long a shutdown lets running jobs go on: unsignalled, then signalled to roll back. */
export interface ShutdownLimits {
  graceMs: number;
  signalledMs: number;
}

interface Running {
  job: ScheduledJob;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The update queue: first come, first served, except that a job whose container or compose
 * project is busy is passed over (not waited on) until that one ends, so one slow project never
 * holds up the rest of the fleet.
 */
export class UpdateScheduler {
  private readonly waiting: ScheduledJob[] = [];
  private readonly running = new Map<string, Running>();
  private stopped = false;

  constructor(private readonly options: UpdateSchedulerOptions) {}

  enqueue(job: ScheduledJob): void {
    if (this.stopped) throw new Error('the update queue is stopped');
    this.waiting.push(job);
    this.pump();
    this.options.onChange?.();
  }

  /** Whether an operation of this container is queued or running. */
  isLocked(lockKey: string): boolean {
    return (
      this.waiting.some((job) => job.lockKey === lockKey) ||
      [...this.running.values()].some((r) => r.job.lockKey === lockKey)
    );
  }

  has(id: string): boolean {
    return this.running.has(id) || this.waiting.some((job) => job.id === id);
  }

  /** Jobs running and waiting. */
  total(): number {
    return this.running.size + this.waiting.length;
  }

  position(id: string): QueuePosition | undefined {
    const queueTotal = this.total();
    if (this.running.has(id)) return { queuePosition: 0, queueTotal };
    const index = this.waiting.findIndex((job) => job.id === id);
    return index === -1 ? undefined : { queuePosition: index + 1, queueTotal };
  }

  /**
   * A waiting job leaves the queue (`dequeued`: it never ran); a running one is signalled and ends
   * at its next phase boundary (`signalled`).
   */
  cancel(id: string, reason: string): 'dequeued' | 'signalled' | 'unknown' {
    const index = this.waiting.findIndex((job) => job.id === id);
    if (index !== -1) {
      this.waiting.splice(index, 1);
      this.options.onChange?.();
      return 'dequeued';
    }
    const running = this.running.get(id);
    if (!running) return 'unknown';
    running.controller.abort(reason);
    return 'signalled';
  }

  /** Stops taking jobs, signals the running ones, and answers the ids of those that never started. */
  async stop(reason: string): Promise<string[]> {
    this.stopped = true;
    const dropped = this.waiting.splice(0).map((job) => job.id);
    for (const running of this.running.values()) running.controller.abort(reason);
    await Promise.all([...this.running.values()].map((running) => running.done));
    return dropped;
  }

  /**
   * The shutdown of the process running the queue (docs/updates.md "Stopping"): stops taking jobs,
   * gives the running ones `graceMs` to end on their own, then signals those left (they roll back
   * at their next phase boundary) and waits `signalledMs` more. Answers the jobs that never started
   * and those still running at the end: their journal holds the phase they reached, for recovery.
   */
  async shutDown(reason: string, limits: ShutdownLimits): Promise<{ dropped: string[]; unfinished: string[] }> {
    this.stopped = true;
    const dropped = this.waiting.splice(0).map((job) => job.id);
    await this.runningEnd(limits.graceMs);
    for (const running of this.running.values()) running.controller.abort(reason);
    await this.runningEnd(limits.signalledMs);
    return { dropped, unfinished: [...this.running.keys()] };
  }

  /** Resolves once nothing runs or waits. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.race([...this.running.values()].map((running) => running.done));
  }

  /** Resolves once the jobs running now have ended, or after `ms`. */
  private async runningEnd(ms: number): Promise<void> {
    if (this.running.size === 0 || ms <= 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = Promise.all([...this.running.values()].map((running) => running.done));
    // setTimeout takes Infinity as 1 ms: an unbounded wait must not race a timer at all.
    if (!Number.isFinite(ms)) {
      await ended;
      return;
    }
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  private pump(): void {
    for (let index = 0; index < this.waiting.length && this.running.size < this.options.maxConcurrent; ) {
      const job = this.waiting[index] as ScheduledJob;
      if (this.blocked(job)) {
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      this.start(job);
    }
  }

  private blocked(job: ScheduledJob): boolean {
    for (const { job: other } of this.running.values()) {
      if (other.lockKey === job.lockKey) return true;
      if (job.groupKey !== undefined && other.groupKey === job.groupKey) return true;
    }
    return false;
  }

  private start(job: ScheduledJob): void {
    const controller = new AbortController();
    const done = (async () => {
      try {
        await job.run(controller.signal);
      } catch (error) {
        this.options.onJobError?.(job.id, error);
      }
    })().finally(() => {
      this.running.delete(job.id);
      if (!this.stopped) this.pump();
      this.options.onChange?.();
    });
    this.running.set(job.id, { job, controller, done });
  }
}
