import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { LOCAL_AGENT } from '../../../shared/update/update-clock';

/** Checks containers that all belong to one watcher, in one observation. */
export type CheckGroup = (containers: readonly Container[]) => Promise<void>;

export interface CheckDispatcher {
  /**
   * Checks the containers now, in the background, one observation per watcher. A watcher whose
   * check is already running gets them in its one follow-up instead (`queued`), so a push landing
   * mid-check is still seen, and a burst of events costs at most two checks per watcher.
   */
  dispatch(containers: readonly Container[]): { started: number; queued: number };
  /** Resolves once no check is running or queued (tests, benchmarks). */
  settled(): Promise<void>;
}

interface Slot {
  running: Promise<void>;
  next: Map<string, Container>;
}

const watcherKey = (container: Container) => `${container.agent ?? LOCAL_AGENT}/${container.watcher}`;

/** Per-watcher single flight for the checks a registry webhook starts. */
export function createCheckDispatcher(check: CheckGroup, logger: Logger): CheckDispatcher {
  const slots = new Map<string, Slot>();

  const start = (key: string, containers: readonly Container[]): void => {
    const slot: Slot = { running: Promise.resolve(), next: new Map() };
    slot.running = check(containers)
      .catch((error: unknown) =>
        logger.warn('a webhook-triggered check failed', {
          watcher: key,
          containers: containers.length,
          error: String(error),
        }),
      )
      .then(() => {
        slots.delete(key);
        if (slot.next.size > 0) start(key, [...slot.next.values()]);
      });
    slots.set(key, slot);
  };

  return {
    dispatch(containers) {
      const groups = new Map<string, Container[]>();
      for (const container of containers) {
        const key = watcherKey(container);
        const group = groups.get(key);
        if (group) group.push(container);
        else groups.set(key, [container]);
      }
      let started = 0;
      let queued = 0;
      for (const [key, group] of groups) {
        const slot = slots.get(key);
        if (slot) {
          for (const container of group) slot.next.set(container.id, container);
          queued += group.length;
        } else {
          start(key, group);
          started += group.length;
        }
      }
      return { started, queued };
    },
    async settled() {
      while (slots.size > 0) await Promise.all([...slots.values()].map((slot) => slot.running));
    },
  };
}
