import * as v from 'valibot';
import { UPDATE_MODES } from './settings';
import { MATURITY_MODES } from './update-policy';

/**
 * Group policies (docs/group-policies.md): the update policy of a group of containers (`dd.group`,
 * else the compose project) or of an agent (a host: an edge or listen agent, `__local__` for the
 * hub's own watchers). A container's label and its label override win over them; a group's policy
 * wins over its agent's, which wins over the hub's settings.
 */
export const GROUP_POLICY_SCOPES = ['group', 'agent'] as const;
export type GroupPolicyScope = (typeof GROUP_POLICY_SCOPES)[number];

/** A group or agent name as the URL carries it: what dd.group, compose and agent names hold, bounded. */
export const PolicyNameSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(128), v.regex(/^[^\s/\\]+$/u));

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const ClockSchema = v.pipe(v.string(), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (UTC)'));

/** When automatic updates and rollout waves may start, in UTC; `end` before `start` crosses midnight. */
export const ScheduleWindowSchema = v.strictObject({
  days: v.optional(v.pipe(v.array(v.picklist(WEEKDAYS)), v.minLength(1), v.maxLength(7))),
  start: ClockSchema,
  end: ClockSchema,
});
export type ScheduleWindow = v.InferOutput<typeof ScheduleWindowSchema>;

/** How the same image on many hosts is updated: one canary host, then waves of `waveSize` hosts. */
export const RolloutPolicySchema = v.strictObject({
  /** The canary's host (an agent name, or `__local__:<watcher>`); the first host by name when absent or not running the image. */
  canaryHost: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  /** Hosts per wave after the canary. */
  waveSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)), 1),
  /** The pause between two waves (after the canary too). */
  pauseSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(86_400)), 0),
  /** The auto-update policy starts a rollout for this group instead of updating each container by itself. */
  automatic: v.optional(v.boolean(), false),
});
export type RolloutPolicy = v.InferOutput<typeof RolloutPolicySchema>;

/** PUT body: the whole policy (absent fields are not set: the next level decides them). */
export const GroupPolicyBodySchema = v.strictObject({
  updateMode: v.optional(v.picklist(UPDATE_MODES)),
  maturityMode: v.optional(v.picklist(MATURITY_MODES)),
  maturityMinAgeDays: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(365))),
  windows: v.optional(v.pipe(v.array(ScheduleWindowSchema), v.maxLength(14))),
  approvalRequired: v.optional(v.boolean()),
  rollout: v.optional(RolloutPolicySchema),
});
export type GroupPolicyBody = v.InferOutput<typeof GroupPolicyBodySchema>;

export const GroupPolicySchema = v.object({
  scope: v.picklist(GROUP_POLICY_SCOPES),
  name: v.string(),
  updateMode: v.optional(v.picklist(UPDATE_MODES)),
  maturityMode: v.optional(v.picklist(MATURITY_MODES)),
  maturityMinAgeDays: v.optional(v.number()),
  windows: v.optional(v.array(ScheduleWindowSchema)),
  approvalRequired: v.optional(v.boolean()),
  rollout: v.optional(
    v.object({
      canaryHost: v.optional(v.string()),
      waveSize: v.number(),
      pauseSeconds: v.number(),
      automatic: v.boolean(),
    }),
  ),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type GroupPolicy = v.InferOutput<typeof GroupPolicySchema>;

/** Where an effective value comes from, most specific first. */
export const POLICY_SOURCES = ['label', 'override', 'group-policy', 'agent-policy', 'setting', 'default'] as const;
export type PolicySource = (typeof POLICY_SOURCES)[number];

const effective = <T extends v.GenericSchema>(value: T) => v.object({ value, source: v.picklist(POLICY_SOURCES) });

/** GET /containers/{id}/group-policy: the policies that apply to the container and what they decide. */
export const EffectiveGroupPolicySchema = v.object({
  containerId: v.string(),
  group: v.nullable(v.string()),
  host: v.string(),
  policies: v.array(GroupPolicySchema),
  effective: v.object({
    updateMode: effective(v.picklist(UPDATE_MODES)),
    approvalRequired: effective(v.boolean()),
    maturityMode: v.optional(effective(v.picklist(MATURITY_MODES))),
    maturityMinAgeDays: v.optional(effective(v.number())),
    windows: v.optional(effective(v.array(ScheduleWindowSchema))),
    rollout: v.optional(effective(GroupPolicySchema.entries.rollout.wrapped)),
  }),
});
export type EffectiveGroupPolicy = v.InferOutput<typeof EffectiveGroupPolicySchema>;
