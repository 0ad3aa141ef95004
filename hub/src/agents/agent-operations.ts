import { isTerminal, type UpdateOperation } from '../../../shared/update-engine';

type Listener = (operation: UpdateOperation) => void;

/** Reports kept per watcher, so one that arrives before anyone watches (a reconnect's report) is not lost. */
const MAX_KEPT = 200;

/**
 * The `operation` frames of one agent watcher (docs/edge-protocol.md "Updates"): the latest state
 * of every update it runs, handed to whoever watches that operation, now or later. It outlives
 * sessions, as the operations on the agent do.
 */
export class AgentOperations {
  private readonly latest = new Map<string, UpdateOperation>();
  private readonly listeners = new Map<string, Set<Listener>>();

  apply(operation: UpdateOperation): void {
    const known = this.latest.get(operation.id);
    // A report older than what arrived already (a reconnect's replay) changes nothing.
    if (known && (isTerminal(known) || known.updatedAt > operation.updatedAt)) return;
    this.latest.delete(operation.id);
    this.latest.set(operation.id, operation);
    if (this.latest.size > MAX_KEPT) {
      const oldest = this.latest.keys().next().value;
      if (oldest !== undefined) this.latest.delete(oldest);
    }
    for (const listener of this.listeners.get(operation.id) ?? []) listener(operation);
  }

  get(id: string): UpdateOperation | undefined {
    return this.latest.get(id);
  }

  /** Tells `listener` each change of the operation, starting with the one known now; close() stops it. */
  watch(id: string, listener: Listener): { close(): void } {
    let set = this.listeners.get(id);
    if (!set) {
      set = new Set();
      this.listeners.set(id, set);
    }
    set.add(listener);
    const known = this.latest.get(id);
    if (known) listener(known);
    return {
      close: () => {
        set.delete(listener);
        if (set.size === 0) this.listeners.delete(id);
      },
    };
  }

  /** Resolves with the operation once the agent reports it settled; `signal` gives up waiting (resolves undefined). */
  settled(id: string, signal: AbortSignal): Promise<UpdateOperation | undefined> {
    return new Promise((resolve) => {
      let watching: { close(): void } | undefined;
      const done = (operation: UpdateOperation | undefined) => {
        signal.removeEventListener('abort', give);
        watching?.close();
        resolve(operation);
      };
      const give = () => done(undefined);
      if (signal.aborted) return resolve(undefined);
      signal.addEventListener('abort', give, { once: true });
      let early: UpdateOperation | undefined;
      watching = this.watch(id, (operation) => {
        if (!isTerminal(operation)) return;
        if (watching) done(operation);
        else early = operation;
      });
      if (early) done(early);
    });
  }
}
