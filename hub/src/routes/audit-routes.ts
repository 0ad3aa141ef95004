import * as v from 'valibot';
import { AUDIT_ACTIONS, AuditEntrySchema } from '../../../shared/schemas/audit-entry';
import { qEnum, qEnumList, qInt, qIsoDate, qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { AuditStore } from '../store/audit-store';

/** The audit trail's query route. */
export interface AuditRoutesDeps {
  audit: Pick<AuditStore, 'query'>;
}

export function registerAuditRoutes(api: RouteGroup, deps: AuditRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/audit',
      access: 'audit:read',
      tag: 'audit',
      summary: 'Audit trail, newest first',
      query: {
        offset: qInt({ min: 0, max: 1_000_000, default: 0 }),
        limit: qInt({ min: 1, max: 200, default: 50 }),
        action: qEnum(AUDIT_ACTIONS, { description: 'A single action type' }),
        actions: qEnumList(AUDIT_ACTIONS, { description: 'Comma-separated action types' }),
        container: qText({ maxLength: 256, description: 'Container name' }),
        from: qIsoDate({ description: 'Entries on or after this instant' }),
        to: qIsoDate({ description: 'Entries on or before this instant' }),
      },
      response: v.object({
        data: v.array(AuditEntrySchema),
        total: v.number(),
        limit: v.number(),
        offset: v.number(),
        hasMore: v.boolean(),
      }),
      statuses: { 400: 'Invalid query parameter' },
    },
    (c, { query }) => {
      const actions = [...(query.action ? [query.action] : []), ...(query.actions ?? [])];
      const { data, total } = deps.audit.query({
        offset: query.offset,
        limit: query.limit,
        actions,
        container: query.container,
        from: query.from,
        to: query.to,
      });
      return c.json({
        data,
        total,
        limit: query.limit,
        offset: query.offset,
        hasMore: query.offset + data.length < total,
      });
    },
  );
}
