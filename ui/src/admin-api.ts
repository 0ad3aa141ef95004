// The administration routes the UI offers (agents' keys, API keys, audit, notifications, logs,
// settings), typed from the schemas that validate them: `import type` only, so nothing of valibot
// or the hub is bundled.
import type * as v from 'valibot';
import type { ApiKey, CreateApiKeyBody, CreatedApiKeySchema, RevokedApiKeysSchema } from '../../shared/schemas/api-key';
import type { Approval, ApprovalState } from '../../shared/schemas/approval';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { EdgeKeyResourceSchema, RegisteredEdgeKeySchema } from '../../shared/schemas/edge-key';
import type { LogEntry, LogLevel } from '../../shared/schemas/log-entry';
import type { NotificationRule, NotificationRulePatch } from '../../shared/schemas/notification-rule';
import type {
  NotificationPreviewSchema,
  OutboxEntryViewSchema,
  TriggerSchema,
} from '../../shared/schemas/notification-views';
import type { Settings, SettingsPatch } from '../../shared/schemas/settings';
import { call } from './api';

export type { ApiKey, Approval, ApprovalState, AuditEntry, LogEntry, LogLevel, NotificationRule, Settings };
export type EdgeKey = v.InferOutput<typeof EdgeKeyResourceSchema>;
export type CreatedApiKey = v.InferOutput<typeof CreatedApiKeySchema>;
export type RevokedApiKeys = v.InferOutput<typeof RevokedApiKeysSchema>;
export type OutboxEntry = v.InferOutput<typeof OutboxEntryViewSchema>;
export type Trigger = v.InferOutput<typeof TriggerSchema>;
export type NotificationPreview = v.InferOutput<typeof NotificationPreviewSchema>;
export type RuleTemplates = NotificationRule['templates'][string];

export interface AuditPage {
  data: AuditEntry[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}
export interface ApprovalPage {
  data: Approval[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}
export interface ApiKeyPage {
  data: ApiKey[];
  total: number;
  limit: number;
  hasMore: boolean;
  nextCursor?: string;
}

/** The confirmation tokens of http-interface §4.1 that these views send. */
const CONFIRM = { apiKeyRevoke: 'api-key-revoke' } as const;

const part = encodeURIComponent;
/** `type.name` ids address their routes as `/type/name`. */
const triggerPath = (id: string) => id.split('.').map(part).join('/');

export const adminApi = {
  edgeKeys: () => call<{ data: EdgeKey[]; total: number }>('/edge/keys'),
  registerEdgeKey: (body: { publicKey: string; label: string }) =>
    call<v.InferOutput<typeof RegisteredEdgeKeySchema>>('/edge/keys', { method: 'POST', body }),
  revokeEdgeKey: (keyId: string) => call<EdgeKey>(`/edge/keys/${part(keyId)}`, { method: 'DELETE' }),

  apiKeys: (cursor?: string) => call<ApiKeyPage>(`/api-keys?limit=200${cursor ? `&cursor=${part(cursor)}` : ''}`),
  createApiKey: (body: CreateApiKeyBody) => call<CreatedApiKey>('/api-keys', { method: 'POST', body }),
  revokeApiKey: (keyId: string) =>
    call<RevokedApiKeys>(`/api-keys/${part(keyId)}`, {
      method: 'DELETE',
      headers: { 'x-dd-confirm-action': CONFIRM.apiKeyRevoke },
    }),

  audit: (query: URLSearchParams) => call<AuditPage>(`/audit?${query}`),

  rules: () => call<{ data: NotificationRule[]; total: number }>('/notifications'),
  patchRule: (id: string, body: NotificationRulePatch) =>
    call<NotificationRule>(`/notifications/${part(id)}`, { method: 'PATCH', body }),
  previewRule: (id: string, triggerId: string, templates: RuleTemplates) =>
    call<NotificationPreview>(`/notifications/${part(id)}/preview`, { method: 'POST', body: { triggerId, templates } }),
  triggers: () => call<{ data: Trigger[]; total: number }>('/triggers'),
  runTrigger: (id: string) =>
    call<{ triggerId: string; delivered: true }>(`/triggers/${triggerPath(id)}`, { method: 'POST', body: {} }),
  outbox: () => call<{ data: OutboxEntry[]; total: number }>('/notifications/outbox'),
  retryOutbox: (id: string) => call<OutboxEntry>(`/notifications/outbox/${part(id)}/retry`, { method: 'POST' }),
  deleteOutbox: (id: string) => call<undefined>(`/notifications/outbox/${part(id)}`, { method: 'DELETE' }),

  logEntries: (query: URLSearchParams) => call<LogEntry[]>(`/log/entries?${query}`),
  logComponents: () => call<string[]>('/log/components'),

  approvals: (state: ApprovalState | undefined) =>
    call<ApprovalPage>(`/approvals?limit=200${state ? `&state=${state}` : ''}`),
  approvalSummary: () => call<Record<ApprovalState | 'total', number>>('/approvals/summary'),
  approve: (id: string) =>
    call<{ message: string; approval: Approval; operationId: string }>(`/approvals/${part(id)}/approve`, {
      method: 'POST',
    }),
  reject: (id: string, comment: string | undefined) =>
    call<Approval>(`/approvals/${part(id)}/reject`, { method: 'POST', body: comment ? { comment } : {} }),
  defer: (id: string, hours: number) =>
    call<Approval>(`/approvals/${part(id)}/defer`, { method: 'POST', body: { hours } }),

  settings: () => call<Settings>('/settings'),
  patchSettings: (body: SettingsPatch) => call<Settings>('/settings', { method: 'PATCH', body }),
};
