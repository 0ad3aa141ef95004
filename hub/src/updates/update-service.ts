import type { Storage } from 'unstorage';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { type ShutdownLimits, type UpdateOperation, UpdateScheduler } from '../../../shared/update-engine';
import type { DockerActionTrigger } from './action-triggers';
import { AutoRollbackMonitor } from './auto-rollback';
import { createBackupStore, type ImageBackup } from './backup-store';
import { createUpdateOperationStore, newestFirst } from './operation-store';
import {
  identityOf,
  type UpdateContext,
  type UpdateServiceDeps,
  type UpdateServiceOptions,
  viewOf,
} from './update-context';
import { createUpdateJobs, groupOf } from './update-jobs';
import { previewUpdate, type UpdatePreview } from './update-preview';
import { createUpdateRecovery } from './update-recovery';
import { createUpdateRequests, type RollbackRequestOptions, type UpdateRequestOptions } from './update-requests';

export type { RollbackRequestOptions, UpdateRequestOptions } from './update-requests';

/**
 * Container updates (docs/updates.md): requests checked and queued (update-requests.ts), run by the
 * update engine on the watcher's Docker host (update-jobs.ts), settled with their events,
 * notifications, backups and audit; unfinished operations are recovered at start
 * (update-recovery.ts). The webhook routes call requestUpdate too.
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
      onChange: () => jobs.publishQueue(),
      onJobError: (id, error) =>
        logger.error('an update job failed outside its operation', { operationId: id, error: errorMessage(error) }),
    }),
    claims: new Map(),
    cancelled: new Map(),
  };
  const { store, scheduler } = context;
  let stopping = false;
  let drained: Promise<void> | undefined;
  /** Ends the hub's waits on agents' operations (they go on on the agent and are taken up at the next start). */
  const stopWaiting = new AbortController();
  const stopSignal = stopWaiting.signal;
  const jobs = createUpdateJobs(context, { stopSignal, settled: (operation) => monitor.watch(operation) });
  const recovery = createUpdateRecovery(context, jobs, { stopSignal, stopping: () => stopping });
  const requests = createUpdateRequests(context, jobs, () => stopping);

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
      await requests.requestRollback(id, {
        source: 'auto-rollback',
        backupId: context.backups.get(operation.id) ? operation.id : undefined,
      });
    } catch (error) {
      logger.warn('automatic rollback could not start', { operationId: operation.id, error: errorMessage(error) });
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
          jobs.enqueue(operation, container ? groupOf(container) : undefined);
        } else {
          recovery.recover(operation);
        }
      }
      for (const operation of store.all()) monitor.watch(operation);
    },
    drain(limits = SIGNAL_AT_ONCE) {
      drained ??= (async () => {
        stopping = true;
        stopWaiting.abort();
        monitor.stop();
        recovery.cancelRetries();
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
      await atMost(Promise.all(recovery.running()), RECOVERY_STOP_WAIT_MS);
    },

    requestUpdate: requests.requestUpdate,
    requestRollback: requests.requestRollback,
    cancel: requests.cancel,

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
      const background = recovery.running();
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
