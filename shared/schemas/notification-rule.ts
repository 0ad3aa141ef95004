import * as v from 'valibot';

export const NOTIFICATION_RULE_IDS = [
  'update-available',
  'update-applied',
  'update-failed',
  'security-alert',
  'agent-disconnect',
  'agent-reconnect',
  'container-unhealthy',
  'maturity-cleared',
] as const;
export type NotificationRuleId = (typeof NOTIFICATION_RULE_IDS)[number];

export const BELL_THRESHOLDS = ['all', 'major', 'minor', 'patch'] as const;

const TEMPLATE_TEXT_MAX = 4096;
const TemplateTextSchema = v.pipe(v.string(), v.maxLength(TEMPLATE_TEXT_MAX));

export const RuleTemplatesSchema = v.strictObject({
  simpleTitle: v.optional(TemplateTextSchema),
  simpleBody: v.optional(TemplateTextSchema),
  batchTitle: v.optional(TemplateTextSchema),
});

/** Trigger ids are `<type>.<name>` (http-interface §2.12). */
export const TriggerIdSchema = v.pipe(
  v.string(),
  v.maxLength(128),
  v.regex(/^[a-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'must be a trigger id of the form <type>.<name>'),
);

/** Notification rule (http-interface §2.8). */
export const NotificationRuleSchema = v.object({
  id: v.picklist(NOTIFICATION_RULE_IDS),
  name: v.string(),
  description: v.string(),
  enabled: v.boolean(),
  triggers: v.array(TriggerIdSchema),
  bellEnabled: v.boolean(),
  bellThreshold: v.picklist(BELL_THRESHOLDS),
  templates: v.record(TriggerIdSchema, RuleTemplatesSchema),
});
export type NotificationRule = v.InferOutput<typeof NotificationRuleSchema>;

/** PATCH body: only the given fields change (http-interface §4.9). */
export const NotificationRulePatchSchema = v.strictObject({
  enabled: v.optional(v.boolean()),
  triggers: v.optional(v.pipe(v.array(TriggerIdSchema), v.maxLength(100))),
  bellEnabled: v.optional(v.boolean()),
  bellThreshold: v.optional(v.picklist(BELL_THRESHOLDS)),
  templates: v.optional(v.record(TriggerIdSchema, RuleTemplatesSchema)),
});
export type NotificationRulePatch = v.InferOutput<typeof NotificationRulePatchSchema>;

type RuleDefaults = Pick<NotificationRule, 'id' | 'name' | 'description' | 'enabled' | 'bellEnabled'>;

/** The eight defaults with the initial values of http-interface §2.8. */
const RULE_DEFAULTS: readonly RuleDefaults[] = [
  {
    id: 'update-available',
    name: 'Update available',
    description: 'A newer tag or digest was detected for a container.',
    enabled: true,
    bellEnabled: true,
  },
  {
    id: 'update-applied',
    name: 'Update applied',
    description: 'A container was updated successfully.',
    enabled: true,
    bellEnabled: true,
  },
  {
    id: 'update-failed',
    name: 'Update failed',
    description: 'An update failed or was rolled back.',
    enabled: true,
    bellEnabled: true,
  },
  {
    id: 'security-alert',
    name: 'Security alert',
    description: 'A scan found critical or high vulnerabilities.',
    enabled: true,
    bellEnabled: true,
  },
  {
    id: 'agent-disconnect',
    name: 'Agent disconnected',
    description: 'A remote agent lost its connection to the hub.',
    enabled: false,
    bellEnabled: true,
  },
  {
    id: 'agent-reconnect',
    name: 'Agent reconnected',
    description: 'A remote agent connected again.',
    enabled: false,
    bellEnabled: false,
  },
  {
    id: 'container-unhealthy',
    name: 'Container unhealthy',
    description: 'A container health check turned unhealthy.',
    enabled: false,
    bellEnabled: false,
  },
  {
    id: 'maturity-cleared',
    name: 'Maturity cleared',
    description: 'A held update reached its minimum age.',
    enabled: true,
    bellEnabled: true,
  },
];

export function defaultNotificationRules(): NotificationRule[] {
  return RULE_DEFAULTS.map((rule) => ({ ...rule, triggers: [], bellThreshold: 'all', templates: {} }));
}
