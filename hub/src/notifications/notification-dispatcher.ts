import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Container } from '../../../shared/schemas/container';
import type { NotificationRule, NotificationRuleId } from '../../../shared/schemas/notification-rule';
import { containerIdentity } from '../../../shared/update/update-clock';
import type { DigestItem, NotificationDigestStore } from '../store/notification-digest-store';
import type { NotificationOnceStore } from '../store/notification-once-store';
import { routeContainer } from './container-routing';
import { CORE_DEFAULT_TEMPLATES } from './default-templates';
import type { DefaultTemplates } from './notification-provider';
import type { NotificationTrigger } from './notification-triggers';
import type { NewDelivery } from './outbox';
import type { TemplateValue } from './template-evaluate';
import { thresholdAllows, updateLevel } from './update-threshold';

/** Template values besides `container` and `containers` (see default-templates.ts). */
export type NotificationExtras = Readonly<Record<string, TemplateValue>>;

/** One notification event (http-interface §6.3), with the containers it concerns (as the API shows them). */
export interface NotificationEvent {
  event: NotificationRuleId;
  containers: readonly Container[];
  extras?: NotificationExtras;
  /**
   * How a container the event tells a trigger about is shown (its public form, with its approval…),
   * applied only to those that pass the trigger's routing, threshold and ONCE: a watch cycle hands
   * every container with an update, and nearly all of them were told before (issue 18).
   */
  present?: ((container: Container) => Container) | undefined;
}

/** Events about one version of an update: ONCE applies to them. */
const VERSION_EVENTS = new Set<NotificationRuleId>(['update-available', 'maturity-cleared']);

export type Render = (source: string, scope: Readonly<Record<string, TemplateValue>>) => string;

export interface DispatcherDeps {
  rule(id: NotificationRuleId): NotificationRule;
  triggers: readonly NotificationTrigger[];
  once: NotificationOnceStore;
  digests: NotificationDigestStore;
  render: Render;
  now: () => number;
}

const identityOf = (container: Container) =>
  containerIdentity({ agent: container.agent, watcher: container.watcher, name: container.name });
const versionOf = (container: Container) =>
  container.updateKind.kind === 'unknown' ? undefined : container.updateKind.remoteValue;

/**
 * The templates a trigger uses for an event, each field on its own (http-interface §4.9): the rule's saved
 * override for the trigger, then the trigger's default. A trigger's default is the core's template
 * of the event; for update-available (the event SIMPLETITLE, SIMPLEBODY and BATCHTITLE have always
 * meant) the provider's own defaults and the trigger's configured templates come on top of it.
 */
export function templatesFor(
  rule: NotificationRule,
  trigger: NotificationTrigger,
  given: { [K in keyof DefaultTemplates]?: string | undefined } = {},
): DefaultTemplates {
  const core = CORE_DEFAULT_TEMPLATES[rule.id];
  const triggerDefault: DefaultTemplates =
    rule.id === 'update-available' ? { ...core, ...trigger.definition.defaults, ...trigger.settings.templates } : core;
  const saved = rule.templates[trigger.id] ?? {};
  return {
    simpleTitle: given.simpleTitle ?? saved.simpleTitle ?? triggerDefault.simpleTitle,
    simpleBody: given.simpleBody ?? saved.simpleBody ?? triggerDefault.simpleBody,
    batchTitle: given.batchTitle ?? saved.batchTitle ?? triggerDefault.batchTitle,
  };
}

export function templateScope(
  event: NotificationRuleId,
  trigger: NotificationTrigger,
  containers: readonly Container[],
  extras: NotificationExtras = {},
): Record<string, TemplateValue> {
  return {
    ...extras,
    event,
    trigger: { id: trigger.id, type: trigger.type, name: trigger.name },
    container: containers[0],
    containers,
  };
}

/** A batch's body: one line per container, each its simple body. */
function batchBody(
  render: Render,
  templates: DefaultTemplates,
  base: Record<string, TemplateValue>,
  containers: readonly Container[],
) {
  return containers.map((container) => `- ${render(templates.simpleBody, { ...base, container })}`).join('\n');
}

/**
 * Rule routing, then per trigger: the container labels, the threshold and ONCE decide which
 * containers it is told about, and MODE how: one message each (simple), one for all (batch), or
 * collected for the trigger's digest. Events without containers (agents) are always one simple
 * message. Returns the deliveries in trigger ORDER; the caller hands them to the outbox.
 */
export function createDispatcher(deps: DispatcherDeps) {
  function containersFor(trigger: NotificationTrigger, event: NotificationEvent): Container[] {
    return event.containers.filter((container) => {
      const route = routeContainer(actingLabels(container), trigger);
      if (!route.allowed) return false;
      if (!thresholdAllows(route.threshold ?? trigger.settings.threshold, updateLevel(container.updateKind)))
        return false;
      const version = versionOf(container);
      // maturity-cleared happens once per update by construction; it still counts as "told" below.
      return !(
        event.event === 'update-available' &&
        trigger.settings.once &&
        version !== undefined &&
        deps.once.wasNotified(trigger.id, identityOf(container), version)
      );
    });
  }

  function messages(
    rule: NotificationRule,
    trigger: NotificationTrigger,
    event: NotificationEvent,
    containers: Container[],
  ): NewDelivery[] {
    const templates = templatesFor(rule, trigger);
    const base = templateScope(event.event, trigger, containers, event.extras);
    const delivery = (kind: 'simple' | 'batch', title: string, body: string, concerned: Container[]): NewDelivery => ({
      triggerId: trigger.id,
      event: event.event,
      kind,
      title,
      body,
      containers: concerned,
    });
    if (containers.length === 0) {
      return [
        delivery('simple', deps.render(templates.simpleTitle, base), deps.render(templates.simpleBody, base), []),
      ];
    }
    if (trigger.settings.mode === 'batch') {
      return [
        delivery(
          'batch',
          deps.render(templates.batchTitle, base),
          batchBody(deps.render, templates, base, containers),
          containers,
        ),
      ];
    }
    return containers.map((container) => {
      const scope = { ...base, container, containers: [container] };
      return delivery('simple', deps.render(templates.simpleTitle, scope), deps.render(templates.simpleBody, scope), [
        container,
      ]);
    });
  }

  async function remember(trigger: NotificationTrigger, event: NotificationEvent, containers: readonly Container[]) {
    if (!VERSION_EVENTS.has(event.event) || !trigger.settings.once) return;
    const now = deps.now();
    const told = containers.flatMap((container) => {
      const version = versionOf(container);
      return version === undefined ? [] : [{ identity: identityOf(container), version }];
    });
    // A few writes at a time: each is a stored record, and a cycle may tell a thousand containers.
    for (let i = 0; i < told.length; i += 32) {
      await Promise.all(
        told.slice(i, i + 32).map(({ identity, version }) => deps.once.remember(trigger.id, identity, version, now)),
      );
    }
  }

  async function collect(trigger: NotificationTrigger, event: NotificationEvent, containers: readonly Container[]) {
    const at = new Date(deps.now()).toISOString();
    const items: DigestItem[] = containers.map((container) => ({
      event: event.event,
      key: `${identityOf(container)}|${versionOf(container) ?? ''}`,
      at,
      container,
      ...(event.extras && { extras: event.extras as Record<string, unknown> }),
    }));
    await deps.digests.add(trigger.id, items);
  }

  return {
    /** Routes one event; the deliveries to enqueue, in trigger ORDER. Digest items are stored here. */
    async dispatch(event: NotificationEvent): Promise<NewDelivery[]> {
      const rule = deps.rule(event.event);
      if (!rule.enabled) return [];
      const named = new Set(rule.triggers);
      const deliveries: NewDelivery[] = [];
      const presented = new Map<Container, Container>();
      const present = (container: Container) => {
        if (!event.present) return container;
        let shown = presented.get(container);
        if (!shown) {
          shown = event.present(container);
          presented.set(container, shown);
        }
        return shown;
      };
      for (const trigger of deps.triggers) {
        if (named.size > 0 && !named.has(trigger.id)) continue;
        const containers = containersFor(trigger, event).map(present);
        if (event.containers.length > 0 && containers.length === 0) continue;
        if (trigger.settings.mode === 'digest' && containers.length > 0) await collect(trigger, event, containers);
        else deliveries.push(...messages(rule, trigger, event, containers));
        await remember(trigger, event, containers);
      }
      return deliveries;
    },

    /** A trigger's digest, sent as one batch message per event; nothing when it is empty. */
    async digest(trigger: NotificationTrigger): Promise<NewDelivery[]> {
      const items = await deps.digests.take(trigger.id);
      const byEvent = new Map<NotificationRuleId, DigestItem[]>();
      for (const item of items) byEvent.set(item.event, [...(byEvent.get(item.event) ?? []), item]);
      const deliveries: NewDelivery[] = [];
      for (const [event, grouped] of byEvent) {
        const containers = grouped.flatMap((item) => (item.container ? [item.container] : []));
        const rule = deps.rule(event);
        const templates = templatesFor(rule, trigger);
        const base = templateScope(event, trigger, containers, grouped[0]?.extras);
        deliveries.push({
          triggerId: trigger.id,
          event,
          kind: 'batch',
          title: deps.render(templates.batchTitle, base),
          body: batchBody(deps.render, templates, base, containers),
          containers,
        });
      }
      return deliveries;
    },
  };
}
export type Dispatcher = ReturnType<typeof createDispatcher>;
