import * as v from 'valibot';
import { OutboxEntryViewSchema } from '../../../shared/schemas/notification-views';
import { HttpError } from '../http/http-error';
import { qEnum } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import { outboxContainerView } from '../notifications/container-view';
import type { NotificationService } from '../notifications/notification-service';
import { OUTBOX_STATUSES, type OutboxEntry } from '../store/notification-outbox-store';

/** Containers listed per entry; `containerCount` tells the rest. */
const MAX_LISTED = 50;

/**
 * The safe projection of an entry (http-interface §2.9): the title and which containers, never the message
 * body nor the container records, whose labels and environment are not for this surface.
 */
export function outboxEntryView(entry: OutboxEntry, maxAttempts: number) {
  const { message, ...fields } = entry;
  return {
    ...fields,
    maxAttempts,
    payload: {
      title: message.title,
      containerCount: message.containers.length,
      containers: message.containers.slice(0, MAX_LISTED).map(outboxContainerView),
    },
  };
}

/** The outbox routes: the notification service's outbox and its attempt limit. */
export interface NotificationOutboxRoutesDeps {
  notifications: Pick<NotificationService, 'outbox' | 'maxAttempts'>;
}

/** GET, retry and delete of outbox entries: admin surfaces (http-interface §4.9, §5.12). */
export function registerNotificationOutboxRoutes(api: RouteGroup, deps: NotificationOutboxRoutesDeps): void {
  const outbox = () => deps.notifications.outbox;
  const maxAttempts = () => deps.notifications.maxAttempts;

  api.add(
    {
      method: 'get',
      path: '/notifications/outbox',
      access: 'admin',
      tag: 'notifications',
      summary:
        'Notification deliveries waiting, retrying or dead-lettered, oldest first; a safe projection of each payload',
      query: { status: qEnum(OUTBOX_STATUSES, { description: 'Only entries in this status' }) },
      response: v.object({ data: v.array(OutboxEntryViewSchema), total: v.number() }),
      statuses: { 400: 'Invalid status' },
    },
    (c, { query }) => {
      const data = outbox()
        .list(query.status)
        .map((entry) => outboxEntryView(entry, maxAttempts()));
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/notifications/outbox/:id/retry',
      access: 'admin',
      tag: 'notifications',
      summary: 'Requeue a dead-letter entry: its attempts start again',
      response: OutboxEntryViewSchema,
      statuses: { 404: 'No entry with this id, or it is not dead-letter' },
    },
    async (c) => {
      const id = c.req.param('id') ?? '';
      const requeued = await outbox().retry(id);
      if (!requeued) throw new HttpError(404, `No dead-letter outbox entry ${id.slice(0, 80)}`);
      return c.json(outboxEntryView(requeued, maxAttempts()));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/notifications/outbox/:id',
      access: 'admin',
      tag: 'notifications',
      summary: 'Delete an outbox entry (it is never delivered)',
      successStatus: 204,
      statuses: { 404: 'No entry with this id' },
    },
    async (c) => {
      const id = c.req.param('id') ?? '';
      if (!(await outbox().remove(id))) throw new HttpError(404, `No outbox entry ${id.slice(0, 80)}`);
      return c.body(null, 204);
    },
  );
}
