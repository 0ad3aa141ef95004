import type { Context } from 'hono';
import * as v from 'valibot';
import { BackupViewSchema, OperationViewSchema } from '../../../shared/schemas/update-views';
import { actorOf } from '../approvals/approval-actors';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import { pageOf } from '../http/paged-list';
import { qInt, qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { ContainerStore } from '../store/container-store';
import { publicBackup } from '../updates/backup-store';
import type { UpdateService } from '../updates/update-service';
import { findContainer } from './container-target';

const AcceptedSchema = v.object({ message: v.string(), operationId: v.string() });
const backupList = v.object({ data: v.array(BackupViewSchema), total: v.number() });
const RollbackBodySchema = v.optional(
  v.object({ backupId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))) }),
  {},
);

/** Who cancelled, for the operation's record and the audit trail. */
function callerOf(c: Context<HubEnv>): string {
  const principal = c.get('principal');
  if (principal.kind === 'session') return principal.username;
  if (principal.kind === 'api-key') return `API key ${principal.keyId}`;
  return 'an anonymous caller';
}

/** The update routes: the update service, and the container records its operations and backups are looked up by. */
export interface UpdateRoutesDeps {
  updates: Pick<
    UpdateService,
    'requestUpdate' | 'requestRollback' | 'cancel' | 'get' | 'view' | 'operationsOf' | 'backups' | 'backupsOf'
  >;
  containers: Pick<ContainerStore, 'get'>;
}

/** Container updates (http-interface §2.6, §2.7, §3.2, §4.8): update, its operations, cancel, backups and rollback. */
export function registerUpdateRoutes(api: RouteGroup, deps: UpdateRoutesDeps): void {
  const { updates, containers } = deps;

  api.add(
    {
      method: 'post',
      path: '/containers/:id/update',
      access: 'containers:update',
      tag: 'containers',
      summary:
        'Update the container to its pending version through its Docker action trigger; answers the queued operation',
      response: AcceptedSchema,
      successStatus: 202,
      statuses: {
        400: 'No update is available',
        403: 'Container actions are disabled (DD_SERVER_FEATURE_CONTAINERACTIONS=false)',
        404: 'Unknown container, or no Docker action trigger for its watcher',
        409: 'Already queued or in progress, held by the maturity gate, excluded by dd.action.* labels, or a temporary -old- container',
        503: 'Its watcher is not available, or its edge agent is not connected',
      },
    },
    async (c) => {
      const operation = await updates.requestUpdate(c.req.param('id') ?? '', {
        source: 'api',
        requestedBy: actorOf(c.get('principal')),
      });
      return c.json(
        {
          message: `Update of ${operation.containerName} to ${operation.targetImage} queued`,
          operationId: operation.id,
        },
        202,
      );
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/update-operations',
      access: 'read',
      tag: 'containers',
      summary: "The container's update operations, newest first (across its re-creations by updates)",
      query: {
        limit: qInt({ min: 0, max: 200, default: 20, description: '0 means unbounded' }),
        offset: qInt({ min: 0, max: 10_000_000, default: 0 }),
      },
      response: v.object({
        data: v.array(OperationViewSchema),
        total: v.number(),
        limit: v.number(),
        offset: v.number(),
        hasMore: v.boolean(),
      }),
      statuses: { 404: 'Unknown container' },
    },
    (c, { query }) => {
      const container = findContainer(containers, c.req.param('id') ?? '');
      const all = updates.operationsOf(container);
      const page = pageOf(all, query);
      // Views only for the page shown.
      return c.json({ ...page, data: page.data.map((operation) => updates.view(operation)) });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/update-operations/:id',
      access: 'read',
      tag: 'containers',
      summary: 'One update operation (the fallback when an SSE event was missed)',
      response: OperationViewSchema,
      statuses: { 404: 'Unknown operation' },
    },
    (c) => {
      const id = c.req.param('id') ?? '';
      const operation = updates.get(id);
      if (!operation) throw new HttpError(404, `Unknown update operation ${id.slice(0, 80)}`);
      return c.json(updates.view(operation));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/operations/:id/cancel',
      access: 'containers:update',
      tag: 'containers',
      summary: 'Cancel an update: a queued one ends at once, one in progress rolls back at its next phase boundary',
      response: v.object({ message: v.string(), operation: OperationViewSchema }),
      statuses: { 404: 'Unknown operation', 409: 'Already settled' },
    },
    async (c) => {
      const operation = await updates.cancel(c.req.param('id') ?? '', callerOf(c));
      const message =
        operation.status === 'failed'
          ? 'Cancelled before it started'
          : 'Cancel requested: it rolls back at its next phase boundary';
      return c.json({ message, operation: updates.view(operation) });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/backups',
      access: 'read',
      tag: 'containers',
      summary: 'Every image backup, newest first',
      query: { containerName: qText({ maxLength: 256, description: 'Only the backups of containers of this name' }) },
      response: backupList,
    },
    (c, { query }) => {
      const data = updates.backups(query.containerName).map(publicBackup);
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/backups',
      access: 'read',
      tag: 'containers',
      summary: "The container's image backups, newest first",
      response: backupList,
      statuses: { 404: 'Unknown container' },
    },
    (c) => {
      const data = updates.backupsOf(findContainer(containers, c.req.param('id') ?? '')).map(publicBackup);
      return c.json({ data, total: data.length });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/containers/:id/rollback',
      access: 'containers:update',
      tag: 'containers',
      summary:
        'Roll the container back to a backup (the latest when no backupId is given), through the same safe sequence',
      confirm: 'container-rollback',
      body: RollbackBodySchema,
      response: AcceptedSchema,
      statuses: {
        403: 'Container actions are disabled',
        404: 'Unknown container, backup or action trigger',
        409: 'An operation of the container is queued or in progress',
        503: 'Its watcher is not available, or its edge agent is not connected',
      },
    },
    async (c, { body }) => {
      const operation = await updates.requestRollback(c.req.param('id') ?? '', {
        backupId: body.backupId,
        source: 'rollback',
      });
      return c.json({
        message: `Rollback of ${operation.containerName} to ${operation.targetImage} queued`,
        operationId: operation.id,
      });
    },
  );
}
