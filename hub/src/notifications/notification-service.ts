import type { Storage } from 'unstorage';
import { imageOf } from '../../../shared/containers/container-record';
import type { Logger } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { NotificationRuleId } from '../../../shared/schemas/notification-rule';
import type { AgentNotificationEvent } from '../agents/agent-events';
import type { ScheduledJob, Scheduler } from '../schedule/scheduler';
import type { AuditStore } from '../store/audit-store';
import { createNotificationBellStore, type NotificationBellStore } from '../store/notification-bell-store';
import { createNotificationDigestStore } from '../store/notification-digest-store';
import { createNotificationOnceStore } from '../store/notification-once-store';
import { createNotificationOutboxStore } from '../store/notification-outbox-store';
import type { NotificationRuleStore } from '../store/notification-rule-store';
import { createSerialQueue } from '../store/validated-storage';
import { toPublicContainer } from '../watchers/public-container';
import type { BellDeps } from './bell';
import { type AppliedChange, inventoryEvents } from './inventory-events';
import {
  createDispatcher,
  type NotificationEvent,
  type NotificationExtras,
  templateScope,
  templatesFor,
} from './notification-dispatcher';
import type { NotificationTrigger } from './notification-triggers';
import { createOutbox, type DeliveryOutcome, type Outbox, type OutboxDeps, type OutboxTiming } from './outbox';
import { createTemplateRenderer } from './template';

export interface UpdateAppliedInput {
  container: Container;
  fromVersion?: string | undefined;
  toVersion?: string | undefined;
  /** The action trigger that ran the update. */
  triggerName?: string | undefined;
  operationId?: string | undefined;
}

export interface UpdateFailedInput extends UpdateAppliedInput {
  error: string;
  /** `failed` or `rolled-back` (http-interface §2.6). */
  status?: string | undefined;
}

export interface SecurityAlertInput {
  container: Container;
  critical: number;
  high: number;
}

export interface AgentEventInput {
  agent: string;
  /** Why the connection ended (agent-disconnect), as the edge link tells it. */
  reason?: string | undefined;
  /** The caller wrote the agent-disconnect audit entry itself (the edge hub does). */
  audited?: boolean | undefined;
}

/**
 * The notification capability: the configured triggers, the outbox, the bell's read state, and
 * the entry points that raise the eight events of http-interface §6.3. Each entry point writes the event's
 * audit entry (where http-interface §4.10 has an action for it) and routes the event; none throws, so a
 * notification problem never fails the operation that raised it.
 */
export interface NotificationService {
  readonly triggers: readonly NotificationTrigger[];
  trigger(id: string): NotificationTrigger | undefined;
  /**
   * A configuration reload (docs/configuration-file.md): the triggers replaced, digest schedules
   * re-armed, the old triggers' transports closed. Entries already in the outbox go to the new
   * trigger of their id, or dead-letter when it is gone.
   */
  replaceTriggers(next: readonly NotificationTrigger[]): Promise<void>;
  readonly outbox: Outbox;
  /** Attempts before dead-letter (shown on outbox entries). */
  readonly maxAttempts: number;
  readonly bell: BellDeps;
  load(): Promise<void>;
  start(): void;
  stop(): Promise<void>;

  /** Called by applyInventory with every record it wrote: update-available, maturity-cleared, container-unhealthy. */
  inventoryApplied(changes: readonly AppliedChange[]): Promise<void>;
  /** Update operations call these when an update succeeds, or fails or is rolled back. */
  updateApplied(input: UpdateAppliedInput): Promise<void>;
  updateFailed(input: UpdateFailedInput): Promise<void>;
  /** A scan found critical or high vulnerabilities. */
  securityAlert(input: SecurityAlertInput): Promise<void>;
  /** The edge link (or a listen-mode agent client) calls these when an agent's connection ends or comes back. */
  agentDisconnected(input: AgentEventInput): Promise<void>;
  agentReconnected(input: AgentEventInput): Promise<void>;
  /** Agent events (connect, disconnect) from the agent directory, subscribed by the composition root at start. */
  agentEvent(event: AgentNotificationEvent): Promise<void>;

  /** A manual run (http-interface §4.7, §4.8): the update-available simple message for this container, delivered now. */
  runTrigger(trigger: NotificationTrigger, container: Container): Promise<DeliveryOutcome>;
  /** Sends a digest trigger's collected items now (its CRON does this on schedule). */
  flushDigest(triggerId: string): Promise<void>;
  render(source: string, scope: Readonly<Record<string, unknown>>): string;
}

export interface NotificationServiceDeps {
  storage: Storage;
  logger: Logger;
  triggers: readonly NotificationTrigger[];
  rules: NotificationRuleStore;
  audit: AuditStore;
  fetch: typeof fetch;
  now: () => number;
  timing: OutboxTiming;
  /** Told the outcome of every delivery attempt (metrics). */
  onDeliveryAttempt?: OutboxDeps['onAttempt'];
  /** The durable schedules: outbox retries and digest sends. */
  schedule: Pick<Scheduler, 'job'>;
  /** The open approval of a container's candidate (docs/approvals.md), shown to templates as `container.approval`. */
  approvalOf?: ((container: Container) => { id: string; state: string } | undefined) | undefined;
  /**
   * The latest vulnerability scan of a container (docs/security-scanning.md), shown to templates as
   * `container.security`: `status`, the counts, and what the pending update fixes and introduces.
   */
  securityOf?: ((container: Container) => TemplateSecurity | undefined) | undefined;
  /**
   * The pending target's release notes from the release notes cache (docs/release-notes.md), shown
   * to templates as `container.releaseNotes`; never fetched at send time, absent when not cached.
   */
  releaseNotesOf?: ((container: Container) => TemplateReleaseNotes | undefined) | undefined;
}

/** `container.releaseNotes` in templates: the target's release, its body cut to a plain-text excerpt. */
export interface TemplateReleaseNotes {
  tag: string;
  title: string;
  url: string;
  excerpt: string;
}

/** `container.security` in templates: counts, and the update's delta as text (`DSA-1 (openssl, critical), …`). */
export interface TemplateSecurity {
  status: string;
  critical: number;
  high: number;
  medium: number;
  low: number;
  unknown: number;
  fixed: string;
  introduced: string;
  fixedCount: number;
  introducedCount: number;
}

export function createNotificationService(deps: NotificationServiceDeps): NotificationService {
  const { logger, now } = deps;
  // One array, replaced in place by a reload: the dispatcher and readers of `triggers` hold it.
  const triggers: NotificationTrigger[] = [...deps.triggers];
  const storeLogger = logger.child('store');
  const once = createNotificationOnceStore(deps.storage, storeLogger);
  const digests = createNotificationDigestStore(deps.storage, storeLogger);
  const bellRead: NotificationBellStore = createNotificationBellStore(deps.storage, storeLogger);
  const outboxStore = createNotificationOutboxStore(deps.storage, storeLogger);
  let byId = new Map(triggers.map((trigger) => [trigger.id, trigger]));
  const render = createTemplateRenderer();
  const rule = (id: NotificationRuleId) => {
    const found = deps.rules.get(id);
    if (!found) throw new Error(`no notification rule ${id}`);
    return found;
  };
  const dispatcher = createDispatcher({ rule, triggers, once, digests, render, now });
  const audit = (record: AuditRecord) => deps.audit.append(record);
  const outbox = createOutbox({
    store: outboxStore,
    trigger: (id) => byId.get(id),
    fetch: deps.fetch,
    now,
    timing: deps.timing,
    logger: logger.child('notifications.outbox'),
    audit,
    onAttempt: deps.onDeliveryAttempt,
    schedule: deps.schedule,
  });
  // Events are routed one at a time: two watchers' cycles must not both see a version as new.
  const serial = createSerialQueue();
  const digestJobs: ScheduledJob[] = [];
  let started = false;

  function armDigests(): void {
    for (const trigger of triggers) {
      if (trigger.settings.mode !== 'digest') continue;
      // A send that fell due while the hub was down goes out once at start (its items are stored).
      digestJobs.push(
        deps.schedule.job(
          `notifications.digest.${trigger.id}`,
          () =>
            service
              .flushDigest(trigger.id)
              .catch((error: unknown) => logger.error('digest failed', { trigger: trigger.id, error: String(error) })),
          { cron: trigger.settings.cron },
        ),
      );
    }
  }

  function emit(event: NotificationEvent): Promise<void> {
    return serial(async () => {
      try {
        await outbox.enqueue(await dispatcher.dispatch(event));
      } catch (error) {
        logger.error('routing a notification failed', { event: event.event, error: String(error) });
      }
    });
  }

  /** Writes the audit entry, then routes; a failed audit write is logged and the event still goes out. */
  async function raise(record: AuditRecord | undefined, event: NotificationEvent): Promise<void> {
    if (record)
      await audit(record).catch((error: unknown) => logger.error('audit write failed', { error: String(error) }));
    await emit(event);
  }

  const versions = (input: UpdateAppliedInput) => ({
    ...(input.fromVersion !== undefined && { fromVersion: input.fromVersion }),
    ...(input.toVersion !== undefined && { toVersion: input.toVersion }),
  });

  const service: NotificationService = {
    triggers,
    trigger: (id) => byId.get(id),
    async replaceTriggers(next) {
      // After routing in progress: an event is dispatched to one set of triggers, not half of each.
      const old = await serial(async () => {
        const replaced = triggers.splice(0, triggers.length, ...next);
        byId = new Map(triggers.map((trigger) => [trigger.id, trigger]));
        for (const job of digestJobs.splice(0)) job.release();
        if (started) armDigests();
        return replaced;
      });
      await Promise.all(old.map((trigger) => trigger.transport.close?.().catch(() => undefined)));
      logger.info('notification triggers replaced', { triggers: triggers.map((trigger) => trigger.id) });
    },
    outbox,
    maxAttempts: deps.timing.maxAttempts,
    bell: { audit: deps.audit, rules: () => deps.rules.list(), read: bellRead },
    async load() {
      await Promise.all([once.load(), digests.load(), bellRead.load(), outboxStore.load()]);
    },
    start() {
      outbox.start();
      started = true;
      armDigests();
      if (triggers.length > 0)
        logger.debug('notification triggers ready', { triggers: triggers.map((trigger) => trigger.id) });
    },
    async stop() {
      for (const job of digestJobs.splice(0)) job.release();
      await serial(async () => undefined);
      await outbox.stop();
      await Promise.all(triggers.map((trigger) => trigger.transport.close?.().catch(() => undefined)));
    },

    async inventoryApplied(changes) {
      const events = inventoryEvents(changes);
      // Templates read `container.approval` ({id, state}) when the update waits for an approval,
      // `container.security` once the container was scanned, `container.releaseNotes` when cached.
      const withApproval = (container: Container): Container => {
        const approval = deps.approvalOf?.(container);
        const security = deps.securityOf?.(container);
        const releaseNotes = deps.releaseNotesOf?.(container);
        if (!approval && !security && !releaseNotes) return container;
        return Object.assign(
          {},
          container,
          approval ? { approval: { id: approval.id, state: approval.state } } : {},
          security ? { security } : {},
          releaseNotes ? { releaseNotes } : {},
        );
      };
      // With the maturity-cleared rule off, a lifted gate is announced the ordinary way.
      const clearedAsAvailable = !rule('maturity-cleared').enabled;
      const available = clearedAsAvailable
        ? [...events.updateAvailable, ...events.maturityCleared]
        : events.updateAvailable;
      // Shown (secrets redacted) only once a trigger is to be told about them (the dispatcher).
      if (available.length > 0)
        await emit({
          event: 'update-available',
          containers: available,
          present: (container) => withApproval(toPublicContainer(container)),
        });
      if (!clearedAsAvailable && events.maturityCleared.length > 0) {
        await emit({ event: 'maturity-cleared', containers: events.maturityCleared, present: toPublicContainer });
      }
      if (events.unhealthy.length > 0)
        await emit({ event: 'container-unhealthy', containers: events.unhealthy, present: toPublicContainer });
    },
    async updateApplied(input) {
      const { container } = input;
      await raise(
        {
          action: 'update-applied',
          containerName: container.name,
          containerImage: imageOf(container),
          ...versions(input),
          ...(input.triggerName !== undefined && { triggerName: input.triggerName }),
          ...(input.operationId !== undefined && { details: input.operationId }),
        },
        { event: 'update-applied', containers: [toPublicContainer(container)], extras: versions(input) },
      );
    },
    async updateFailed(input) {
      const { container } = input;
      await raise(
        {
          action: 'update-failed',
          containerName: container.name,
          containerImage: imageOf(container),
          ...versions(input),
          ...(input.triggerName !== undefined && { triggerName: input.triggerName }),
          status: input.status ?? 'failed',
          details: input.error.slice(0, 500),
        },
        {
          event: 'update-failed',
          containers: [toPublicContainer(container)],
          extras: { ...versions(input), error: input.error },
        },
      );
    },
    async securityAlert(input) {
      const { container } = input;
      await raise(
        {
          action: 'security-alert',
          containerName: container.name,
          containerImage: imageOf(container),
          details: `${input.critical} critical, ${input.high} high`,
        },
        {
          event: 'security-alert',
          containers: [toPublicContainer(container)],
          extras: { security: { critical: input.critical, high: input.high } },
        },
      );
    },
    async agentDisconnected(input) {
      const agent = { name: input.agent, ...(input.reason !== undefined && { reason: input.reason }) };
      await raise(
        input.audited
          ? undefined
          : { action: 'agent-disconnect', details: input.reason ? `${input.agent}: ${input.reason}` : input.agent },
        { event: 'agent-disconnect', containers: [], extras: { agent } },
      );
    },
    agentEvent(event) {
      return event.event === 'agent-disconnect'
        ? service.agentDisconnected({ agent: event.agent.name, audited: true })
        : service.agentReconnected({ agent: event.agent.name });
    },
    async agentReconnected(input) {
      // http-interface §4.10 has no audit action for a reconnect: routed only.
      await raise(undefined, { event: 'agent-reconnect', containers: [], extras: { agent: { name: input.agent } } });
    },

    async runTrigger(trigger, container) {
      const shown = toPublicContainer(container);
      const templates = templatesFor(rule('update-available'), trigger);
      const scope = templateScope('update-available', trigger, [shown]);
      return outbox.deliverNow({
        triggerId: trigger.id,
        event: 'update-available',
        kind: 'simple',
        title: render(templates.simpleTitle, scope),
        body: render(templates.simpleBody, scope),
        containers: [shown],
        manual: true,
      });
    },
    async flushDigest(triggerId) {
      const trigger = byId.get(triggerId);
      if (!trigger) return;
      await serial(async () => outbox.enqueue(await dispatcher.digest(trigger)));
    },
    render,
  };
  return service;
}

export type { NotificationExtras };
