import type { AuditAction, AuditEntry } from '../../../shared/schemas/audit-entry';
import type { NotificationRule, NotificationRuleId } from '../../../shared/schemas/notification-rule';
import type { AuditStore } from '../store/audit-store';
import type { NotificationBellStore } from '../store/notification-bell-store';
import { bellThresholdAllows, type UpdateLevel } from './update-threshold';

/**
 * Events with "audit-backed bell support" (http-interface §2.8): the ones with an audit action of their own.
 * agent-reconnect has none (http-interface §4.10), so it never shows in the bell whatever bellEnabled says.
 */
export const BELL_EVENTS: readonly (NotificationRuleId & AuditAction)[] = [
  'update-available',
  'update-applied',
  'update-failed',
  'security-alert',
  'agent-disconnect',
  'container-unhealthy',
  'maturity-cleared',
];

const LEVELS = new Set<string>(['major', 'minor', 'patch', 'digest', 'tag']);

export interface BellEntry {
  id: string;
  event: NotificationRuleId;
  timestamp: string;
  containerName?: string;
  containerImage?: string;
  fromVersion?: string;
  toVersion?: string;
  details?: string;
  read: boolean;
}

export interface BellDeps {
  audit: AuditStore;
  rules: () => NotificationRule[];
  read: NotificationBellStore;
}

/** The audit entries the bell shows: events of rules with bellEnabled, update-available filtered by bellThreshold. */
function bellAuditEntries(deps: BellDeps): AuditEntry[] {
  const rules = new Map(deps.rules().map((rule) => [rule.id, rule]));
  const actions = BELL_EVENTS.filter((event) => rules.get(event)?.bellEnabled);
  if (actions.length === 0) return [];
  const threshold = rules.get('update-available')?.bellThreshold ?? 'all';
  const { data } = deps.audit.query({ offset: 0, limit: Number.MAX_SAFE_INTEGER, actions });
  return data.filter((entry) => {
    if (entry.action !== 'update-available' || threshold === 'all') return true;
    // update-available entries record the update's level in details (apply-inventory).
    const level = entry.details !== undefined && LEVELS.has(entry.details) ? (entry.details as UpdateLevel) : undefined;
    return bellThresholdAllows(threshold, level);
  });
}

const view = (entry: AuditEntry, read: boolean): BellEntry => ({
  id: entry.id,
  event: entry.action as NotificationRuleId,
  timestamp: entry.timestamp,
  ...(entry.containerName !== undefined && { containerName: entry.containerName }),
  ...(entry.containerImage !== undefined && { containerImage: entry.containerImage }),
  ...(entry.fromVersion !== undefined && { fromVersion: entry.fromVersion }),
  ...(entry.toVersion !== undefined && { toVersion: entry.toVersion }),
  ...(entry.details !== undefined && { details: entry.details }),
  read,
});

/** The in-app bell, newest first, with its unread count. */
export function listBell(deps: BellDeps, query: { offset: number; limit: number; unreadOnly: boolean }) {
  const all = bellAuditEntries(deps).map((entry) => view(entry, deps.read.isRead(entry.id)));
  const unread = all.filter((entry) => !entry.read).length;
  const shown = query.unreadOnly ? all.filter((entry) => !entry.read) : all;
  const data = shown.slice(query.offset, query.offset + query.limit);
  return {
    data,
    total: shown.length,
    unread,
    limit: query.limit,
    offset: query.offset,
    hasMore: query.offset + data.length < shown.length,
  };
}

/** Marks entries read (all of them when `ids` is absent); answers the unread count left. */
export async function markBellRead(deps: BellDeps, ids: readonly string[] | undefined): Promise<{ unread: number }> {
  if (ids === undefined) {
    const newest = bellAuditEntries(deps)[0];
    if (newest) await deps.read.markAllRead(newest.id);
  } else {
    await deps.read.markRead(ids);
  }
  return { unread: bellAuditEntries(deps).filter((entry) => !deps.read.isRead(entry.id)).length };
}
