import { errorMessage } from '../../../shared/error-message';
import type { Container } from '../../../shared/schemas/container';
import { isTerminal, type UpdateJournal, type UpdateOperation } from '../../../shared/update-engine';
import { HttpError } from '../http/http-error';
import { recoverSwarmUpdate } from '../swarm/recover-swarm-update';
import { specImage } from '../swarm/service-spec';
import { isSwarmHost, type SwarmHost } from '../swarm/swarm-host';
import { runSwarmUpdate } from '../swarm/swarm-update';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { DEFAULT_HEALTH_TIMEOUT_S } from './action-triggers';
import { pullAuthFor } from './pull-auth';
import { triggerById, type UpdateContext } from './update-context';
import { currentVersion } from './update-target';

/** How often a service is inspected while its update runs (UpdateServiceOptions.timing.pollMs overrides it). */
const DEFAULT_SWARM_POLL_MS = 500;

/** The hub's swarm watcher of that name (docs/sources.md "Swarm services"), with its manager's API. */
export function swarmWatcherOf(
  context: UpdateContext,
  watcherName: string,
): { watcher: DockerWatcher; host: SwarmHost } | undefined {
  const watcher = context.hub.fleet.find(watcherName, undefined);
  if (watcher?.type !== 'swarm' || !isSwarmHost(watcher.host)) return undefined;
  return { watcher, host: watcher.host };
}

/** What the job of a swarm operation needs of the update jobs (update-jobs.ts). */
export interface SwarmJobDeps {
  journal: UpdateJournal;
  failUnstarted(operation: UpdateOperation, lastError: string): Promise<void>;
  settle(operation: UpdateOperation): Promise<void>;
}

/**
 * The job of an update or rollback of a Swarm service: ServiceUpdate on its manager, followed to
 * its end (swarm/swarm-update.ts), then settled as a container's operation is (events, notification,
 * audit). No backup is kept (the manager keeps the PreviousSpec) and dd.hook.* do not run: a
 * service's tasks run on the swarm's nodes, not beside the hub.
 */
export async function runSwarmJob(
  context: UpdateContext,
  deps: SwarmJobDeps,
  operation: UpdateOperation,
  signal: AbortSignal,
): Promise<void> {
  const reached = swarmWatcherOf(context, operation.watcher);
  const trigger = triggerById(context, operation.triggerName);
  if (!reached || !trigger) {
    await deps.failUnstarted(
      operation,
      `${reached ? `the action trigger ${operation.triggerName}` : `the watcher ${operation.watcher}`} is not available; nothing was changed`,
    );
    return;
  }
  let auth: Awaited<ReturnType<typeof pullAuthFor>>;
  try {
    auth = await pullAuthFor(context.hub, operation.targetImage);
  } catch (error) {
    await deps.failUnstarted(operation, `registry credentials: ${errorMessage(error)}; nothing was changed`);
    return;
  }
  const settled = await runSwarmUpdate(
    operation,
    { auth, healthTimeoutMs: trigger.healthTimeoutMs },
    {
      engine: reached.host.swarm,
      journal: deps.journal,
      now: () => context.hub.now(),
      pollMs: context.options.timing?.pollMs ?? DEFAULT_SWARM_POLL_MS,
      cancelledByUser: () => context.cancelled.has(operation.id),
    },
    signal,
  );
  // The hub stops while the manager updates: the next start takes it up (recoverSwarmJob).
  if (!isTerminal(settled)) {
    context.logger.warn('a swarm update is left to its manager until the next start', { operationId: operation.id });
    return;
  }
  await deps.settle(settled);
}

/** An unfinished swarm operation at the hub's start (swarm/recover-swarm-update.ts); retried later while the manager does not answer. */
export async function recoverSwarmJob(
  context: UpdateContext,
  deps: SwarmJobDeps & { retryLater(): void },
  operation: UpdateOperation,
): Promise<void> {
  const reached = swarmWatcherOf(context, operation.watcher);
  if (!reached) return;
  const healthTimeoutMs =
    triggerById(context, operation.triggerName)?.healthTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_S * 1000;
  let settled: UpdateOperation;
  try {
    settled = await recoverSwarmUpdate(
      operation,
      { auth: undefined, healthTimeoutMs },
      {
        engine: reached.host.swarm,
        journal: deps.journal,
        now: () => context.hub.now(),
        pollMs: context.options.timing?.pollMs ?? DEFAULT_SWARM_POLL_MS,
      },
    );
  } catch (error) {
    context.logger.warn('an unfinished swarm update waits for its manager', {
      operationId: operation.id,
      error: errorMessage(error),
    });
    deps.retryLater();
    return;
  }
  await deps.settle(settled);
}

/**
 * A rollback of a service is the manager's own (`rollback=previous`, to its PreviousSpec): what it
 * goes back to is read from the service, not from a backup of the hub. 404 without a PreviousSpec.
 */
export async function swarmRollbackTarget(
  host: SwarmHost,
  container: Container,
): Promise<Pick<UpdateOperation, 'targetImage' | 'fromVersion' | 'toVersion'>> {
  const service = await host.swarm.inspectService(container.id);
  const previous = specImage(service?.PreviousSpec);
  if (!service || previous === '') {
    throw new HttpError(404, `${container.name} has no previous spec to roll back to`, { reason: 'no-backup' });
  }
  return {
    targetImage: previous,
    fromVersion: currentVersion(container),
    toVersion: previous.match(/:([^/:]+)$/)?.[1] ?? previous,
  };
}
