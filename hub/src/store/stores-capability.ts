import { containerIdentity } from '../../../shared/update/update-clock';
import { type Capability, HOUSEKEEPING_EVERY_MS } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { HubMetrics } from '../metrics/hub-metrics';
import { type ApiKeyStore, createApiKeyStore } from './api-key-store';
import { type AuditStore, createAuditStore } from './audit-store';
import { type ContainerStore, createContainerStore } from './container-store';
import { createLabelOverrideStore, type LabelOverrideStore } from './label-override-store';
import { createNotificationRuleStore, type NotificationRuleStore } from './notification-rule-store';
import { createPreferencesStore, type PreferencesStore } from './preferences-store';
import { createSettingsStore, type SettingsStore } from './settings-store';

export interface StoreParts {
  audit: AuditStore;
  settings: SettingsStore;
  apiKeys: ApiKeyStore;
  notificationRules: NotificationRuleStore;
  containers: ContainerStore;
  labelOverrides: LabelOverrideStore;
  preferences: PreferencesStore;
}

/** The stores that depend on nothing but the runtime; loaded first, the API keys' last use flushed last. */
export function storesCapability(
  deps: Pick<HubFoundation, 'storage' | 'config' | 'now' | 'storeLogger' | 'metrics'>,
): Capability<StoreParts> {
  const { storage, now, storeLogger, metrics } = deps;
  const audit = countedAudit(createAuditStore(storage, deps.config.audit, now, storeLogger.child('audit')), metrics);
  const settings = createSettingsStore(storage, storeLogger);
  const apiKeys = createApiKeyStore(storage, now, storeLogger.child('api-keys'));
  const notificationRules = createNotificationRuleStore(storage, storeLogger);
  const containers = createContainerStore(storage, storeLogger.child('containers'));
  const labelOverrides = createLabelOverrideStore(storage, storeLogger.child('label-overrides'));
  const preferences = createPreferencesStore(storage, storeLogger);
  metrics.bindSources({
    containers: () => containers.all(),
    updateFirstSeenAt: (container) => containers.identityState(containerIdentity(container)).clock?.firstSeenAt,
  });
  return {
    parts: { audit, settings, apiKeys, notificationRules, containers, labelOverrides, preferences },
    async load() {
      await settings.load();
      await notificationRules.load();
      await audit.load();
      await apiKeys.load();
      await containers.load();
      await labelOverrides.load();
    },
    // Retention (DD_AUDIT_*) also holds on a hub that writes no audit entries for days.
    jobs: [
      {
        name: 'audit.retention',
        run: () => audit.prune(),
        recurrence: { everyMs: HOUSEKEEPING_EVERY_MS, jitterMs: 60_000 },
      },
    ],
    stop: () => apiKeys.flush(),
  };
}

/** Every writer of the audit trail counted in dd_audit_entries_total without each one remembering. */
function countedAudit(audit: AuditStore, metrics: HubMetrics): AuditStore {
  return {
    ...audit,
    append: async (record) => {
      const entry = await audit.append(record);
      metrics.auditEntries.inc({ action: entry.action });
      return entry;
    },
    appendMany: async (records) => {
      const added = await audit.appendMany(records);
      for (const entry of added) metrics.auditEntries.inc({ action: entry.action });
      return added;
    },
  };
}
