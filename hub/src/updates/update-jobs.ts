import type { UpdatableDockerHost } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { isTerminal, runUpdateOperation, type UpdateOperation } from '../../../shared/update-engine';
import { runOnAgent } from './agent-update-runner';
import { composeFilesFor } from './compose-files';
import { pullAuthFor } from './pull-auth';
import { saveUntilStored } from './save-until-stored';
import { afterSettled } from './settle-effects';
import { runSwarmJob, swarmWatcherOf } from './swarm-update-job';
import {
  identityOf,
  isoNow,
  publishChanged,
  triggerById,
  type UpdateContext,
  updatableWatcher,
} from './update-context';
import { updateHooksFor } from './update-hooks';

/** Compose projects are updated one container at a time (docs/updates.md "Queue, locks and cancel"), per Docker host. */
export function groupOf(container: Pick<Container, 'labels' | 'agent' | 'watcher'>): string | undefined {
  const project = container.labels['com.docker.compose.project'];
  return project
    ? `${containerIdentity({ agent: container.agent, watcher: container.watcher, name: '' })}compose:${project}`
    : undefined;
}

export interface UpdateJobsOptions {
  /** Aborted when the hub stops: journal retries and waits on agents end. */
  stopSignal: AbortSignal;
  /** Told of each settled operation, after its effects (the automatic-rollback monitor watches it). */
  settled: (operation: UpdateOperation) => void;
}

/**
 * The jobs of the update queue: each runs one operation through the update engine on the
 * watcher's host, or mirrors it from the edge agent that runs it, and settles it with its effects.
 * Also what the queue tells the UI: each waiting operation's position, once per change.
 */
export function createUpdateJobs(context: UpdateContext, options: UpdateJobsOptions) {
  const { hub, store, scheduler, logger } = context;
  const published = new Map<string, string>();

  // A phase the store cannot take (a full disk) is written again until it can: dropped, the
  // operation would stay in progress, its container claimed, until a restart (as agents' reports).
  const journal = {
    save: async (operation: UpdateOperation) => {
      await saveUntilStored((next) => store.save(next), operation, {
        signal: options.stopSignal,
        warn: (message) => logger.warn(message),
      });
      publishChanged(context, operation);
    },
  };
  const engineDeps = (host: UpdatableDockerHost, watcherName: string) => ({
    host,
    journal,
    now: () => hub.now(),
    timing: context.options.timing,
    afterSave: context.options.afterSave,
    composeFiles: composeFilesFor(context, watcherName),
  });

  async function settle(operation: UpdateOperation): Promise<void> {
    published.delete(operation.id);
    await afterSettled(context, operation);
    options.settled(operation);
  }

  /** Settles an operation that never reached the engine (cancelled while queued, nothing to run it on). */
  async function failUnstarted(operation: UpdateOperation, lastError: string): Promise<void> {
    const failed: UpdateOperation = {
      ...operation,
      status: 'failed',
      phase: 'prepare',
      lastError,
      updatedAt: isoNow(context),
    };
    await journal.save(failed);
    await settle(failed);
  }

  async function runJob(operationId: string, signal: AbortSignal): Promise<void> {
    const operation = store.get(operationId);
    if (operation?.status !== 'queued') return;
    if (operation.agent !== undefined) return runAgentJob(operation, signal);
    if (swarmWatcherOf(context, operation.watcher))
      return runSwarmJob(context, { journal, failUnstarted, settle }, operation, signal);
    const reached = updatableWatcher(context, operation.watcher);
    const trigger = triggerById(context, operation.triggerName);
    if (!reached || !trigger) {
      await failUnstarted(
        operation,
        `${reached ? `the action trigger ${operation.triggerName}` : `the watcher ${operation.watcher}`} is not available; nothing was changed`,
      );
      return;
    }
    let auth: Awaited<ReturnType<typeof pullAuthFor>>;
    try {
      auth = await pullAuthFor(hub, operation.targetImage);
    } catch (error) {
      await failUnstarted(operation, `registry credentials: ${errorMessage(error)}; nothing was changed`);
      return;
    }
    const backup = operation.backupId ? context.backups.get(operation.backupId) : undefined;
    const plan = { auth, healthTimeoutMs: trigger.healthTimeoutMs, spec: backup?.spec };
    // dd.hook.pre before anything is touched (a failure ends the operation failed in prepare); dd.hook.post after a success.
    const hooks = updateHooksFor(hub, logger.child('hooks'), operation);
    const refused = await hooks.pre(journal, signal);
    if (refused !== undefined) {
      await failUnstarted(store.get(operation.id) ?? operation, refused);
      return;
    }
    const settled = await runUpdateOperation(operation, plan, engineDeps(reached.host, operation.watcher), signal);
    await settle(settled);
    await hooks.post(settled);
  }

  /** An edge agent's container: its agent runs the engine, the hub mirrors the phases (agent-update-runner.ts). */
  async function runAgentJob(operation: UpdateOperation, signal: AbortSignal): Promise<void> {
    const trigger = triggerById(context, operation.triggerName);
    if (!trigger)
      return failUnstarted(
        operation,
        `the action trigger ${operation.triggerName} is not available; nothing was changed`,
      );
    let auth: Awaited<ReturnType<typeof pullAuthFor>>;
    try {
      auth = await pullAuthFor(hub, operation.targetImage);
    } catch (error) {
      return failUnstarted(operation, `registry credentials: ${errorMessage(error)}; nothing was changed`);
    }
    const latest = await runOnAgent(context, operation, {
      healthTimeoutMs: trigger.healthTimeoutMs,
      auth,
      spec: operation.backupId ? context.backups.get(operation.backupId)?.spec : undefined,
      signal,
      cancelledByUser: () => context.cancelled.has(operation.id),
      save: journal.save,
    });
    if (latest.status === 'failed' && latest.phase === 'prepare' && store.get(operation.id)?.status === 'queued') {
      return failUnstarted(operation, latest.lastError ?? 'the edge agent did not run the update');
    }
    if (isTerminal(latest)) await settle(latest);
  }

  return {
    journal,
    engineDeps,
    settle,
    failUnstarted,

    /** Claims the container (the lock) and queues the operation's job. */
    enqueue(operation: UpdateOperation, groupKey: string | undefined): void {
      context.claims.set(identityOf(operation), operation.id);
      scheduler.enqueue({
        id: operation.id,
        lockKey: identityOf(operation),
        groupKey,
        run: (signal) => runJob(operation.id, signal),
      });
    },

    /** Queue positions move for everyone when one job starts or ends: each waiting operation is told once per change. */
    publishQueue(): void {
      for (const operation of store.unsettled()) {
        const position = scheduler.position(operation.id);
        if (!position) continue;
        const key = `${operation.status}:${position.queuePosition}/${position.queueTotal}`;
        if (published.get(operation.id) === key) continue;
        published.set(operation.id, key);
        publishChanged(context, operation);
      }
    },
  };
}

export type UpdateJobs = ReturnType<typeof createUpdateJobs>;
