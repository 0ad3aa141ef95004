import type { Storage } from 'unstorage';
import { ConfigError } from '../../../shared/config/config-error';
import type { Logger } from '../../../shared/logging/logger';
import type { HubConfig } from '../config/hub-config';
import type { ProviderVariables } from '../config/provider-variables';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { NotificationRuleStore } from '../store/notification-rule-store';
import { toPublicContainer } from '../watchers/public-container';
import type { AnyNotificationProviderDefinition, NotificationProviderHooks } from './notification-provider';
import {
  createNotificationService,
  type NotificationService,
  type NotificationServiceDeps,
} from './notification-service';
import { loadNotificationTriggers, NOTIFICATION_PREFIX, type NotificationTrigger } from './notification-triggers';
import { DEFAULT_OUTBOX_TIMING, type OutboxTiming } from './outbox';
import { BUILT_IN_NOTIFICATION_PROVIDERS } from './providers/index';

export interface NotificationParts {
  storage: Storage;
  config: Pick<HubConfig, 'notifications'>;
  /**
   * Trigger types of this runtime besides the portable ones of providers/index.ts (Node: smtp,
   * mqtt, which need sockets); a type given here replaces a built-in one of the same name.
   */
  runtimeProviders: ((hooks: NotificationProviderHooks) => AnyNotificationProviderDefinition[]) | undefined;
  /** The fetch triggers deliver with; the global fetch when absent. */
  fetch: typeof fetch | undefined;
  /** The outbox's retry schedule (attempts, backoff, jitter); shorter in tests. */
  timing: Partial<Omit<OutboxTiming, 'timeoutMs'>> | undefined;
  audit: AuditStore;
  rules: NotificationRuleStore;
  containers: ContainerStore;
  logger: Logger;
  now: () => number;
  /** Told the outcome of every delivery attempt (metrics). */
  onDeliveryAttempt?: NotificationServiceDeps['onDeliveryAttempt'];
  /** Starts an update when a Home Assistant user presses Install (mqtt); absent, no Install is offered. */
  onInstall?: ((containerId: string) => Promise<void>) | undefined;
  /** The durable schedules (outbox retries, digest sends). */
  schedule: NotificationServiceDeps['schedule'];
  approvalOf?: NotificationServiceDeps['approvalOf'];
  securityOf?: NotificationServiceDeps['securityOf'];
  releaseNotesOf?: NotificationServiceDeps['releaseNotesOf'];
}

/** The service, and how a configuration reload builds triggers with the same provider types (ConfigError when refused). */
export interface ConfiguredNotifications extends NotificationService {
  buildTriggers(groups: readonly ProviderVariables[]): NotificationTrigger[];
}

/**
 * The notification capability of a hub: the portable provider types plus the runtime's own
 * (runtimeProviders), the triggers of DD_NOTIFICATION_* checked against them (a
 * ConfigError naming the variable stops start-up), and the service around them.
 */
export function createNotifications(parts: NotificationParts): ConfiguredNotifications {
  const logger = parts.logger.child('notifications');
  const runtimeProviders =
    parts.runtimeProviders?.({
      logger,
      audit: (record) => parts.audit.append(record),
      containers: async () => parts.containers.all().map(toPublicContainer),
      onInstall: parts.onInstall,
    }) ?? [];
  const byType = new Map(
    [...BUILT_IN_NOTIFICATION_PROVIDERS, ...runtimeProviders].map((definition) => [definition.type, definition]),
  );
  const buildTriggers = (groups: readonly ProviderVariables[]) => {
    const built = loadNotificationTriggers(groups, [...byType.values()], NOTIFICATION_PREFIX);
    if (new Set(built.map((trigger) => trigger.id)).size !== built.length) {
      throw new ConfigError(NOTIFICATION_PREFIX, 'two notification triggers share one id');
    }
    return built;
  };
  const triggers = buildTriggers(parts.config.notifications.triggers);
  const service = createNotificationService({
    storage: parts.storage,
    logger,
    triggers,
    rules: parts.rules,
    audit: parts.audit,
    fetch: parts.fetch ?? ((input, init) => fetch(input, init)),
    now: parts.now,
    timing: { ...DEFAULT_OUTBOX_TIMING, ...parts.timing, timeoutMs: parts.config.notifications.timeoutMs },
    onDeliveryAttempt: parts.onDeliveryAttempt,
    schedule: parts.schedule,
    approvalOf: parts.approvalOf,
    securityOf: parts.securityOf,
    releaseNotesOf: parts.releaseNotesOf,
  });
  return Object.assign(service, { buildTriggers });
}
