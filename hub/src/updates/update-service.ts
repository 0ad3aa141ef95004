import type { Storage } from 'unstorage';
import { actingLabels } from '../../../shared/containers/label-overrides';
import type { UpdatableDockerHost } from '../../../shared/docker/docker-host';
import type { Logger } from '../../../shared/logging/logger';
import type { Decider } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import {
  errorText,
  isTerminal,
  recoverOperation,
  runUpdateOperation,
  type ShutdownLimits,
  type UpdateOperation,
  UpdateScheduler,
  type UpdateSource,
} from '../../../shared/update-engine';
import { HttpError } from '../http/http-error';
import type { DockerActionTrigger } from './action-triggers';
import { assertAgentReachable, awaitAgentOperation, runOnAgent } from './agent-update-runner';
import { AutoRollbackMonitor } from './auto-rollback';
import { assertUpdateModeAllows } from './auto-update-policy';
import { createBackupStore, type ImageBackup } from './backup-store';
import { composeFilesFor } from './compose-files';
import { createUpdateOperationStore, newestFirst } from './operation-store';
import { pullAuthFor } from './pull-auth';
import { autoRollbackWindowMs } from './rollback-labels';
import { saveUntilStored } from './save-until-stored';
import { afterSettled } from './settle-effects';
import {
  assertLocal,
  assertMature,
  assertNotBusy,
  assertNotLifeline,
  findUpdatable,
  resolveTrigger,
} from './update-checks';
import {
  identityOf,
  isoNow,
  publishChanged,
  triggerById,
  type UpdateContext,
  type UpdateServiceDeps,
  type UpdateServiceOptions,
  updatableWatcher,
  viewOf,
} from './update-context';
import { updateHooksFor } from './update-hooks';
import { previewUpdate, type UpdatePreview } from './update-preview';
import { currentVersion, updateTargetOf } from './update-target';

export interface UpdateRequestOptions {
  /** An action trigger by id (`docker.x`) or name; the first one of the container's watcher when absent. */
  triggerName?: string | undefined;
  source: UpdateSource;
  batchId?: string | undefined;
  /** Who asked, for an API request: an approval remembers them (docs/approvals.md "Separation of duties"). */
  requestedBy?: Decider | undefined;
}

export interface RollbackRequestOptions {
  /** The latest backup of the container when absent. */
  backupId?: string | undefined;
  source?: 'rollback' | 'auto-rollback';
}

/**
 * Container updates (docs/updates.md): requests checked and queued, run by the update engine on the
 * watcher's Docker host, settled with their events, notifications, backups and audit; unfinished
 * operations are recovered at start. The webhook routes call requestUpdate too.
 */
export interface UpdateService {
  readonly triggers: readonly DockerActionTrigger[];
  load(): Promise<void>;
  /** After the watchers exist: recovers unfinished operations, re-queues queued ones, resumes rollback windows. */
  start(): Promise<void>;
  /**
   * The first step of a shutdown (docs/updates.md "Stopping"): no job starts any more, running ones
   * get `limits` to settle; those that do not are left as journalled, for the next start's recovery.
   */
  drain(limits?: ShutdownLimits): Promise<void>;
  /** Drains (at once, unless drain() came first) and ends the background recoveries. */
  stop(): Promise<void>;
  /** Queues an update; throws HttpError with the status http-interface §4.8 gives each refusal. */
  requestUpdate(containerId: string, options: UpdateRequestOptions): Promise<UpdateOperation>;
  /** Queues a rollback to a backup (http-interface §2.7), the same sequence towards the backup's image. */
  requestRollback(containerId: string, options?: RollbackRequestOptions): Promise<UpdateOperation>;
  /** A queued operation ends at once; one in progress rolls back at its next phase boundary. */
  cancel(operationId: string, by: string): Promise<UpdateOperation>;
  get(operationId: string): UpdateOperation | undefined;
  view(operation: UpdateOperation): ReturnType<typeof viewOf>;
  /** Newest first, across re-creations of the container (by identity). */
  operationsOf(container: Container): UpdateOperation[];
  backupsOf(container: Container): ImageBackup[];
  backups(containerName?: string): ImageBackup[];
  /** What requestUpdate would do now, touching nothing (http-interface §4.8 preview). */
  preview(containerId: string): UpdatePreview;
  /** Queued, running or being recovered: their images must not be pruned. */
  unsettled(): UpdateOperation[];
  /** Resolves once nothing is queued, running or being recovered (tests, benchmarks). */
  idle(): Promise<void>;
}

const DEFAULT_MAX_CONCURRENT = 8;
const DEFAULT_RECOVERY_RETRY_MS = 30_000;
/** Without limits (tests, Workers): running operations are signalled at once, and waited for. */
const SIGNAL_AT_ONCE: ShutdownLimits = { graceMs: 0, signalledMs: Number.POSITIVE_INFINITY };
/** Background recoveries wait on Docker or an agent: a stop does not wait for them longer than this. */
const RECOVERY_STOP_WAIT_MS = 2_000;

export function createUpdateService(
  hub: UpdateServiceDeps,
  deps: {
    storage: Storage;
    logger: Logger;
    triggers: readonly DockerActionTrigger[];
    options?: UpdateServiceOptions | undefined;
  },
): UpdateService {
  const logger = deps.logger.child('updates');
  const options = deps.options ?? {};
  const context: UpdateContext = {
    hub,
    options,
    logger,
    triggers: deps.triggers,
    store: createUpdateOperationStore(deps.storage, logger.child('store')),
    backups: createBackupStore(deps.storage, logger.child('store')),
    scheduler: new UpdateScheduler({
      maxConcurrent: options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
      onChange: () => publishQueue(),
      onJobError: (id, error) =>
        logger.error('an update job failed outside its operation', { operationId: id, error: errorText(error) }),
    }),
    claims: new Map(),
    cancelled: new Map(),
  };
  const { store, scheduler } = context;
  const background = new Set<Promise<void>>();
  const retries = new Set<ReturnType<typeof setTimeout>>();
  const published = new Map<string, string>();
  let stopping = false;
  let drained: Promise<void> | undefined;
  /** Ends the hub's waits on agents' operations (they go on on the agent and are taken up at the next start). */
  const stopWaiting = new AbortController();

  // A phase the store cannot take (a full disk) is written again until it can: dropped, the
  // operation would stay in progress, its container claimed, until a restart (as agents' reports).
  const journal = {
    save: async (operation: UpdateOperation) => {
      await saveUntilStored((next) => store.save(next), operation, {
        signal: stopWaiting.signal,
        warn: (message) => logger.warn(message),
      });
      publishChanged(context, operation);
    },
  };
  const engineDeps = (host: UpdatableDockerHost, watcherName: string) => ({
    host,
    journal,
    now: () => hub.now(),
    timing: options.timing,
    afterSave: options.afterSave,
    composeFiles: composeFilesFor(context, watcherName),
  });

  /** Queue positions move for everyone when one job starts or ends: each waiting operation is told once per change. */
  function publishQueue(): void {
    for (const operation of store.unsettled()) {
      const position = scheduler.position(operation.id);
      if (!position) continue;
      const key = `${operation.status}:${position.queuePosition}/${position.queueTotal}`;
      if (published.get(operation.id) === key) continue;
      published.set(operation.id, key);
      publishChanged(context, operation);
    }
  }

  function track(work: Promise<void>): void {
    background.add(work);
    void work.finally(() => background.delete(work));
  }

  async function settle(operation: UpdateOperation): Promise<void> {
    published.delete(operation.id);
    await afterSettled(context, operation);
    monitor.watch(operation);
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
      await failUnstarted(operation, `registry credentials: ${errorText(error)}; nothing was changed`);
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
      return failUnstarted(operation, `registry credentials: ${errorText(error)}; nothing was changed`);
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

  function enqueue(operation: UpdateOperation, groupKey: string | undefined): void {
    context.claims.set(identityOf(operation), operation.id);
    scheduler.enqueue({
      id: operation.id,
      lockKey: identityOf(operation),
      groupKey,
      run: (signal) => runJob(operation.id, signal),
    });
  }

  /** Compose projects are updated one container at a time (docs/updates.md "Queue, locks and cancel"), per Docker host. */
  function groupOf(container: Pick<Container, 'labels' | 'agent' | 'watcher'>): string | undefined {
    const project = container.labels['com.docker.compose.project'];
    return project
      ? `${containerIdentity({ agent: container.agent, watcher: container.watcher, name: '' })}compose:${project}`
      : undefined;
  }

  function newOperation(
    container: Container,
    fields: Pick<UpdateOperation, 'kind' | 'source' | 'targetImage'> & Partial<UpdateOperation>,
  ): UpdateOperation {
    const now = isoNow(context);
    return {
      id: crypto.randomUUID(),
      containerName: container.name,
      containerId: container.id,
      watcher: container.watcher,
      ...(container.agent !== undefined && { agent: container.agent }),
      status: 'queued',
      phase: 'prepare',
      createdAt: now,
      updatedAt: now,
      ...fields,
    };
  }

  /** Claims the container synchronously (the lock), then journals and queues; the claim goes if the write fails. */
  async function admit(container: Container, operation: UpdateOperation): Promise<UpdateOperation> {
    // A request that arrived before the shutdown began: the queue takes no job any more.
    if (stopping)
      throw new HttpError(503, 'The hub is shutting down; nothing was changed', { reason: 'shutting-down' });
    context.claims.set(identityOf(operation), operation.id);
    try {
      await store.save(operation);
    } catch (error) {
      context.claims.delete(identityOf(operation));
      throw error;
    }
    enqueue(operation, groupOf(container));
    publishChanged(context, operation);
    return operation;
  }

  async function recoverOne(operation: UpdateOperation): Promise<void> {
    if (operation.agent !== undefined) {
      // The agent settles its own operation (it recovers at its start); the hub waits for its report.
      const settled = await awaitAgentOperation(context, operation, journal.save, stopWaiting.signal);
      if (settled) await settle(settled);
      else if (!stopping) {
        const timer = setTimeout(() => {
          retries.delete(timer);
          if (!stopping) track(recoverOne(store.get(operation.id) ?? operation));
        }, options.recoveryRetryMs ?? DEFAULT_RECOVERY_RETRY_MS);
        retries.add(timer);
      }
      return;
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
      logger.warn('an unfinished update waits for Docker', { operationId: operation.id, error: errorText(error) });
      const timer = setTimeout(() => {
        retries.delete(timer);
        if (!stopping) track(recoverOne(operation));
      }, options.recoveryRetryMs ?? DEFAULT_RECOVERY_RETRY_MS);
      retries.add(timer);
      return;
    }
    logger.info('recovering an unfinished update', {
      operationId: operation.id,
      container: operation.containerName,
      phase: operation.phase,
    });
    const settled = await recoverOperation(operation, engineDeps(reached.host, operation.watcher));
    await settle(settled);
  }

  async function startRollback(operation: UpdateOperation, reason: string): Promise<void> {
    const id = operation.newContainerId ?? operation.containerId;
    await hub.audit.append({
      action: 'auto-rollback',
      containerName: operation.containerName,
      containerImage: operation.targetImage,
      ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
      status: 'started',
      details: reason.slice(0, 500),
    });
    try {
      await service.requestRollback(id, {
        source: 'auto-rollback',
        backupId: context.backups.get(operation.id) ? operation.id : undefined,
      });
    } catch (error) {
      logger.warn('automatic rollback could not start', { operationId: operation.id, error: errorText(error) });
    }
  }
  const monitor = new AutoRollbackMonitor(context, startRollback);

  const service: UpdateService = {
    triggers: deps.triggers,
    async load() {
      await store.load();
      await context.backups.load();
    },
    async start() {
      for (const operation of store.unsettled()) {
        context.claims.set(identityOf(operation), operation.id);
        if (operation.status === 'queued') {
          const container = hub.containers.get(operation.containerId);
          enqueue(operation, container ? groupOf(container) : undefined);
        } else {
          track(recoverOne(operation));
        }
      }
      for (const operation of store.all()) monitor.watch(operation);
    },
    drain(limits = SIGNAL_AT_ONCE) {
      drained ??= (async () => {
        stopping = true;
        stopWaiting.abort();
        monitor.stop();
        for (const timer of retries) clearTimeout(timer);
        // Queued operations stay queued for the next start; running ones finish, or roll back once signalled.
        const { unfinished } = await scheduler.shutDown('the hub is stopping', limits);
        for (const id of unfinished) {
          const operation = store.get(id);
          logger.warn('an update is left for recovery at the next start', {
            operationId: id,
            container: operation?.containerName,
            phase: operation?.phase,
          });
        }
      })();
      return drained;
    },
    async stop() {
      await service.drain();
      await atMost(Promise.all(background), RECOVERY_STOP_WAIT_MS);
    },

    async requestUpdate(containerId, request) {
      const container = findUpdatable(context, containerId);
      assertUpdateModeAllows(hub.settings.get().updateMode, request.source);
      const trigger = resolveTrigger(context, container, request.triggerName);
      const target = updateTargetOf(container);
      if (!target)
        throw new HttpError(400, `No update is available for ${container.name}`, { reason: 'no-update-available' });
      assertMature(container);
      // Before the approval: a candidate blocked by its findings must not open an approval request.
      await hub.security?.admit(container, target);
      // Every other refusal first would be nicer, but this one writes (a new approval): it must not
      // come between the busy check and the claim below. An approved candidate passes.
      await hub.approvals?.admit(container, target, request.source, request.requestedBy);
      // The hub's own container: swapped by a helper container instead of refused (docs/updates.md "Self-update").
      if (container.agent === undefined && hub.selfUpdates?.applies(container.id)) {
        const operation = newOperation(container, {
          kind: 'update',
          source: request.source,
          triggerName: trigger.id,
          ...target,
        });
        await hub.selfUpdates.start({
          operation,
          host: assertLocal(context, container).host,
          auth: await pullAuthFor(hub, operation.targetImage),
          healthTimeoutMs: trigger.healthTimeoutMs,
        });
        await hub.approvals?.executed(container, target, operation.id);
        return operation;
      }
      // Awaited before the busy check: nothing may come between that check and the claim in admit().
      await assertNotLifeline(
        context,
        container,
        container.agent === undefined ? assertLocal(context, container).host : undefined,
      );
      assertNotBusy(context, container);
      if (container.agent !== undefined) assertAgentReachable(context, container);
      const window = autoRollbackWindowMs(actingLabels(container));
      const operation = newOperation(container, {
        kind: 'update',
        source: request.source,
        triggerName: trigger.id,
        ...target,
        ...(request.batchId !== undefined && { batchId: request.batchId }),
        ...(window !== undefined && { autoRollbackWindowMs: window }),
      });
      await admit(container, operation);
      await hub.approvals?.executed(container, target, operation.id);
      await hub.audit.append({
        action: 'container-update',
        containerName: container.name,
        containerImage: target.targetImage,
        fromVersion: target.fromVersion,
        toVersion: target.toVersion,
        triggerName: trigger.id,
        status: 'queued',
        details: `operation ${operation.id} (${request.source})`,
      });
      return operation;
    },

    async requestRollback(containerId, request = {}) {
      const container = findUpdatable(context, containerId);
      const trigger = resolveTrigger(context, container);
      const identity = containerIdentity(container);
      const backup =
        request.backupId === undefined
          ? context.backups.ofIdentity(identity)[0]
          : context.backups.get(request.backupId);
      if (!backup || backup.identity !== identity) {
        throw new HttpError(
          404,
          request.backupId === undefined
            ? `${container.name} has no backup to roll back to`
            : `Unknown backup ${request.backupId.slice(0, 80)}`,
          {
            reason: 'no-backup',
          },
        );
      }
      // Awaited before the busy check: nothing may come between that check and the claim in admit().
      await assertNotLifeline(
        context,
        container,
        container.agent === undefined ? assertLocal(context, container).host : undefined,
      );
      assertNotBusy(context, container);
      if (container.agent !== undefined) assertAgentReachable(context, container);
      const operation = newOperation(container, {
        kind: 'rollback',
        source: request.source ?? 'rollback',
        triggerName: trigger.id,
        targetImage: backup.imageReference,
        targetImageId: backup.imageId,
        ...(backup.imageDigest !== undefined && { targetDigest: backup.imageDigest }),
        fromVersion: currentVersion(container),
        toVersion: backup.imageTag || backup.imageDigest || backup.imageId,
        backupId: backup.id,
      });
      return admit(container, operation);
    },

    async cancel(operationId, by) {
      const operation = store.get(operationId);
      if (!operation) throw new HttpError(404, `Unknown update operation ${operationId.slice(0, 80)}`);
      if (isTerminal(operation)) {
        throw new HttpError(409, `The operation is already ${operation.status}`, {
          reason: 'settled',
          status: operation.status,
        });
      }
      context.cancelled.set(operationId, by);
      const outcome = scheduler.cancel(operationId, `cancelled by ${by}`);
      if (outcome === 'dequeued') {
        await failUnstarted(operation, `cancelled by ${by} before it started; nothing was changed`);
        return store.get(operationId) ?? operation;
      }
      if (outcome === 'unknown') {
        context.cancelled.delete(operationId);
        throw new HttpError(409, 'The operation is being recovered and cannot be cancelled', { reason: 'recovering' });
      }
      return operation;
    },

    get: (id) => store.get(id) ?? hub.selfUpdates?.operations().find((operation) => operation.id === id),
    view: (operation) => viewOf(context, operation),
    operationsOf: (container) => {
      const identity = containerIdentity(container);
      // The hub's own container's self-updates too (docs/updates.md "Self-update"): its history, and no automatic retry of a failed target.
      const selfUpdates = hub.selfUpdates?.operations() ?? [];
      return [...store.all(), ...selfUpdates]
        .filter((operation) => identityOf(operation) === identity)
        .sort(newestFirst);
    },
    backupsOf: (container) => context.backups.ofIdentity(containerIdentity(container)),
    backups: (containerName) =>
      context.backups.all().filter((backup) => containerName === undefined || backup.containerName === containerName),
    preview: (containerId) => previewUpdate(context, containerId),
    unsettled: () => store.unsettled(),
    async idle() {
      for (;;) {
        await scheduler.idle();
        await Promise.all(background);
        if (scheduler.total() === 0 && background.size === 0) return;
      }
    },
  };
  return service;
}

/** Waits for `work`, but no longer than `ms`. */
async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
