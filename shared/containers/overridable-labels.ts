// Plain data without valibot, so the web UI can import the list without bundling the schemas.

/**
 * The `dd.*` labels an override may set (docs/label-overrides.md): every label the hub reads, but
 * `dd.hook.pre` / `dd.hook.post`. Hooks are shell commands on the Docker host; setting them through
 * the API would turn a containers:update key into command execution, so they stay labels only.
 */
export const OVERRIDABLE_LABELS = [
  'dd.watch',
  'dd.watch.digest',
  'dd.tag.include',
  'dd.tag.exclude',
  'dd.tag.transform',
  'dd.link.template',
  'dd.display.name',
  'dd.display.icon',
  'dd.registry.lookup.image',
  'dd.group',
  'dd.webhook.enabled',
  'dd.updatePolicy.skipTags',
  'dd.updatePolicy.skipDigests',
  'dd.updatePolicy.snoozeUntil',
  'dd.updatePolicy.maturityMode',
  'dd.updatePolicy.maturityMinAgeDays',
  'dd.action.auto',
  'dd.action.include',
  'dd.action.exclude',
  'dd.notification.include',
  'dd.notification.exclude',
  'dd.depends_on',
  'dd.rollback.auto',
  'dd.rollback.window',
  'dd.update.approval',
  'dd.security.block-severity',
] as const;
export type OverridableLabel = (typeof OVERRIDABLE_LABELS)[number];
