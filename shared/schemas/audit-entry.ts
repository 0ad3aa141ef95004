import * as v from 'valibot';

/** Every audit action type of http-interface §4.10. */
export const AUDIT_ACTIONS = [
  'update-available',
  'update-applied',
  'update-applied-dryrun',
  'update-failed',
  'notification-delivery-failed',
  'container-update',
  'security-alert',
  'security-scan-skipped',
  'scanner-asset-pull-started',
  'scanner-asset-pull-succeeded',
  'scanner-asset-pull-failed',
  'scanner-asset-warm-started',
  'scanner-asset-warm-succeeded',
  'scanner-asset-warm-failed',
  'agent-disconnect',
  'container-unhealthy',
  'maturity-cleared',
  'container-added',
  'container-removed',
  'rollback',
  'preview',
  'container-start',
  'container-stop',
  'container-restart',
  'webhook-watch',
  'webhook-watch-container',
  'webhook-update',
  'hook-configured',
  'hook-pre-success',
  'hook-pre-failed',
  'hook-post-success',
  'hook-post-failed',
  'auto-rollback',
  'auth-login',
  'env-reveal',
  'debug-dump',
  'auto-update-blocked',
  'update-policy-override-set',
  'update-policy-override-cleared',
  'group-policy-set',
  'group-policy-cleared',
  'label-override-set',
  'label-override-cleared',
  'update-approved',
  'update-rejected',
  'update-deferred',
  'mqtt-command-update',
  'api-key-created',
  'api-key-revoked',
  'api-key-auth-failed',
  // Beyond http-interface §4.10's list: the edge key registry of decisions §6 is audited like API keys.
  'edge-key-created',
  'edge-key-revoked',
  // Beyond http-interface §4.10's list: the outcome of a dependency-group update (its operations are audited one by one too).
  'dependency-group-update',
  // Beyond http-interface §4.10's list (docs/updates.md "Compose files"): an update brought the container's compose file to the new image.
  'compose-file-updated',
  // Beyond http-interface §4.10's list (docs/group-policies.md): a staged rollout started, passed a wave, halted, ended; `status` says which.
  'rollout',
  // Beyond http-interface §4.10's list (docs/updates.md "Self-update"): the hub updated its own container, or rolled it back.
  'self-update',
  // Beyond http-interface §4.10's list (docs/http-interface.md §4.10): PATCH (or PUT) /api/v1/settings changed a setting.
  'settings-changed',
  // Beyond http-interface §4.10's list (docs/icons.md): DELETE /api/v1/icons/cache emptied the icon cache.
  'icon-cache-cleared',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One audit entry (http-interface §2.10). Optional fields are absent when they do not apply. */
export const AuditEntrySchema = v.object({
  id: v.string(),
  timestamp: v.pipe(v.string(), v.isoTimestamp()),
  action: v.picklist(AUDIT_ACTIONS),
  containerName: v.optional(v.string()),
  containerImage: v.optional(v.string()),
  fromVersion: v.optional(v.string()),
  toVersion: v.optional(v.string()),
  triggerName: v.optional(v.string()),
  status: v.optional(v.string()),
  details: v.optional(v.string()),
});
export type AuditEntry = v.InferOutput<typeof AuditEntrySchema>;

/** What a caller records; the store assigns id and timestamp. */
export type AuditRecord = Omit<AuditEntry, 'id' | 'timestamp'>;
