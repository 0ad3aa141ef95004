import type { Storage } from 'unstorage';
import type { RegistryPullAuth, UpdatableDockerHost } from '../../../../shared/docker/docker-host';
import { errorMessage } from '../../../../shared/error-message';
import type { Logger } from '../../../../shared/logging/logger';
import { isTerminal, type UpdateOperation } from '../../../../shared/update-engine';
import type { ConnectedClients } from '../../events/connected-clients';
import type { Publish } from '../../events/event-bus';
import { HttpError } from '../../http/http-error';
import type { AuditStore } from '../../store/audit-store';
import { helperContainerSpec } from './helper-container-spec';
import {
  allSelfUpdates,
  publicStatus,
  readSelfUpdate,
  type SelfUpdateRecord,
  writeSelfUpdate,
} from './self-update-record';

/** How long the hub waits for a UI's ack before it goes on without one (http-interface §6.1 ackTimeoutMs). */
export const DEFAULT_ACK_TIMEOUT_MS = 15_000;
/** How often a hub that started during a swap looks whether the helper has settled it. */
const WATCH_POLL_MS = 1_000;
const WATCH_LIMIT_MS = 15 * 60_000;

export interface SelfUpdateDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  publish: Publish;
  clients: Pick<ConnectedClients, 'ids' | 'verify'>;
  audit: Pick<AuditStore, 'append'>;
  /**
   * The helper's command in the hub's image (Node: this node binary and bundle with
   * --self-update-helper). Absent where the hub runs in no container (Workers): no self-update.
   */
  helperCommand: readonly string[] | undefined;
  selfContainerId: string | undefined;
  ackTimeoutMs?: number | undefined;
}

export interface SelfUpdateRequest {
  /** A new update operation of the hub's own container, as the update service made it. */
  operation: UpdateOperation;
  host: UpdatableDockerHost;
  auth: RegistryPullAuth | undefined;
  healthTimeoutMs: number;
}

export type AckOutcome = 'accepted' | 'ignored' | 'rejected';

/** The hub updating its own container through a helper container (docs/updates.md "Self-update"). */
export interface SelfUpdates {
  /** Whether this container is the hub's own and this hub can swap it. */
  applies(containerId: string): boolean;
  /** Records the operation and runs the hub's part in the background: announce, wait for an ack, pull, start the helper. */
  start(request: SelfUpdateRequest): Promise<void>;
  ack(operationId: string, clientId: string, clientToken: string): Promise<AckOutcome>;
  status(operationId: string): Promise<ReturnType<typeof publicStatus> | undefined>;
  /** At start: audits swaps that settled while no hub ran, and watches one still being swapped. */
  load(): Promise<void>;
  stop(): void;
  /**
   * The self-updates this hub knows of, as update operations: the container's history lists them,
   * and the auto-update policy does not try a target again that already failed.
   */
  operations(): UpdateOperation[];
  /** Resolves when no hub-side step runs (tests). */
  idle(): Promise<void>;
}

interface PendingAck {
  bound: ReadonlySet<string>;
  resolve: () => void;
}

export function createSelfUpdates(deps: SelfUpdateDeps): SelfUpdates {
  const { storage, now } = deps;
  const logger = deps.logger.child('self-update');
  const ackTimeoutMs = deps.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
  const pending = new Map<string, PendingAck>();
  const running = new Set<Promise<void>>();
  // Each sleep's timer and how to end it early, so stop() leaves no watcher waiting.
  const timers = new Map<ReturnType<typeof setTimeout>, () => void>();
  let stopped = false;
  // Set once a helper was started: this hub is about to be stopped, and no second swap may begin.
  let handedOver = false;
  const known = new Map<string, UpdateOperation>();
  const remember = (record: SelfUpdateRecord) => known.set(record.operationId, record.operation);

  const iso = () => new Date(now()).toISOString();
  const track = (work: Promise<void>) => {
    running.add(work);
    void work.finally(() => running.delete(work));
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.set(timer, resolve);
    });

  async function save(record: SelfUpdateRecord, patch: Partial<SelfUpdateRecord>): Promise<SelfUpdateRecord> {
    // The operation follows the record's status, so the container's history shows the same.
    const operation = { ...record.operation, ...(patch.status && { status: patch.status }), updatedAt: iso() };
    const next = { ...record, ...patch, operation: patch.operation ?? operation };
    await writeSelfUpdate(storage, next);
    remember(next);
    return next;
  }

  async function audit(record: SelfUpdateRecord): Promise<void> {
    const { operation } = record;
    await deps.audit.append({
      action: 'self-update',
      containerName: operation.containerName,
      containerImage: operation.targetImage,
      ...(operation.fromVersion !== undefined && { fromVersion: operation.fromVersion }),
      ...(operation.toVersion !== undefined && { toVersion: operation.toVersion }),
      ...(operation.triggerName !== undefined && { triggerName: operation.triggerName }),
      status: record.status,
      details: [`operation ${record.operationId}`, operation.rollbackReason, operation.lastError]
        .filter((part) => part !== undefined)
        .join('; ')
        .slice(0, 500),
    });
  }

  async function fail(record: SelfUpdateRecord, reason: string): Promise<void> {
    const at = iso();
    const settled = await save(record, {
      status: 'failed',
      phase: 'prepare',
      completedAt: at,
      audited: true,
      operation: { ...record.operation, status: 'failed', phase: 'prepare', updatedAt: at, lastError: reason },
    });
    logger.warn('self-update failed before the swap; nothing was changed', { operationId: record.operationId, reason });
    await audit(settled);
  }

  /** Announces it on the UI stream and waits for the first ack of a client that was open then, or the timeout. */
  async function announce(record: SelfUpdateRecord): Promise<void> {
    const bound = new Set(deps.clients.ids());
    const requiresAck = bound.size > 0;
    const acked = requiresAck
      ? new Promise<void>((resolve) => pending.set(record.operationId, { bound, resolve }))
      : Promise.resolve();
    deps.publish('dd:self-update', {
      opId: record.operationId,
      requiresAck,
      ackTimeoutMs: requiresAck ? ackTimeoutMs : 0,
      startedAt: record.operation.createdAt,
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      acked.then(() => 'acked' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ackTimeoutMs))),
    ]);
    clearTimeout(timer);
    pending.delete(record.operationId);
    // The ack only tells that a UI knows the hub is about to go away; without one the update goes on.
    if (requiresAck && outcome === 'timeout')
      logger.info('no UI acknowledged the self-update in time; going on', { operationId: record.operationId });
  }

  async function run(first: SelfUpdateRecord, request: SelfUpdateRequest): Promise<void> {
    let record = first;
    try {
      await announce(record);
      if (stopped) return fail(record, 'the hub stopped before the swap');
      record = await save(record, { status: 'in-progress', phase: 'pulling' });
      const { host, operation } = request;
      const pulled = await host.pullImage(operation.targetImage, request.auth);
      const [current, spec] = await Promise.all([
        host.inspectContainer(operation.containerId),
        host.inspectContainerSpec(operation.containerId),
      ]);
      if (!current || !spec) throw new Error('the hub cannot inspect its own container');
      if (pulled.id === current.imageId) throw new Error(`the hub already runs ${operation.targetImage}`);
      const helper = helperContainerSpec(spec, {
        operationId: record.operationId,
        imageId: current.imageId,
        command: deps.helperCommand ?? [],
        now: now(),
      });
      const helperId = await host.createContainer(helper);
      // Written before the helper starts: it reads the image to swap to from here (no registry access of its own).
      record = await save(record, {
        phase: 'helper-started',
        helperContainerId: helperId,
        operation: { ...record.operation, status: 'in-progress', targetImageId: pulled.id, updatedAt: iso() },
      });
      handedOver = true;
      await host.start(helperId);
      logger.info('self-update handed to the helper container; this hub will be stopped', {
        operationId: record.operationId,
        helper: helper.name,
        targetImage: operation.targetImage,
      });
    } catch (error) {
      await fail(record, `${errorMessage(error)}; nothing was changed`).catch((failure: unknown) =>
        logger.error('a failed self-update could not be recorded', {
          operationId: record.operationId,
          error: errorMessage(failure),
        }),
      );
    }
  }

  /** A hub that starts while the helper still swaps (the new one, during its health gate): audits the outcome once known. */
  async function watch(first: SelfUpdateRecord): Promise<void> {
    const deadline = now() + WATCH_LIMIT_MS;
    let record: SelfUpdateRecord | undefined = first;
    while (record && !isTerminal(record) && !stopped && now() < deadline) {
      await sleep(WATCH_POLL_MS);
      record = await readSelfUpdate(storage, first.operationId, logger);
    }
    if (record) remember(record);
    if (record && isTerminal(record) && !record.audited) await settleAudit(record);
  }

  async function settleAudit(record: SelfUpdateRecord): Promise<void> {
    await writeSelfUpdate(storage, { ...record, audited: true });
    logger.info('self-update settled', { operationId: record.operationId, status: record.status });
    await audit(record);
  }

  return {
    applies: (containerId) => deps.helperCommand !== undefined && containerId === deps.selfContainerId,
    async start(request) {
      // One swap at a time: a second helper would fight the first over the same container.
      if (running.size > 0 || handedOver)
        throw new HttpError(409, 'A self-update of the hub is already under way', { reason: 'self-update-running' });
      const record: SelfUpdateRecord = {
        operationId: request.operation.id,
        status: 'queued',
        phase: 'awaiting-ack',
        healthTimeoutMs: request.healthTimeoutMs,
        operation: request.operation,
      };
      await writeSelfUpdate(storage, record);
      remember(record);
      track(run(record, request));
    },
    async ack(operationId, clientId, clientToken) {
      const waiting = pending.get(operationId);
      if (!waiting) return 'ignored';
      const valid = await deps.clients.verify(clientId, clientToken);
      if (!valid || !waiting.bound.has(clientId)) return 'rejected';
      waiting.resolve();
      return 'accepted';
    },
    async status(operationId) {
      const record = await readSelfUpdate(storage, operationId, logger);
      return record && publicStatus(record);
    },
    async load() {
      for (const record of await allSelfUpdates(storage, logger)) {
        remember(record);
        if (isTerminal(record)) {
          if (!record.audited) await settleAudit(record);
        } else if (record.phase === 'awaiting-ack' || record.phase === 'pulling') {
          // This hub's own part, cut short by a stop: no helper was started.
          await fail(record, 'the hub stopped before the swap');
        } else {
          track(watch(record));
        }
      }
    },
    stop() {
      stopped = true;
      for (const [timer, resolve] of timers) {
        clearTimeout(timer);
        resolve();
      }
      timers.clear();
      for (const waiting of pending.values()) waiting.resolve();
    },
    operations: () => [...known.values()],
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
