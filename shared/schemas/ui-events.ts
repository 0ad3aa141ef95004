import * as v from 'valibot';
import { AgentSchema } from './agent';
import { ApprovalSchema } from './approval';
import { GROUP_POLICY_SCOPES, GroupPolicySchema } from './group-policy';
import { RolloutSchema } from './rollout';

/** Every event of the UI stream (http-interface §6.1), plus the end-of-bulk-scan event mentioned below its table. */
export const UI_EVENT_TYPES = [
  'dd:connected',
  'dd:heartbeat',
  'dd:container-added',
  'dd:container-updated',
  'dd:container-removed',
  'dd:container-unhealthy',
  'dd:scan-started',
  'dd:scan-completed',
  'dd:self-update',
  'dd:update-operation-changed',
  'dd:update-applied',
  'dd:update-failed',
  'dd:batch-update-completed',
  'dd:agent-connected',
  'dd:agent-disconnected',
  'dd:agent-stats-changed',
  'dd:resync-required',
  'dd:preferences-updated',
  // Beyond http-interface §6.1's list (docs/approvals.md): an approval opened, and each change of its state.
  'dd:approval-requested',
  'dd:approval-updated',
  // Beyond http-interface §6.1's list (docs/group-policies.md): a group or agent policy set or cleared; a rollout started, and each change of it.
  'dd:group-policy-updated',
  'dd:rollout-started',
  'dd:rollout-updated',
  'security-scan-cycle-complete',
] as const;
export type UiEventType = (typeof UI_EVENT_TYPES)[number];

/**
 * Events that belong to one connection (its handshake, its keep-alive, its replay verdict). They
 * are never published to everyone nor kept for replay, so the bus refuses them by type.
 */
export const CONNECTION_EVENT_TYPES = ['dd:connected', 'dd:heartbeat', 'dd:resync-required'] as const;
export type ConnectionEventType = (typeof CONNECTION_EVENT_TYPES)[number];
export type BroadcastUiEventType = Exclude<UiEventType, ConnectionEventType>;

/**
 * Why a client must reload its state instead of replaying: its Last-Event-ID is older than the
 * replay ring, is not an id this server can have issued, or comes from before a restart.
 */
export const RESYNC_REASONS = ['buffer-exceeded', 'invalid-event-id', 'boot-changed'] as const;
export type ResyncReason = (typeof RESYNC_REASONS)[number];

/** http-interface §2.6, plus `queued`, which it refers to and which queuePosition implies. */
export const UPDATE_OPERATION_STATUSES = ['queued', 'in-progress', 'succeeded', 'rolled-back', 'failed'] as const;
/** The phases of an update that goes through (http-interface §2.6), in order: what the preview announces. */
export const UPDATE_SEQUENCE_PHASES = [
  'prepare',
  'renamed',
  'new-created',
  'old-stopped',
  'new-started',
  'health-gate',
  'health-gate-passed',
  'succeeded',
] as const;
/** http-interface §2.6: the sequence, then the phases of a rollback. */
export const UPDATE_OPERATION_PHASES = [
  ...UPDATE_SEQUENCE_PHASES,
  'rollback-started',
  'rolled-back',
  'rollback-failed',
] as const;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
/** A single update has no batch; http-interface §6.1 shows the field on every payload, so it is present and null then. */
const batchId = v.nullable(v.string());
/**
 * Where the container of an update runs: its agent (null on the hub's own Docker host) and watcher.
 * A name alone is not a container (two agents may each run an `nginx`); a client keys operations
 * by agent, watcher and name (shared/containers/container-identity.ts). Added beside the fields
 * http-interface §6.1 lists, which keep their meaning.
 */
const updateHost = { agent: v.nullable(v.string()), watcher: v.string() };
/** The container record is owned by shared/schemas/container.ts; the event only promises an object. */
const containerObject = v.record(v.string(), v.unknown());

export const ConnectedEventSchema = v.object({ clientId: v.string(), clientToken: v.string() });
export const HeartbeatEventSchema = v.object({});
export const ContainerUnhealthyEventSchema = v.object({
  containerName: v.string(),
  health: v.literal('unhealthy'),
  previousHealth: v.nullable(v.string()),
  container: containerObject,
});
export const ScanStartedEventSchema = v.object({ containerId: v.string(), cycleId: v.optional(v.string()) });
/** The end of a scan-all cycle (the event http-interface §6.1 names below its table), with its outcome. */
export const ScanCycleCompleteEventSchema = v.object({
  cycleId: v.string(),
  scheduledCount: count,
  completedCount: count,
  scanned: count,
  failed: count,
});
export const ScanCompletedEventSchema = v.object({
  containerId: v.string(),
  status: v.string(),
  cycleId: v.optional(v.string()),
  /** Bulk requests only: the request id and cumulative counts (take the highest, never sum). */
  requestId: v.optional(v.string()),
  completedCount: v.optional(count),
  scheduledCount: v.optional(count),
});
export const SelfUpdateEventSchema = v.object({
  opId: v.string(),
  requiresAck: v.boolean(),
  ackTimeoutMs: count,
  /** ISO 8601, like every timestamp of an update operation (http-interface §2.6). */
  startedAt: v.string(),
});
export const UpdateOperationChangedEventSchema = v.object({
  operationId: v.string(),
  containerName: v.string(),
  ...updateHost,
  triggerName: v.optional(v.string()),
  status: v.picklist(UPDATE_OPERATION_STATUSES),
  phase: v.picklist(UPDATE_OPERATION_PHASES),
  queuePosition: count,
  queueTotal: count,
});
export const UpdateAppliedEventSchema = v.object({
  containerName: v.string(),
  ...updateHost,
  containerId: v.string(),
  newContainerId: v.string(),
  operationId: v.string(),
  batchId,
});
export const UpdateFailedEventSchema = v.object({
  containerName: v.string(),
  ...updateHost,
  error: v.string(),
  operationId: v.string(),
  batchId,
  phase: v.picklist(UPDATE_OPERATION_PHASES),
  /** Only rolled-back operations have one (http-interface §2.6). */
  rollbackReason: v.nullable(v.string()),
});
export const BatchUpdateCompletedEventSchema = v.object({
  batchId: v.string(),
  total: count,
  succeeded: count,
  failed: count,
  durationMs: count,
  /** Item fields: docs/updates.md "Bulk update"; the event promises objects only. */
  items: v.array(v.record(v.string(), v.unknown())),
});
export const AgentStatsChangedEventSchema = v.object({ agentName: v.string() });
export const ResyncRequiredEventSchema = v.object({ reason: v.picklist(RESYNC_REASONS) });
export const PreferencesUpdatedEventSchema = v.object({});
/** `policy` is null once cleared. */
export const GroupPolicyUpdatedEventSchema = v.object({
  scope: v.picklist(GROUP_POLICY_SCOPES),
  name: v.string(),
  policy: v.nullable(GroupPolicySchema),
});

/** Payload schemas of the events whose payload http-interface §6.1 shows in full; the others carry objects owned elsewhere. */
export const UI_EVENT_PAYLOAD_SCHEMAS = {
  'dd:connected': ConnectedEventSchema,
  'dd:heartbeat': HeartbeatEventSchema,
  'dd:container-unhealthy': ContainerUnhealthyEventSchema,
  'dd:scan-started': ScanStartedEventSchema,
  'dd:scan-completed': ScanCompletedEventSchema,
  'security-scan-cycle-complete': ScanCycleCompleteEventSchema,
  'dd:self-update': SelfUpdateEventSchema,
  'dd:update-operation-changed': UpdateOperationChangedEventSchema,
  'dd:update-applied': UpdateAppliedEventSchema,
  'dd:update-failed': UpdateFailedEventSchema,
  'dd:batch-update-completed': BatchUpdateCompletedEventSchema,
  'dd:agent-connected': AgentSchema,
  'dd:agent-disconnected': AgentSchema,
  'dd:agent-stats-changed': AgentStatsChangedEventSchema,
  'dd:resync-required': ResyncRequiredEventSchema,
  'dd:preferences-updated': PreferencesUpdatedEventSchema,
  'dd:approval-requested': ApprovalSchema,
  'dd:approval-updated': ApprovalSchema,
  'dd:group-policy-updated': GroupPolicyUpdatedEventSchema,
  'dd:rollout-started': RolloutSchema,
  'dd:rollout-updated': RolloutSchema,
} as const satisfies Partial<Record<UiEventType, v.GenericSchema>>;

type PayloadSchemas = typeof UI_EVENT_PAYLOAD_SCHEMAS;

/** The payload type of an event: from its schema where http-interface §6.1 shows it, else unknown. */
export type UiEventData<T extends UiEventType> = T extends keyof PayloadSchemas
  ? v.InferOutput<PayloadSchemas[T]>
  : unknown;
