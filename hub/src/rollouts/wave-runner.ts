import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { EventBus, Subscription } from '../events/event-bus';
import type { ScheduledJob, Scheduler } from '../schedule/scheduler';
import { createRolloutAdvance } from './rollout-advance';
import type { RolloutStore } from './rollout-store';
import type { OperationOf } from './wave-outcome';
import { underWay } from './wave-outcome';
import { createWaveRequests, type WaveRequestsDeps } from './wave-requests';

/** The one scheduler job that carries every rollout on (docs/workers.md "Schedules"). */
export const ROLLOUT_WAVES_JOB = 'rollouts.waves';
/** A wave under way is looked at again this often besides when its operations end (an event missed). */
const DEFAULT_RECHECK_MS = 30_000;
const SETTLED_EVENTS = new Set(['dd:update-applied', 'dd:update-failed']);

export interface WaveRunnerDeps extends Omit<WaveRequestsDeps, 'stopping'> {
  store: RolloutStore;
  logger: Logger;
  now: () => number;
  schedule: Pick<Scheduler, 'job'>;
  events: Pick<EventBus, 'subscribe'>;
  operationOf: OperationOf;
  recheckMs?: number | undefined;
}

export interface WaveRunner {
  /** Defines the job and runs it for the rollouts under way (once the update service has started). */
  start(): void;
  /** A rollout has something to do now (started, resumed). */
  wake(): void;
  /** Releases the job, its stored next run kept for the next start, and waits for a run under way. */
  stop(): Promise<void>;
}

/**
 * The waves and pauses of staged rollouts as one job of the scheduler (docs/architecture.md
 * "Schedules"), never a timer of their own: each run carries every rollout under way on from its
 * stored record (rollout-advance), then sets the job's next run at the earliest pause's end, or a
 * recheck while operations run; the end of one of their operations wakes it at once. So a restarted
 * hub, or a Durable Object re-created by its alarm, continues each rollout where its record says.
 */
export function createWaveRunner(deps: WaveRunnerDeps): WaveRunner {
  const { store, now } = deps;
  const logger = deps.logger.child('rollouts');
  const recheckMs = deps.recheckMs ?? DEFAULT_RECHECK_MS;
  let job: ScheduledJob | undefined;
  let run: Promise<void> | undefined;
  /** Woken while a run was under way: it looks again before it ends. */
  let again = false;
  let stopped = false;
  let settles: Subscription | undefined;
  const stopping = () => stopped;
  const advance = createRolloutAdvance({
    ...{ store, logger, now, recheckMs, stopping },
    operationOf: deps.operationOf,
    request: createWaveRequests({ ...deps, stopping }),
    // Listening before the request: an update refused on its way may end before the request answers.
    beforeRequest: () => listen(),
  });

  async function runJob(): Promise<void> {
    const own = job;
    let next: number | undefined;
    do {
      again = false;
      next = undefined;
      for (const rollout of store.list()) {
        if (!underWay(rollout)) continue;
        let at: number | undefined;
        try {
          at = await advance(rollout.id);
        } catch (error) {
          logger.error('a rollout could not go on', { rollout: rollout.id, error: errorMessage(error) });
          at = now() + recheckMs;
        }
        if (at !== undefined && (next === undefined || at < next)) next = at;
      }
    } while (again && !stopped);
    // Cut short by a stop: the next start runs it again at once (it would anyway, from the records).
    own?.runAt(stopped ? now() : next);
    if (!stopped) followSettles();
  }

  /** The end of an operation of a rollout wakes the job. */
  function listen(): void {
    if (settles || stopped) return;
    settles = deps.events.subscribe((event) => {
      const batchId = (event.data as { batchId?: unknown }).batchId;
      if (SETTLED_EVENTS.has(event.type) && typeof batchId === 'string' && store.get(batchId)) wake();
    });
  }

  /** Listens only while a wave is under way: the bus counts its listeners as the UI's streams. */
  function followSettles(): void {
    if (store.list().some((rollout) => rollout.hosts.some((host) => host.state === 'updating'))) listen();
    else {
      settles?.unsubscribe();
      settles = undefined;
    }
  }

  function wake(): void {
    if (!job || stopped) return;
    if (run) again = true;
    else job.runAt(now());
  }

  return {
    start() {
      stopped = false;
      job = deps.schedule.job(ROLLOUT_WAVES_JOB, () => {
        run = runJob().finally(() => {
          run = undefined;
        });
        return run;
      });
      // Whatever run was stored, the records say best what is due: they are looked at once now.
      if (store.list().some(underWay)) job.runAt(now());
      followSettles();
    },
    wake,
    async stop() {
      stopped = true;
      settles?.unsubscribe();
      settles = undefined;
      job?.release();
      job = undefined;
      await run;
    },
  };
}
