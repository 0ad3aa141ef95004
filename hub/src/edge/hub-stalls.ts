/**
 * How long the hub's own event loop was held up, measured by a ticker that fires late. A frame that
 * arrives while the loop is busy sits unread in its socket until the loop next polls, after the
 * timers: judged by the time alone, the agent looks silent. Counted against agents, a 10,000-agent
 * sign-in burst closed 3,235 live sessions with 4006 "heartbeat missed" (docs/benchmarks.md
 * "Edge agents: 3,000 and 10,000 agents"). Sessions subtract the stalls since their last frame.
 */
export class HubStalls {
  private total = 0;
  private lastTickAt: number | undefined;

  /**
   * @param intervalMs the ticker's period
   * @param toleranceMs lateness that is ordinary timer jitter, not a stall
   */
  constructor(
    private readonly intervalMs: number,
    private readonly toleranceMs = 250,
  ) {}

  /** The ticker fired; `now` from a monotonic clock (performance.now()), not the hub's wall clock. */
  tick(now: number): void {
    if (this.lastTickAt !== undefined) {
      const late = now - this.lastTickAt - this.intervalMs;
      if (late > this.toleranceMs) this.total += late;
    }
    this.lastTickAt = now;
  }

  /** Milliseconds stalled since the hub started: a session keeps the value at its last frame. */
  get stalledMs(): number {
    return this.total;
  }
}
