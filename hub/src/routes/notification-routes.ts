import * as v from 'valibot';
import {
  NotificationRulePatchSchema,
  NotificationRuleSchema,
  RuleTemplatesSchema,
  TriggerIdSchema,
} from '../../../shared/schemas/notification-rule';
import { NotificationPreviewSchema } from '../../../shared/schemas/notification-views';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import { templateScope, templatesFor } from '../notifications/notification-dispatcher';
import type { NotificationService } from '../notifications/notification-service';
import { simulatedContainer } from '../notifications/simulated-container';
import { templateProblem } from '../notifications/template';
import { isNotificationRuleId, type NotificationRuleStore } from '../store/notification-rule-store';
import { type NotificationBellRoutesDeps, registerNotificationBellRoutes } from './notification-bell-routes';
import { type NotificationOutboxRoutesDeps, registerNotificationOutboxRoutes } from './notification-outbox-routes';

const PreviewBodySchema = v.strictObject({
  triggerId: TriggerIdSchema,
  templates: v.optional(RuleTemplatesSchema, {}),
});
/** Every template of a PATCH body that does not compile, as `trigger.field: problem`. */
function templateProblems(templates: Record<string, Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  for (const [trigger, fields] of Object.entries(templates)) {
    for (const [field, text] of Object.entries(fields)) {
      const problem = text === undefined ? undefined : templateProblem(text);
      if (problem) problems.push(`${trigger}.${field}: ${problem}`);
    }
  }
  return problems;
}

/** The notification routes: the rules, the triggers they name (checked and previewed), the bell and the outbox. */
export interface NotificationRoutesDeps extends NotificationBellRoutesDeps, NotificationOutboxRoutesDeps {
  notifications: Pick<NotificationService, 'trigger' | 'render' | 'bell' | 'outbox' | 'maxAttempts'>;
  notificationRules: Pick<NotificationRuleStore, 'get' | 'list' | 'patch'>;
  now: () => number;
}

export function registerNotificationRoutes(api: RouteGroup, deps: NotificationRoutesDeps): void {
  const notifications = () => deps.notifications;
  const ruleOf = (id: string) => {
    if (!isNotificationRuleId(id)) throw new HttpError(404, `Unknown notification rule ${id.slice(0, 80)}`);
    return deps.notificationRules.get(id) as NonNullable<ReturnType<typeof deps.notificationRules.get>>;
  };

  api.add(
    {
      method: 'get',
      path: '/notifications',
      access: 'read',
      tag: 'notifications',
      summary: 'Notification rules',
      response: v.object({ data: v.array(NotificationRuleSchema), total: v.number() }),
    },
    (c) => {
      const data = deps.notificationRules.list();
      return c.json({ data, total: data.length });
    },
  );

  // Before /notifications/:id, so these literal paths are never taken for a rule id.
  registerNotificationBellRoutes(api, deps);
  registerNotificationOutboxRoutes(api, deps);

  api.add(
    {
      method: 'patch',
      path: '/notifications/:id',
      access: 'notifications:manage',
      tag: 'notifications',
      summary:
        'Change a rule; only the given fields change. Trigger ids and template keys must be configured notification triggers',
      body: NotificationRulePatchSchema,
      response: NotificationRuleSchema,
      statuses: {
        400: 'Invalid body, unknown (or action) trigger id, or a template that does not compile',
        404: 'Unknown rule',
      },
    },
    async (c, { body }) => {
      const id = c.req.param('id') ?? '';
      if (!isNotificationRuleId(id)) throw new HttpError(404, `Unknown notification rule ${id.slice(0, 80)}`);
      const named = [...(body.triggers ?? []), ...Object.keys(body.templates ?? {})];
      // Only notification triggers are known here: an action trigger's id is refused like any other.
      const unknown = [...new Set(named.filter((trigger) => !notifications().trigger(trigger)))];
      if (unknown.length > 0) {
        throw new HttpError(400, `Unknown notification trigger: ${unknown.join(', ')}`, { unknownTriggers: unknown });
      }
      const problems = templateProblems(body.templates ?? {});
      if (problems.length > 0)
        throw new HttpError(400, `Invalid template: ${problems[0]}`, { templateErrors: problems.slice(0, 10) });
      return c.json(await deps.notificationRules.patch(id, body));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/notifications/:id/preview',
      access: 'notifications:manage',
      tag: 'notifications',
      summary:
        'Render a rule’s templates for one trigger with sample data; each omitted field falls back to the saved override, then to the trigger’s default',
      body: PreviewBodySchema,
      response: NotificationPreviewSchema,
      statuses: { 400: 'Invalid body, unknown trigger, or a template that does not compile', 404: 'Unknown rule' },
    },
    (c, { body }) => {
      const rule = ruleOf(c.req.param('id') ?? '');
      const trigger = notifications().trigger(body.triggerId);
      if (!trigger)
        throw new HttpError(400, `Unknown notification trigger: ${body.triggerId}`, {
          unknownTriggers: [body.triggerId],
        });
      const templates = templatesFor(rule, trigger, body.templates);
      const problems = templateProblems({ [trigger.id]: { ...templates } });
      if (problems.length > 0) throw new HttpError(400, `Cannot preview: ${problems[0]}`, { templateErrors: problems });
      const now = deps.now();
      const sample = [
        simulatedContainer(now),
        simulatedContainer(now, {
          id: 'simulated-container-2',
          name: 'example-db',
          displayName: 'example-db',
          updateKind: { kind: 'tag', localValue: '16.3', remoteValue: '17.0', semverDiff: 'major' },
          result: { tag: '17.0' },
        }),
      ];
      const extras = {
        fromVersion: '1.27.0',
        toVersion: '1.28.0',
        error: 'the new container did not become healthy',
        agent: { name: 'edge-1', reason: 'heartbeat timeout' },
        security: { critical: 1, high: 3 },
      };
      const render = notifications().render;
      const simple = templateScope(rule.id, trigger, sample.slice(0, 1), extras);
      return c.json({
        simpleTitle: render(templates.simpleTitle, simple),
        simpleBody: render(templates.simpleBody, simple),
        batchTitle: render(templates.batchTitle, templateScope(rule.id, trigger, sample, extras)),
      });
    },
  );
}
