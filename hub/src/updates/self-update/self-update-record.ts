import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../../shared/logging/logger';
import { UPDATE_OPERATION_PHASES, UPDATE_OPERATION_STATUSES } from '../../../../shared/schemas/ui-events';
import { isTerminal, type UpdateOperation, UpdateOperationSchema } from '../../../../shared/update-engine';
import { readValidated } from '../../store/validated-storage';

/**
 * The hub's own phases before the helper container takes over (docs/updates.md "Self-update"),
 * then the update engine's, written by the helper.
 */
export const SELF_UPDATE_PHASES = ['awaiting-ack', 'pulling', 'helper-started', ...UPDATE_OPERATION_PHASES] as const;
export type SelfUpdatePhase = (typeof SELF_UPDATE_PHASES)[number];

/**
 * One self-update, kept under its own key rather than in the update journal: the helper container
 * writes it while no hub runs, and the hub that answers afterwards (new or restored) reads it from
 * storage on every status request. The update journal's start-up recovery must never touch it.
 */
export const SelfUpdateRecordSchema = v.object({
  operationId: v.string(),
  status: v.picklist(UPDATE_OPERATION_STATUSES),
  phase: v.picklist(SELF_UPDATE_PHASES),
  completedAt: v.exactOptional(v.string()),
  /** Read by the helper: the health gate's limit (the trigger's HEALTHTIMEOUT). */
  healthTimeoutMs: v.number(),
  helperContainerId: v.exactOptional(v.string()),
  /** Whether the hub that saw it settled wrote its audit entry. */
  audited: v.exactOptional(v.boolean()),
  /** The update engine's journal of the swap (the hub's container spec, the target image id, …). */
  operation: UpdateOperationSchema,
});
export type SelfUpdateRecord = v.InferOutput<typeof SelfUpdateRecordSchema>;

const PREFIX = 'self-updates';
const keyOf = (id: string) => `${PREFIX}:${id}`;

export async function readSelfUpdate(
  storage: Storage,
  id: string,
  logger: Logger,
): Promise<SelfUpdateRecord | undefined> {
  // Keys hold ids the hub made (UUIDs); anything else is not one of them.
  if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
  return readValidated(storage, keyOf(id), SelfUpdateRecordSchema, logger);
}

export async function allSelfUpdates(storage: Storage, logger: Logger): Promise<SelfUpdateRecord[]> {
  const keys = await storage.getKeys(PREFIX);
  const records = await Promise.all(keys.map((key) => readValidated(storage, key, SelfUpdateRecordSchema, logger)));
  return records.filter((record) => record !== undefined);
}

export function writeSelfUpdate(storage: Storage, record: SelfUpdateRecord): Promise<void> {
  return storage.setItem(keyOf(record.operationId), record);
}

/** The record after an engine journal write: its status and phase follow the operation's. */
export function withOperation(record: SelfUpdateRecord, operation: UpdateOperation): SelfUpdateRecord {
  return {
    ...record,
    status: operation.status,
    phase: operation.phase,
    operation,
    ...(isTerminal(operation) && { completedAt: operation.updatedAt }),
  };
}

/** http-interface §4.13: what the unauthenticated status route shows, nothing more. */
export function publicStatus(record: SelfUpdateRecord) {
  return {
    operationId: record.operationId,
    status: record.status,
    phase: record.phase,
    ...(record.completedAt !== undefined && { completedAt: record.completedAt }),
  };
}
