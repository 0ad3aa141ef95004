import { errorMessage } from '../../../shared/error-message';
import { recoverOperation, type UpdateOperation } from '../../../shared/update-engine';
import { awaitAgentOperation } from './agent-update-runner';
import { recoverSwarmJob, swarmWatcherOf } from './swarm-update-job';
import { type UpdateContext, updatableWatcher } from './update-context';
import type { UpdateJobs } from './update-jobs';

const DEFAULT_RECOVERY_RETRY_MS = 30_000;

export interface UpdateRecoveryOptions {
  /** Aborted when the hub stops: waits on agents' operations end. */
  stopSignal: AbortSignal;
  /** True once the hub began stopping: no retry is armed any more. */
  stopping: () => boolean;
}

/**
 * Operations found unfinished at the start (docs/updates.md "Recovery"): settled from where the
 * journal left them on the watcher's host, or awaited from the edge agent that runs them; retried
 * later while Docker or the agent does not answer. They run in the background.
 */
export function createUpdateRecovery(context: UpdateContext, jobs: UpdateJobs, options: UpdateRecoveryOptions) {
  const { store, logger } = context;
  const background = new Set<Promise<void>>();
  const retries = new Set<ReturnType<typeof setTimeout>>();

  function track(work: Promise<void>): void {
    background.add(work);
    void work.finally(() => background.delete(work));
  }

  function retryLater(operation: () => UpdateOperation): void {
    const timer = setTimeout(() => {
      retries.delete(timer);
      if (!options.stopping()) track(recoverOne(operation()));
    }, context.options.recoveryRetryMs ?? DEFAULT_RECOVERY_RETRY_MS);
    retries.add(timer);
  }

  async function recoverOne(operation: UpdateOperation): Promise<void> {
    if (operation.agent !== undefined) {
      // The agent settles its own operation (it recovers at its start); the hub waits for its report.
      const settled = await awaitAgentOperation(context, operation, jobs.journal.save, options.stopSignal);
      if (settled) await jobs.settle(settled);
      else if (!options.stopping()) retryLater(() => store.get(operation.id) ?? operation);
      return;
    }
    if (swarmWatcherOf(context, operation.watcher)) {
      const again = () => (options.stopping() ? undefined : retryLater(() => operation));
      return recoverSwarmJob(context, { ...jobs, retryLater: again }, operation);
    }
    const reached = updatableWatcher(context, operation.watcher);
    if (!reached) {
      logger.warn('an unfinished update waits for its watcher, which is not configured', {
        operationId: operation.id,
        watcher: operation.watcher,
      });
      return;
    }
    try {
      await reached.host.ping();
    } catch (error) {
      // Nothing can be settled without Docker; the container is left as it is and tried again later.
      logger.warn('an unfinished update waits for Docker', { operationId: operation.id, error: errorMessage(error) });
      retryLater(() => operation);
      return;
    }
    logger.info('recovering an unfinished update', {
      operationId: operation.id,
      container: operation.containerName,
      phase: operation.phase,
    });
    const settled = await recoverOperation(operation, jobs.engineDeps(reached.host, operation.watcher));
    await jobs.settle(settled);
  }

  return {
    /** Recovers the operation in the background. */
    recover: (operation: UpdateOperation) => track(recoverOne(operation)),
    /** No retry any more (the hub stops). */
    cancelRetries(): void {
      for (const timer of retries) clearTimeout(timer);
    },
    /** The recoveries under way. */
    running: (): ReadonlySet<Promise<void>> => background,
  };
}
