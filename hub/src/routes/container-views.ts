import type { AuditEntry } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';

/** GET /api/v1/containers/summary (http-interface §4.8). */
export function containerSummary(all: readonly Container[]) {
  const running = all.filter((c) => c.status === 'running').length;
  return {
    containers: {
      total: all.length,
      running,
      stopped: all.length - running,
      updatesAvailable: all.filter((c) => c.updateAvailable).length,
    },
    // Containers with critical or high findings; nothing is scanned until a scanner is configured.
    security: { issues: 0 },
    hotUpdates: all.filter((c) => c.updateAvailable && c.updateMaturityLevel === 'hot').length,
    matureUpdates: all.filter(
      (c) => c.updateAvailable && (c.updateMaturityLevel === 'mature' || c.updateMaturityLevel === 'established'),
    ).length,
  };
}

const STATUS_OF: Partial<Record<AuditEntry['action'], 'updated' | 'pending' | 'failed'>> = {
  'update-applied': 'updated',
  'update-available': 'pending',
  'update-failed': 'failed',
};

/**
 * GET /api/v1/containers/recent-status: from the last audit entries (newest first), by name (the
 * last write wins) and by identity `agent::watcher::name` for the containers that carry that name now.
 */
export function recentStatus(recent: readonly AuditEntry[], all: readonly Container[]) {
  const statuses: Record<string, string> = {};
  const statusesByIdentity: Record<string, string> = {};
  for (const entry of [...recent].reverse()) {
    const status = STATUS_OF[entry.action];
    if (!status || !entry.containerName) continue;
    statuses[entry.containerName] = status;
    for (const container of all.filter((c) => c.name === entry.containerName)) {
      statusesByIdentity[
        containerIdentity({ agent: container.agent, watcher: container.watcher, name: container.name })
      ] = status;
    }
  }
  return { statuses, statusesByIdentity };
}
