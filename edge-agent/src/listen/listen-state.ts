import type { AgentContainer, AgentEvent } from '../../../shared/agent-api/listen-schemas';
import type { UpdateOperation } from '../../../shared/update-engine';
import { sameContainer } from './agent-container';

/** One change of the state, as GET /api/events sends it (`id: revision`, `data: event`). */
export interface StateChange {
  revision: number;
  event: AgentEvent;
}

export type StateListener = (change: StateChange) => void;

/**
 * The listen-mode agent's inventory: per watcher, the container objects it serves. Every change
 * bumps the revision and is told to the listeners (the event streams) in order. A change made for
 * an inventory refresh carries its operationId and becomes a dd:inventory-* event (http-interface §6.2);
 * every other change a dd:container-* event.
 */
export class ListenState {
  private current = 0;
  private readonly watchers = new Map<string, Map<string, AgentContainer>>();
  private readonly listeners = new Set<StateListener>();

  constructor(watcherNames: readonly string[]) {
    for (const name of watcherNames) this.watchers.set(name, new Map());
  }

  get revision(): number {
    return this.current;
  }

  /** Every container of every watcher, in watcher order, then by name. */
  all(): AgentContainer[] {
    return [...this.watchers.keys()].flatMap((name) => this.ofWatcher(name));
  }

  ofWatcher(watcher: string): AgentContainer[] {
    return [...(this.watchers.get(watcher)?.values() ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(watcher: string, id: string): AgentContainer | undefined {
    return this.watchers.get(watcher)?.get(id);
  }

  /** The container with this id in any watcher (the first one, should two watchers share an Engine). */
  find(id: string): AgentContainer | undefined {
    for (const containers of this.watchers.values()) {
      const found = containers.get(id);
      if (found) return found;
    }
    return undefined;
  }

  subscribe(listener: StateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Added or changed; nothing is told when the object says what the stored one says. */
  upsert(container: AgentContainer, operationId?: string): void {
    const containers = this.watchers.get(container.watcher);
    if (!containers) return;
    const previous = containers.get(container.id);
    if (previous && sameContainer(previous, container)) return;
    containers.set(container.id, container);
    const added = previous === undefined;
    if (operationId === undefined)
      this.tell({ type: added ? 'dd:container-added' : 'dd:container-updated', data: container });
    else
      this.tell({
        type: added ? 'dd:inventory-added' : 'dd:inventory-updated',
        data: { operationId, watcher: container.watcher, container },
      });
  }

  /** False when the watcher did not hold it. */
  remove(watcher: string, id: string, operationId?: string): boolean {
    const containers = this.watchers.get(watcher);
    if (!containers?.delete(id)) return false;
    if (operationId === undefined) this.tell({ type: 'dd:container-removed', data: { id, watcher } });
    else this.tell({ type: 'dd:inventory-removed', data: { operationId, watcher, id } });
    return true;
  }

  /**
   * A complete observation of the watcher: what it lacks is removed, the rest added or updated.
   * Returns the ids removed.
   */
  replace(watcher: string, containers: readonly AgentContainer[], operationId?: string): string[] {
    const stored = this.watchers.get(watcher);
    if (!stored) return [];
    const seen = new Set(containers.map((container) => container.id));
    const removed = [...stored.keys()].filter((id) => !seen.has(id));
    for (const id of removed) this.remove(watcher, id, operationId);
    for (const container of containers) this.upsert(container, operationId);
    return removed;
  }

  /**
   * A journal write of an update this agent runs: a dd:operation event with a revision of its own,
   * so the hub hears every phase on the stream, as an edge agent's `operation` frames carry them.
   */
  operationChanged(operation: UpdateOperation): void {
    this.tell({ type: 'dd:operation', data: operation });
  }

  private tell(event: AgentEvent): void {
    this.current += 1;
    const change = { revision: this.current, event };
    for (const listener of this.listeners) listener(change);
  }
}
