/**
 * Runs the edge sessions' frame work in slices of at most `budgetMs`, one slice per turn of the
 * event loop, in arrival order.
 *
 * Why: a socket's data callback runs in the loop's poll phase, which handles every socket that is
 * ready before timers get their turn. When thousands of agents dial at once, hundreds of them are
 * ready together, and handling each one's hello or snapshot there held the loop for seconds at a
 * time (a 5 s window's delay p99 over a second at 2,000 agents; bench/support/edge-fleet-progress.ts
 * reports it). Frames queued here are handled a slice at a time, and the loop turns in between:
 * timers, heartbeats and HTTP requests are not kept waiting behind the whole burst.
 */
export interface FramePacerOptions {
  /** How long one slice may run before the rest waits for the next turn. */
  budgetMs: number;
  now: () => number;
  /** Runs `work` on the loop's next turn, after pending I/O (Node: setImmediate). */
  nextTurn: (work: () => void) => void;
}

export class FramePacer {
  private queue: (() => void)[] = [];
  private head = 0;
  private scheduled = false;

  constructor(private readonly options: FramePacerOptions) {}

  /** Work waiting for a slice. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Queues `work` behind everything queued before it. */
  run(work: () => void): void {
    this.queue.push(work);
    if (this.scheduled) return;
    this.scheduled = true;
    this.options.nextTurn(() => this.slice());
  }

  private slice(): void {
    const { budgetMs, now, nextTurn } = this.options;
    const started = now();
    // At least one task a slice, however long it takes: the queue always moves.
    do {
      const work = this.queue[this.head] as () => void;
      this.queue[this.head++] = noop;
      try {
        work();
      } catch {
        // The sessions catch their own faults; whatever escapes must not stop everyone's frames.
      }
    } while (this.head < this.queue.length && now() - started < budgetMs);
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      this.scheduled = false;
      return;
    }
    // Drop what ran once it is half the array, so a long burst does not keep growing it.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    nextTurn(() => this.slice());
  }
}

const noop = () => undefined;
