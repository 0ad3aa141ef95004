import type { AgentEvents } from '../agents/agent-events';
import type { ApprovalService } from '../approvals/approval-service';
import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { ReleaseNotesService } from '../release-notes/release-notes-service';
import { templateReleaseNotes } from '../release-notes/template-release-notes';

import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { NotificationRuleStore } from '../store/notification-rule-store';
import { type ConfiguredNotifications, createNotifications } from './create-notifications';
import type { TemplateSecurity } from './notification-service';

export type NotificationsCapabilityDeps = Pick<
  HubFoundation,
  'input' | 'config' | 'storage' | 'logger' | 'now' | 'metrics' | 'scheduler'
> & {
  audit: AuditStore;
  notificationRules: NotificationRuleStore;
  containers: ContainerStore;
  approvals: ApprovalService;
  releaseNotes: ReleaseNotesService;
  agentEvents: AgentEvents;
  /** Home Assistant's Install command: a late binding, the updates it queues notify through these. */
  installUpdate: (containerId: string) => Promise<void>;
  /** A container's last scan for the templates: a late binding, the scanner notifies through these. */
  securityOf: (containerId: string) => TemplateSecurity | undefined;
};

/** Notifications: the triggers of DD_NOTIFICATION_*, their rules and the outbox that delivers them. */
export function notificationsCapability(
  deps: NotificationsCapabilityDeps,
): Capability<{ notifications: ConfiguredNotifications }> {
  const { input, metrics, approvals, releaseNotes } = deps;
  const notifications = createNotifications({
    storage: deps.storage,
    config: deps.config,
    runtimeProviders: input.notificationProviders,
    fetch: input.notificationFetch,
    timing: input.notificationTiming,
    audit: deps.audit,
    rules: deps.notificationRules,
    containers: deps.containers,
    logger: deps.logger,
    now: deps.now,
    onDeliveryAttempt: (trigger, result) => metrics.triggerDeliveries.inc({ trigger, result }),
    onInstall: deps.installUpdate,
    schedule: deps.scheduler,
    approvalOf: (container) => approvals.openFor(container),
    securityOf: (container) => deps.securityOf(container.id),
    releaseNotesOf: (container) => templateReleaseNotes(releaseNotes.cachedRelease(container)),
  });
  metrics.bindSources({ outboxStatuses: () => notifications.outbox.list().map((entry) => entry.status) });
  return {
    parts: { notifications },
    load: () => notifications.load(),
    start() {
      // Outbox entries left by the previous run are delivered now; agent events are routed from here on.
      notifications.start();
      deps.agentEvents.on((event) => {
        void notifications.agentEvent(event);
      });
    },
    stop: () => notifications.stop(),
  };
}
