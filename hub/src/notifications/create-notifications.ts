import { ConfigError } from '../../../shared/config/config-error';
import type { Logger } from '../../../shared/logging/logger';
import type { HubDeps } from '../hub-deps';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { NotificationRuleStore } from '../store/notification-rule-store';
import { toPublicContainer } from '../watchers/public-container';
import { createNotificationService, type NotificationService, type NotificationServiceDeps } from './notification-service';
import { loadNotificationTriggers, NOTIFICATION_PREFIX } from './notification-triggers';
import { DEFAULT_OUTBOX_TIMING } from './outbox';
import { BUILT_IN_NOTIFICATION_PROVIDERS } from './providers/index';

export interface NotificationParts {
  audit: AuditStore;
  rules: NotificationRuleStore;
  containers: ContainerStore;
  logger: Logger;
  now: () => number;
  /** Told the outcome of every delivery attempt (metrics). */
  onDeliveryAttempt?: NotificationServiceDeps['onDeliveryAttempt'];
  /** Starts an update when a Home Assistant user presses Install (mqtt); absent, no Install is offered. */
  onInstall?: ((containerId: string) => Promise<void>) | undefined;
}

/**
 * The notification capability of a hub: the portable provider types plus the runtime's own
 * (deps.notificationProviders), the triggers of DD_NOTIFICATION_* checked against them (a
 * ConfigError naming the variable stops start-up), and the service around them.
 */
export function createNotifications(deps: HubDeps, parts: NotificationParts): NotificationService {
  const logger = parts.logger.child('notifications');
  const runtimeProviders =
    deps.notificationProviders?.({
      logger,
      audit: (record) => parts.audit.append(record),
      containers: async () => parts.containers.all().map(toPublicContainer),
      onInstall: parts.onInstall,
    }) ?? [];
  const byType = new Map([...BUILT_IN_NOTIFICATION_PROVIDERS, ...runtimeProviders].map((definition) => [definition.type, definition]));
  const triggers = loadNotificationTriggers(deps.config.notifications.triggers, [...byType.values()], NOTIFICATION_PREFIX);
  if (new Set(triggers.map((trigger) => trigger.id)).size !== triggers.length) {
    throw new ConfigError(NOTIFICATION_PREFIX, 'two notification triggers share one id');
  }
  return createNotificationService({
    storage: deps.storage,
    logger,
    triggers,
    rules: parts.rules,
    audit: parts.audit,
    fetch: deps.notificationFetch ?? ((input, init) => fetch(input, init)),
    now: parts.now,
    timing: { ...DEFAULT_OUTBOX_TIMING, ...deps.notificationTiming, timeoutMs: deps.config.notifications.timeoutMs },
    onDeliveryAttempt: parts.onDeliveryAttempt,
  });
}
