import type { SwarmEngine, SwarmService, SwarmTask } from '../../../shared/docker/swarm-engine';
import { delay } from '../../../shared/update-engine';

/** How a service's update (or rollback) ended, as its UpdateStatus says. */
export type ServiceUpdateOutcome =
  | { state: 'completed' }
  /** The manager rolled the update back itself (FailureAction `rollback`). */
  | { state: 'rolled-back'; message: string }
  /** Paused by its failure action, timed out, or the service is gone. */
  | { state: 'failed'; message: string };

export interface FollowOptions {
  /** The UpdateStatus.StartedAt of the service before the request: an older status is not this update's. */
  startedBefore: string | undefined;
  /** `update` ends at `completed`; `rollback` (rollback=previous) ends at `rollback_completed`. */
  wanted: 'update' | 'rollback';
  /** The whole wait, in milliseconds. */
  timeoutMs: number;
  pollMs: number;
  now: () => number;
  /** Told of each new UpdateStatus.State (the operation journals `rollback_started` as its phase). */
  onState?: (state: string) => Promise<void>;
  /** Ends the wait early: the abort reason is thrown. */
  signal?: AbortSignal | undefined;
}

/**
 * Follows a service's UpdateStatus (docs/sources.md "Swarm services") from the ServiceUpdate just
 * sent until it settles: `completed`, or `paused` / `rollback_*` as its UpdateConfig's failure action
 * decides. A status is this request's once its StartedAt differs from the one before the request.
 */
export async function followServiceUpdate(
  engine: SwarmEngine,
  serviceId: string,
  options: FollowOptions,
): Promise<ServiceUpdateOutcome> {
  const deadline = options.now() + options.timeoutMs;
  let seen: string | undefined;
  let startedWhy: string | undefined;
  for (;;) {
    const service = await engine.inspectService(serviceId);
    if (!service) return { state: 'failed', message: 'the service was removed during its update' };
    const status = service.UpdateStatus;
    const fresh = status?.StartedAt !== undefined && status.StartedAt !== options.startedBefore;
    const state = fresh ? (status?.State ?? '') : '';
    if (state !== '' && state !== seen) {
      seen = state;
      // Why the manager began to roll back; at rollback_completed the message only says that it did.
      if (state === 'rollback_started') startedWhy = status?.Message;
      await options.onState?.(state);
    }
    const outcome = settledOutcome(state, options.wanted, status?.Message ?? '', startedWhy);
    if (outcome) return outcome.state === 'completed' ? outcome : withTaskError(engine, service, outcome);
    if (options.now() >= deadline) {
      const where = state === '' ? 'the manager had not started it' : `it was still ${state}`;
      return withTaskError(engine, service, {
        state: 'failed',
        message: `the ${options.wanted} did not settle within ${Math.round(options.timeoutMs / 1000)} s (${where})`,
      });
    }
    await delay(options.pollMs, options.signal);
  }
}

function settledOutcome(
  state: string,
  wanted: FollowOptions['wanted'],
  message: string,
  startedWhy: string | undefined,
): ServiceUpdateOutcome | undefined {
  const why = message || `the update ended ${state}`;
  switch (state) {
    case 'completed':
      return wanted === 'update' ? { state: 'completed' } : undefined;
    case 'rollback_completed':
      // `rollback completed` says nothing of why: the message of rollback_started does.
      return wanted === 'rollback'
        ? { state: 'completed' }
        : { state: 'rolled-back', message: startedWhy ?? 'the manager rolled the update back (its failure action)' };
    case 'paused':
    case 'rollback_paused':
      return { state: 'failed', message: why };
    default:
      return undefined;
  }
}

const FAILED_TASK_STATES = ['failed', 'rejected'];

/** The last task error of the service (`task: non-zero exit (3)`, `No such image`), which says more than "paused". */
async function withTaskError(
  engine: SwarmEngine,
  service: SwarmService,
  outcome: Exclude<ServiceUpdateOutcome, { state: 'completed' }>,
): Promise<ServiceUpdateOutcome> {
  const tasks = await engine.listTasks(service.ID).catch((): SwarmTask[] => []);
  const failed = tasks
    .filter((task) => task.Status?.Err && FAILED_TASK_STATES.includes(task.Status.State ?? ''))
    .sort((a, b) => (b.Status?.Timestamp ?? '').localeCompare(a.Status?.Timestamp ?? ''))[0];
  if (!failed?.Status?.Err) return outcome;
  return { ...outcome, message: `${outcome.message}; task ${failed.ID.slice(0, 12)}: ${failed.Status.Err}` };
}

/** The images the service's running tasks run, for the record of a settled update. */
export async function runningTaskImages(engine: SwarmEngine, serviceId: string): Promise<string[]> {
  const tasks = await engine.listTasks(serviceId);
  return tasks
    .filter((task) => task.DesiredState === 'running' && task.Status?.State === 'running')
    .map((task) => task.Spec?.ContainerSpec?.Image ?? '');
}
