import type { RegistryPullAuth } from '../../../shared/docker/docker-host';
import type { SwarmEngine, SwarmService } from '../../../shared/docker/swarm-engine';
import { errorMessage } from '../../../shared/error-message';
import type { UpdateJournal, UpdateOperation } from '../../../shared/update-engine';
import { cancelReason } from '../../../shared/update-engine/update-step-error';
import { followServiceUpdate, type ServiceUpdateOutcome } from './follow-service-update';
import { settleTimeoutMs, specImage, specWithImage } from './service-spec';

export interface SwarmUpdatePlan {
  auth: RegistryPullAuth | undefined;
  /** The action trigger's health timeout, per batch of tasks (service-spec.ts settleTimeoutMs). */
  healthTimeoutMs: number;
}

export interface SwarmUpdateDeps {
  engine: SwarmEngine;
  journal: UpdateJournal;
  now: () => number;
  /** How often the service is inspected while its update runs. */
  pollMs: number;
  /**
   * Whether an abort is a user's cancel (the service is rolled back) rather than the hub stopping
   * (the manager goes on alone: the operation is left in progress for the next start's recovery).
   * Absent: every abort is a cancel.
   */
  cancelledByUser?: () => boolean;
}

const BUSY_STATES = ['updating', 'rollback_started'];

/** What a preview announces for a service: its manager replaces the tasks between new-started and succeeded. */
export const SWARM_UPDATE_PHASES = ['prepare', 'new-started', 'health-gate', 'succeeded'] as const;

/**
 * An update operation on a Swarm service (docs/sources.md "Swarm services"): ServiceUpdate with the
 * new image and the rest of the spec as it was, so that the service's UpdateConfig (parallelism,
 * delay, failure action, monitor) applies; followed through UpdateStatus to `completed`. A paused or
 * timed-out update, or a cancel, is rolled back with `rollback=previous`; one that the manager rolled
 * back itself (FailureAction `rollback`) ends rolled back. A `rollback` operation is that rollback alone.
 * Phases: prepare → new-started (ServiceUpdate accepted) → health-gate (the manager replaces tasks) →
 * succeeded; rollback-started → rolled-back | rollback-failed. Never throws; the operation settles,
 * unless the hub stops while the manager updates (deps.cancelledByUser): it is then answered in progress.
 */
export async function runSwarmUpdate(
  operation: UpdateOperation,
  plan: SwarmUpdatePlan,
  deps: SwarmUpdateDeps,
  signal: AbortSignal,
): Promise<UpdateOperation> {
  let op = operation;
  const save = async (fields: Partial<UpdateOperation>): Promise<UpdateOperation> => {
    op = { ...op, ...fields, updatedAt: new Date(deps.now()).toISOString() };
    await deps.journal.save(op);
    return op;
  };
  const fail = (phase: UpdateOperation['phase'], error: string) =>
    save({ status: 'failed', phase, lastError: error.slice(0, 1000) });

  await save({ status: 'in-progress', phase: 'prepare' });
  let service: SwarmService | undefined;
  try {
    service = await deps.engine.inspectService(op.containerId);
  } catch (error) {
    return fail('prepare', `the manager did not answer: ${errorMessage(error)}; nothing was changed`);
  }
  if (!service) return fail('prepare', 'the service is gone; nothing was changed');
  const busy = service.UpdateStatus?.State;
  if (busy && BUSY_STATES.includes(busy))
    return fail('prepare', `an update of the service is already ${busy} in the swarm; nothing was changed`);
  if (signal.aborted) return fail('prepare', `${cancelReason(signal)}; nothing was changed`);
  const tasks = (await deps.engine.listTasks(service.ID).catch(() => [])).filter(
    (task) => task.DesiredState === 'running',
  ).length;

  if (op.kind === 'rollback') {
    const rolled = await rollBackService(service, tasks, plan, deps, save);
    return rolled.state === 'completed'
      ? save({ status: 'succeeded', phase: 'succeeded' })
      : fail('rollback-failed', rolled.message);
  }

  const spec = specWithImage(service.Spec, op.targetImage);
  try {
    await deps.engine.updateService(service.ID, {
      version: service.Version?.Index ?? 0,
      spec,
      auth: plan.auth,
    });
  } catch (error) {
    return fail('prepare', `ServiceUpdate was refused: ${errorMessage(error)}; nothing was changed`);
  }
  await save({ phase: 'new-started', oldImage: specImage(service.Spec) });
  let outcome: ServiceUpdateOutcome;
  try {
    outcome = await followServiceUpdate(deps.engine, service.ID, {
      startedBefore: service.UpdateStatus?.StartedAt,
      wanted: 'update',
      timeoutMs: settleTimeoutMs(service, tasks, plan.healthTimeoutMs, service.Spec.UpdateConfig),
      pollMs: deps.pollMs,
      now: deps.now,
      signal,
      onState: async (state) => {
        if (state === 'updating') await save({ phase: 'health-gate' });
        if (state === 'rollback_started') await save({ phase: 'rollback-started' });
      },
    });
  } catch (error) {
    if (signal.aborted && deps.cancelledByUser?.() === false) return op;
    outcome = { state: 'failed', message: signal.aborted ? cancelReason(signal) : errorMessage(error) };
  }
  if (outcome.state === 'completed') return save({ status: 'succeeded', phase: 'succeeded' });
  if (outcome.state === 'rolled-back')
    return save({ status: 'rolled-back', phase: 'rolled-back', rollbackReason: outcome.message.slice(0, 1000) });
  // Paused, timed out, cancelled: the service goes back to the spec it had.
  await save({ phase: 'rollback-started', rollbackReason: outcome.message.slice(0, 1000) });
  const current = await deps.engine.inspectService(service.ID).catch(() => undefined);
  if (!current) return fail('rollback-failed', `${outcome.message}; the service is gone, nothing to roll back`);
  const rolled = await rollBackService(current, tasks, plan, deps, save);
  return rolled.state === 'completed'
    ? save({ status: 'rolled-back', phase: 'rolled-back' })
    : fail('rollback-failed', `${outcome.message}; the rollback failed too: ${rolled.message}`);
}

/**
 * ServiceUpdate with `rollback=previous`: the manager goes back to the service's PreviousSpec under
 * its RollbackConfig. Not cancellable: a half-done rollback helps no one.
 */
async function rollBackService(
  service: SwarmService,
  tasks: number,
  plan: SwarmUpdatePlan,
  deps: SwarmUpdateDeps,
  save: (fields: Partial<UpdateOperation>) => Promise<UpdateOperation>,
): Promise<ServiceUpdateOutcome> {
  // A rollback the manager began itself (FailureAction rollback after a pause) is followed, not asked again.
  if (service.UpdateStatus?.State !== 'rollback_started') {
    if (!service.PreviousSpec) return { state: 'failed', message: 'the service has no previous spec to roll back to' };
    try {
      await deps.engine.updateService(service.ID, {
        version: service.Version?.Index ?? 0,
        spec: service.Spec,
        rollback: 'previous',
        auth: plan.auth,
      });
    } catch (error) {
      return { state: 'failed', message: `ServiceUpdate rollback=previous was refused: ${errorMessage(error)}` };
    }
  }
  try {
    return await followServiceUpdate(deps.engine, service.ID, {
      startedBefore: service.UpdateStatus?.State === 'rollback_started' ? undefined : service.UpdateStatus?.StartedAt,
      wanted: 'rollback',
      timeoutMs: settleTimeoutMs(service, tasks, plan.healthTimeoutMs, service.Spec.RollbackConfig),
      pollMs: deps.pollMs,
      now: deps.now,
      onState: async (state) => {
        if (state === 'rollback_started') await save({ phase: 'rollback-started' });
      },
    });
  } catch (error) {
    return { state: 'failed', message: errorMessage(error) };
  }
}
