import * as v from 'valibot';
import { BellEntrySchema } from '../../../shared/schemas/notification-views';
import { qBool, qInt } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import { listBell, markBellRead } from '../notifications/bell';
import type { NotificationService } from '../notifications/notification-service';

const MarkReadBodySchema = v.optional(
  v.strictObject({
    /** Audit entry ids of the bell; absent: every entry is marked read. */
    ids: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(500))),
  }),
  {},
);

/** The bell routes: the notification service's bell. */
export interface NotificationBellRoutesDeps {
  notifications: Pick<NotificationService, 'bell'>;
}

/**
 * The in-app bell (http-interface §2.8): the audit entries of events whose rule has bellEnabled, newest
 * first, update-available filtered by bellThreshold, each with its read state. Reading needs
 * `read`; marking read changes state, so it needs `notifications:manage` (any signed-in session).
 */
export function registerNotificationBellRoutes(api: RouteGroup, deps: NotificationBellRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/notifications/bell',
      access: 'read',
      tag: 'notifications',
      summary:
        'The in-app bell: notification events of rules with bellEnabled, newest first, with read state and the unread count',
      query: {
        offset: qInt({ min: 0, max: 1_000_000, default: 0 }),
        limit: qInt({ min: 1, max: 200, default: 50 }),
        unread: qBool({ default: false, description: 'Only unread entries' }),
      },
      response: v.object({
        data: v.array(BellEntrySchema),
        total: v.number(),
        unread: v.number(),
        limit: v.number(),
        offset: v.number(),
        hasMore: v.boolean(),
      }),
      statuses: { 400: 'Invalid query parameter' },
    },
    (c, { query }) =>
      c.json(listBell(deps.notifications.bell, { offset: query.offset, limit: query.limit, unreadOnly: query.unread })),
  );

  api.add(
    {
      method: 'post',
      path: '/notifications/bell/read',
      access: 'notifications:manage',
      tag: 'notifications',
      summary: 'Mark bell entries read: the given ids, or all of them when `ids` is absent',
      body: MarkReadBodySchema,
      response: v.object({ unread: v.number() }),
      statuses: { 400: 'Invalid body' },
    },
    async (c, { body }) => c.json(await markBellRead(deps.notifications.bell, body.ids)),
  );
}
