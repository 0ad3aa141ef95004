import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { AppliedChange } from '../notifications/inventory-events';
import type { ScheduledJob, Scheduler } from '../schedule/scheduler';
import type { ContainerStore } from '../store/container-store';
import type { DockerWatcher } from './docker-watcher';
import type { Fleet } from './fleet';

export interface MaturityLiftsDeps {
  containers: Pick<ContainerStore, 'all' | 'get'>;
  fleet: Pick<Fleet, 'ownerOf'>;
  schedule: Pick<Scheduler, 'job'>;
  logger: Logger;
  now: () => number;
}

export interface MaturityLifts {
  /** Defines the job and arms it at the earliest gate of the stored records (after they are loaded). */
  start(): void;
  stop(): void;
  /** Told every applied observation: a gate that appeared, moved or lifted moves the wake. */
  inventoryApplied(changes: readonly AppliedChange[]): void;
}

export const MATURITY_LIFT_JOB = 'maturity.lift';

const liftableAtOf = (container: Container | undefined): number | undefined => {
  const at = container?.blockers?.find((blocker) => blocker.reason === 'maturity-not-reached')?.liftableAt;
  return at === undefined ? undefined : Date.parse(at);
};

/**
 * A `maturity-cleared` at the moment a maturity gate lifts (http-interface §3.3), not at the next
 * watch cycle, which may be a day away: one job, woken at the earliest `liftableAt` of the held
 * updates, checks those containers again through their watchers. That check is the one that
 * notices the lift, so the event, the audit entry and the cleared blocker come from the ordinary
 * path, on both runtimes. A container whose check fails, or whose gate moved, waits for its
 * watcher's next cycle.
 */
export function createMaturityLifts(deps: MaturityLiftsDeps): MaturityLifts {
  let job: ScheduledJob | undefined;

  /** The earliest lift still ahead (a gate already past is left to its check or its watcher's cycle). */
  function rearm(): void {
    const now = deps.now();
    let earliest: number | undefined;
    for (const container of deps.containers.all()) {
      const at = liftableAtOf(container);
      if (at !== undefined && at > now && (earliest === undefined || at < earliest)) earliest = at;
    }
    job?.runAt(earliest);
  }

  async function liftDue(): Promise<void> {
    const now = deps.now();
    const byWatcher = new Map<DockerWatcher, string[]>();
    for (const container of deps.containers.all()) {
      const at = liftableAtOf(container);
      const watcher = at !== undefined && at <= now ? deps.fleet.ownerOf(container) : undefined;
      if (watcher) byWatcher.set(watcher, [...(byWatcher.get(watcher) ?? []), container.id]);
    }
    await Promise.all(
      [...byWatcher].map(([watcher, ids]) =>
        watcher.watchContainers(ids).catch((error: unknown) =>
          deps.logger.warn('could not check containers whose maturity gate lifted', {
            watcher: watcher.id,
            agent: watcher.agent,
            error: String(error),
          }),
        ),
      ),
    );
    rearm();
  }

  return {
    start() {
      job = deps.schedule.job(MATURITY_LIFT_JOB, liftDue);
      rearm();
    },
    stop() {
      job?.release();
      job = undefined;
    },
    inventoryApplied(changes) {
      if (!job) return;
      const moved = changes.some(({ previous, next }) => liftableAtOf(previous) !== liftableAtOf(next));
      if (moved) rearm();
    },
  };
}
