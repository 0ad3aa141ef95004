import type { UpdatableDockerHost } from '../docker/docker-host';
import { errorMessage } from '../error-message';
import type { UpdateOperation } from './operation';
import { OperationRecorder, type RecorderDeps } from './operation-recorder';
import { keepNewContainer, restoreOldContainer } from './restore';
import { finishSuccess, rollBack, type UpdateEngineDeps } from './update-engine';

/**
 * Settles an operation that a stop of its process left in progress (http-interface §3.2), from what Docker has
 * now: the container runs afterwards, old or new, never neither, and no `-old-` container is left
 * once the outcome is settled.
 *
 * - Health gate passed: the new container had proven itself; it is kept (started again if need
 *   be), the old one removed, and the operation succeeds.
 * - Any earlier phase (or a rollback under way): the old container is restored and the operation
 *   ends rolled-back, with the interrupted phase as its reason.
 * - Still in prepare with nothing changed: it ends failed in prepare, as a failed pull does.
 */
export async function recoverOperation(
  operation: UpdateOperation,
  deps: RecorderDeps & { host: UpdatableDockerHost; composeFiles?: UpdateEngineDeps['composeFiles'] },
): Promise<UpdateOperation> {
  const { host } = deps;
  const run = new OperationRecorder(operation, deps);
  if (
    (operation.phase === 'health-gate-passed' || operation.phase === 'succeeded') &&
    (await keepNewContainer(operation, host))
  ) {
    return finishSuccess(run, host, deps.composeFiles);
  }
  const reason =
    operation.phase === 'rollback-started' && operation.rollbackReason
      ? operation.rollbackReason
      : `the hub stopped during the phase ${operation.phase}`;
  if (operation.phase !== 'prepare') return rollBack(run, host, reason);
  try {
    if (await restoreOldContainer(operation, host))
      return await run.save({ status: 'rolled-back', phase: 'rolled-back', rollbackReason: reason });
    return await run.save({
      status: 'failed',
      phase: 'prepare',
      lastError: 'the hub stopped before the update changed anything; nothing was changed',
    });
  } catch (error) {
    return run.save({
      status: 'failed',
      phase: 'rollback-failed',
      lastError: `the hub stopped in prepare; restoring failed: ${errorMessage(error)}`,
    });
  }
}
