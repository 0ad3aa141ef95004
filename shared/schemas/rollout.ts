import * as v from 'valibot';

/**
 * A staged rollout (docs/group-policies.md "Staged rollouts"): one image and candidate on many
 * hosts, updated on a canary host first, then in waves, each wave waiting for its updates to end
 * healthy. A rollout stays `running` across a restart of the hub (its waves are a scheduler job);
 * `interrupted` is what hubs before issue 32 left of one they were running (resume continues it).
 */
export const ROLLOUT_STATES = ['running', 'paused', 'completed', 'halted', 'aborted', 'interrupted'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];
/** States in which nothing more happens unless asked (resume from paused and interrupted). */
export const FINISHED_ROLLOUT_STATES: readonly RolloutState[] = ['completed', 'halted', 'aborted'];

/** UPDATE_OPERATION_STATUSES of ./ui-events, spelled out: ui-events carries this schema, so it cannot be imported here. */
const OPERATION_STATUSES = ['queued', 'in-progress', 'succeeded', 'rolled-back', 'failed'] as const;

export const ROLLOUT_HOST_STATES = ['pending', 'updating', 'succeeded', 'failed', 'untouched'] as const;
export type RolloutHostState = (typeof ROLLOUT_HOST_STATES)[number];

export const RolloutContainerSchema = v.object({
  /** The container's id when the rollout planned it (an update re-creates it under a new id). */
  containerId: v.string(),
  containerName: v.string(),
  fromVersion: v.string(),
  operationId: v.optional(v.string()),
  status: v.optional(v.picklist(OPERATION_STATUSES)),
  error: v.optional(v.string()),
});

export const RolloutHostSchema = v.object({
  /** An agent's name, or `__local__:<watcher>` for the hub's own Docker hosts. */
  host: v.string(),
  /** 0 is the canary; waves count from 1. */
  wave: v.number(),
  state: v.picklist(ROLLOUT_HOST_STATES),
  containers: v.array(RolloutContainerSchema),
  startedAt: v.optional(v.string()),
  finishedAt: v.optional(v.string()),
  error: v.optional(v.string()),
});
export type RolloutHost = v.InferOutput<typeof RolloutHostSchema>;

export const RolloutSchema = v.object({
  id: v.string(),
  /** The repository without tag (`registry/name`), as the containers' records spell it. */
  image: v.string(),
  toVersion: v.string(),
  /** The group whose policy it follows, when it follows one. */
  group: v.optional(v.string()),
  origin: v.picklist(['api', 'auto']),
  state: v.picklist(ROLLOUT_STATES),
  waveSize: v.number(),
  pauseSeconds: v.number(),
  /** The wave running or next to run (0 the canary). */
  currentWave: v.number(),
  waves: v.number(),
  hosts: v.array(RolloutHostSchema),
  /** What halted it: the host and container, and why. */
  failure: v.optional(
    v.object({
      host: v.string(),
      wave: v.number(),
      containerName: v.optional(v.string()),
      operationId: v.optional(v.string()),
      reason: v.string(),
    }),
  ),
  /** Who started, paused, resumed or aborted it last. */
  by: v.optional(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
  finishedAt: v.optional(v.string()),
  /** While paused between waves: the next wave starts then (running) or when resumed (paused). */
  nextWaveAt: v.optional(v.string()),
});
export type Rollout = v.InferOutput<typeof RolloutSchema>;

/** POST /api/v1/rollouts. Unset wave settings come from the group's policy, else one host a wave, no pause. */
export const RolloutStartBodySchema = v.strictObject({
  image: v.pipe(v.string(), v.minLength(1), v.maxLength(400)),
  toVersion: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  group: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  canaryHost: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  waveSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000))),
  pauseSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(86_400))),
});
export type RolloutStartBody = v.InferOutput<typeof RolloutStartBodySchema>;
