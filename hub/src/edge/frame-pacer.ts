/**
 * Runs the edge sessions' frame work in slices of at most `budgetMs`, one slice per turn of the
 * event loop, in arrival order within each lane (FrameLane: sign-ins first).
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

/**
 * Which queue a frame waits in. Sign-ins go before signed-in agents' frames: a hello waiting here
 * is excused from the hub's deadline (EdgeSession.tick) but not from the agent's own, 15 s from its
 * dial. With the other order (meant to hold fewer snapshots at once), the last hellos of 10,000
 * agents dialling together waited behind most of the fleet's snapshots, and in two runs of six on a
 * slow disk about 300 agents gave up (issue 30 item 3); hellos first, none did in five, at a peak
 * no higher (docs/benchmarks.md). A snapshot has no deadline, and a session whose frames wait stops
 * reading its socket (EdgeSession), so the rest stays in the kernel's buffers.
 */
export type FrameLane = 'signed-in' | 'sign-in';

export class FramePacer {
  private readonly lanes: Record<FrameLane, WorkQueue> = { 'signed-in': new WorkQueue(), 'sign-in': new WorkQueue() };
  private scheduled = false;

  constructor(private readonly options: FramePacerOptions) {}

  /** Work waiting for a slice. */
  get pending(): number {
    return this.lanes['signed-in'].size + this.lanes['sign-in'].size;
  }

  /** Queues `work` behind everything queued before it in its lane. */
  run(work: () => void, lane: FrameLane = 'signed-in'): void {
    this.lanes[lane].push(work);
    if (this.scheduled) return;
    this.scheduled = true;
    this.options.nextTurn(() => this.slice());
  }

  private next(): (() => void) | undefined {
    return this.lanes['sign-in'].shift() ?? this.lanes['signed-in'].shift();
  }

  private slice(): void {
    const { budgetMs, now, nextTurn } = this.options;
    const started = now();
    // At least one task a slice, however long it takes: the queues always move.
    for (let work = this.next(); work; work = now() - started < budgetMs ? this.next() : undefined) {
      try {
        work();
      } catch {
        // The sessions catch their own faults; whatever escapes must not stop everyone's frames.
      }
    }
    if (this.pending === 0) {
      this.scheduled = false;
      return;
    }
    nextTurn(() => this.slice());
  }
}

/** A FIFO whose shift is O(1): what ran is dropped once it is half the array. */
class WorkQueue {
  private items: (() => void)[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(work: () => void): void {
    this.items.push(work);
  }

  shift(): (() => void) | undefined {
    if (this.head === this.items.length) return undefined;
    const work = this.items[this.head] as () => void;
    this.items[this.head++] = noop;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return work;
  }
}

const noop = () => undefined;
