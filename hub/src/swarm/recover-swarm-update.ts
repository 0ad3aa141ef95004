import type { UpdateOperation } from '../../../shared/update-engine';
import { followServiceUpdate } from './follow-service-update';
import { settleTimeoutMs, specImage } from './service-spec';
import type { SwarmUpdateDeps, SwarmUpdatePlan } from './swarm-update';

/**
 * A swarm operation the hub found unfinished at its start (docs/sources.md "Swarm services"): the
 * manager went on without the hub, so its UpdateStatus says how it ended; the hub follows it to its
 * end if it still runs. One that never reached ServiceUpdate changed nothing. A failed update is
 * left as the manager has it (paused, or rolled back by its failure action), and said so.
 */
export async function recoverSwarmUpdate(
  operation: UpdateOperation,
  plan: SwarmUpdatePlan,
  deps: SwarmUpdateDeps,
): Promise<UpdateOperation> {
  const settle = async (fields: Partial<UpdateOperation>) => {
    const settled = { ...operation, ...fields, updatedAt: new Date(deps.now()).toISOString() };
    await deps.journal.save(settled);
    return settled;
  };
  const service = await deps.engine.inspectService(operation.containerId);
  if (!service) return settle({ status: 'failed', lastError: 'the service is gone' });
  const sent =
    operation.kind === 'rollback' || operation.phase !== 'prepare' || specImage(service.Spec) === operation.targetImage;
  if (!sent) {
    return settle({ status: 'failed', lastError: 'the hub stopped before its ServiceUpdate; nothing was changed' });
  }
  const rollingBack = operation.kind === 'rollback' || operation.phase === 'rollback-started';
  const outcome = await followServiceUpdate(deps.engine, service.ID, {
    startedBefore: undefined,
    wanted: rollingBack ? 'rollback' : 'update',
    timeoutMs: settleTimeoutMs(service, 1, plan.healthTimeoutMs, service.Spec.UpdateConfig),
    pollMs: deps.pollMs,
    now: deps.now,
  });
  if (outcome.state === 'completed') {
    if (operation.kind === 'rollback') return settle({ status: 'succeeded', phase: 'succeeded' });
    return rollingBack
      ? settle({ status: 'rolled-back', phase: 'rolled-back' })
      : settle({ status: 'succeeded', phase: 'succeeded' });
  }
  if (outcome.state === 'rolled-back')
    return settle({ status: 'rolled-back', phase: 'rolled-back', rollbackReason: outcome.message.slice(0, 1000) });
  return settle({
    status: 'failed',
    phase: rollingBack ? 'rollback-failed' : operation.phase,
    lastError: `after a restart of the hub: ${outcome.message}`.slice(0, 1000),
  });
}
