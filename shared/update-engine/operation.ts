import * as v from 'valibot';
import { ContainerSpecSchema } from '../docker/container-spec-schema';
import { UPDATE_OPERATION_PHASES, UPDATE_OPERATION_STATUSES } from '../schemas/ui-events';

export type UpdateOperationStatus = (typeof UPDATE_OPERATION_STATUSES)[number];
export type UpdateOperationPhase = (typeof UPDATE_OPERATION_PHASES)[number];

/** Who asked: the API, a webhook, the auto-update policy, or the automatic rollback after an unhealthy success. */
export const UPDATE_SOURCES = ['api', 'webhook', 'mqtt', 'auto', 'rollback', 'auto-rollback'] as const;
export type UpdateSource = (typeof UPDATE_SOURCES)[number];

/** What became of one hook of an update run by an edge agent (never its environment). */
export const HookOutcomeSchema = v.object({
  status: v.picklist(['success', 'failed']),
  /** A failure's exit code or timeout and the output's last part. */
  detail: v.exactOptional(v.pipe(v.string(), v.maxLength(300))),
});
export type HookOutcome = v.InferOutput<typeof HookOutcomeSchema>;

/**
 * An update operation (http-interface §2.6) as the journal keeps it. Besides those fields it holds what
 * a restart needs to settle it: the old container's id and temporary name, the new container's id,
 * whether the old one was running, and the configuration it was re-created with.
 */
export const UpdateOperationSchema = v.object({
  id: v.string(),
  /** `rollback` runs the same sequence towards a backup's image. */
  kind: v.picklist(['update', 'rollback']),
  source: v.picklist(UPDATE_SOURCES),
  containerName: v.string(),
  /** The container being replaced (the old one). */
  containerId: v.string(),
  watcher: v.string(),
  agent: v.exactOptional(v.string()),
  status: v.picklist(UPDATE_OPERATION_STATUSES),
  phase: v.picklist(UPDATE_OPERATION_PHASES),
  createdAt: v.string(),
  updatedAt: v.string(),
  triggerName: v.exactOptional(v.string()),
  fromVersion: v.exactOptional(v.string()),
  toVersion: v.exactOptional(v.string()),
  /** Full reference of the image the container moves to. */
  targetImage: v.string(),
  /** The local image to re-tag as targetImage instead of pulling (a rollback to a kept image). */
  targetImageId: v.exactOptional(v.string()),
  /** Pin for a rollback whose image is gone locally: pulled by digest, then tagged as targetImage. */
  targetDigest: v.exactOptional(v.string()),
  rollbackReason: v.exactOptional(v.string()),
  lastError: v.exactOptional(v.string()),
  batchId: v.exactOptional(v.string()),
  /** Rollbacks: the backup they restore. */
  backupId: v.exactOptional(v.string()),
  /** Set before anything is touched: `<name>-old-<timestamp>`. */
  tempName: v.exactOptional(v.string()),
  oldWasRunning: v.exactOptional(v.boolean()),
  oldImage: v.exactOptional(v.string()),
  oldImageId: v.exactOptional(v.string()),
  newContainerId: v.exactOptional(v.string()),
  /** The configuration the new container is created with (the old one's, image aside). */
  spec: v.exactOptional(ContainerSpecSchema),
  /** The old container could not be removed after a success (it is kept under its temporary name). */
  cleanupError: v.exactOptional(v.string()),
  /**
   * Automatic rollback (`dd.rollback.auto`): after a success the new container is watched this
   * long (from updatedAt) and rolled back if it turns unhealthy.
   */
  autoRollbackWindowMs: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** After a success of a compose service: what became of its compose file (shared/compose; never its contents). */
  composeFile: v.exactOptional(
    v.object({
      path: v.string(),
      backupPath: v.exactOptional(v.string()),
      status: v.picklist(['rewritten', 'unchanged', 'skipped']),
      reason: v.exactOptional(v.string()),
    }),
  ),
  /**
   * An edge agent's hooks (dd.hook.pre / dd.hook.post, run on its host when its DD_HOOKS_ENABLED
   * is true): the hub audits each outcome once when it first appears in a report.
   */
  hooks: v.exactOptional(
    v.object({ pre: v.exactOptional(HookOutcomeSchema), post: v.exactOptional(HookOutcomeSchema) }),
  ),
});
export type UpdateOperation = v.InferOutput<typeof UpdateOperationSchema>;

const TERMINAL: readonly UpdateOperationStatus[] = ['succeeded', 'rolled-back', 'failed'];

export function isTerminal(operation: Pick<UpdateOperation, 'status'>): boolean {
  return TERMINAL.includes(operation.status);
}

/** Where the journal is kept: the hub's storage, or an edge agent's file. Every save must be durable when it resolves. */
export interface UpdateJournal {
  save(operation: UpdateOperation): Promise<void>;
}

/** `<name>-old-<timestamp>`, the old container's name while it stands by (docs/updates.md "The sequence"). */
export function temporaryName(name: string, now: number): string {
  return `${name}-old-${now}`;
}

/** Names of temporary rollback containers: never the target of an update (http-interface §4.8: 409). */
export const TEMPORARY_NAME = /-old-\d{10,}$/;

/** The operation as the API shows it (http-interface §2.6): the journal's bookkeeping stays inside. */
export function publicOperation(operation: UpdateOperation, queue?: { queuePosition: number; queueTotal: number }) {
  const {
    spec: _spec,
    tempName: _temp,
    oldWasRunning: _running,
    targetImageId: _targetId,
    targetDigest: _digest,
    oldImageId: _oldId,
    ...shown
  } = operation;
  return { ...shown, ...(queue && !isTerminal(operation) ? queue : {}) };
}
