import type { Container } from '../../../shared/schemas/container';
import type { DockerWatcher } from './docker-watcher';

/**
 * Every Docker watcher of the hub, its own and its agents' (edge and listen mode), in one place.
 * The hub's watchers join at start; an agent's join and leave as the agent announces them. Any
 * question of the form "which watcher reaches this container" is answered here and nowhere else.
 */
export interface Fleet {
  /** Every watcher, in the order it joined. */
  all(): readonly DockerWatcher[];
  /** The watcher called `name` of that agent, or of the hub itself when `agent` is undefined. */
  find(name: string, agent: string | undefined): DockerWatcher | undefined;
  /** The watcher whose Docker host holds the container. */
  ownerOf(container: Pick<Container, 'agent' | 'watcher'>): DockerWatcher | undefined;
  add(watcher: DockerWatcher): void;
  /** Removes that very watcher; a newer one of the same name stays. */
  remove(watcher: DockerWatcher): void;
}

// NUL cannot appear in watcher or agent names, so the key is unambiguous.
const keyOf = (name: string, agent: string | undefined) => `${agent ?? ''}\0${name}`;

export function createFleet(): Fleet {
  const byKey = new Map<string, DockerWatcher>();
  let ordered: DockerWatcher[] | undefined;
  const find = (name: string, agent: string | undefined) => byKey.get(keyOf(name, agent));
  return {
    all: () => {
      // Cached: routes and cycles list the fleet far more often than it changes.
      ordered ??= [...byKey.values()];
      return ordered;
    },
    find,
    ownerOf: (container) => find(container.watcher, container.agent),
    add(watcher) {
      byKey.set(keyOf(watcher.name, watcher.agent), watcher);
      ordered = undefined;
    },
    remove(watcher) {
      const key = keyOf(watcher.name, watcher.agent);
      if (byKey.get(key) !== watcher) return;
      byKey.delete(key);
      ordered = undefined;
    },
  };
}
