import * as v from 'valibot';
import { NotificationRulePatchSchema, NotificationRuleSchema } from '../../../shared/schemas/notification-rule';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { HubServices } from '../hub-services';
import { isNotificationRuleId } from '../store/notification-rule-store';

/**
 * Notification trigger ids configured on this hub. Triggers arrive with the notifications
 * capability; until then none is configured, so every named trigger is refused.
 */
export type NotificationTriggerIds = () => ReadonlySet<string>;
const noTriggers: NotificationTriggerIds = () => new Set();

export function registerNotificationRoutes(
  api: RouteGroup,
  services: HubServices,
  notificationTriggerIds: NotificationTriggerIds = noTriggers,
): void {
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
      const data = services.notificationRules.list();
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/notifications/:id',
      access: 'notifications:manage',
      tag: 'notifications',
      summary: 'Change a rule; only the given fields change',
      body: NotificationRulePatchSchema,
      response: NotificationRuleSchema,
      statuses: { 400: 'Invalid body or unknown trigger id', 404: 'Unknown rule' },
    },
    async (c, { body }) => {
      const id = c.req.param('id') ?? '';
      if (!isNotificationRuleId(id)) throw new HttpError(404, `Unknown notification rule ${id}`);
      const known = notificationTriggerIds();
      const named = [...(body.triggers ?? []), ...Object.keys(body.templates ?? {})];
      const unknown = [...new Set(named.filter((trigger) => !known.has(trigger)))];
      if (unknown.length > 0) {
        throw new HttpError(400, `Unknown notification trigger: ${unknown.join(', ')}`, { unknownTriggers: unknown });
      }
      return c.json(await services.notificationRules.patch(id, body));
    },
  );
}
