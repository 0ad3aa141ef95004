import * as v from 'valibot';
import { UPDATE_OPERATION_STATUSES } from '../../../shared/schemas/ui-events';
import type { RouteGroup } from '../http/route-group';
import { SELF_UPDATE_PHASES } from '../updates/self-update/self-update-record';
import type { SelfUpdates } from '../updates/self-update/self-update-service';

const credential = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const AckBodySchema = v.object({ clientId: credential, clientToken: credential });
const AckSchema = v.object({ status: v.picklist(['accepted', 'ignored', 'rejected']), operationId: v.string() });
const StatusSchema = v.object({
  operationId: v.string(),
  status: v.picklist(UPDATE_OPERATION_STATUSES),
  phase: v.picklist(SELF_UPDATE_PHASES),
  completedAt: v.optional(v.string()),
});

/** The hub's self-update (http-interface §4.13, docs/updates.md "Self-update"); undefined where the runtime has none (Workers). */
export interface SelfUpdateRoutesDeps {
  selfUpdates: Pick<SelfUpdates, 'ack' | 'status'> | undefined;
}

/** The UI's ack of dd:self-update, and the status a UI polls while the hub is swapped (no sign-in: the id is the capability). */
export function registerSelfUpdateRoutes(api: RouteGroup, deps: SelfUpdateRoutesDeps): void {
  const { selfUpdates } = deps;
  api.add(
    {
      method: 'post',
      path: '/events/ui/self-update/:operationId/ack',
      access: 'read',
      tag: 'events',
      summary: 'Acknowledge dd:self-update with the clientId and clientToken of dd:connected',
      body: AckBodySchema,
      response: AckSchema,
      successStatus: 202,
      statuses: {
        400: 'clientId or clientToken missing',
        403: 'Wrong token, or a client the operation was not announced to',
      },
    },
    async (c, { body }) => {
      const operationId = c.req.param('operationId') ?? '';
      // Workers run no container to update: no ack is ever pending there.
      const status = selfUpdates ? await selfUpdates.ack(operationId, body.clientId, body.clientToken) : 'ignored';
      return c.json({ status, operationId }, status === 'rejected' ? 403 : 202);
    },
  );
  api.add(
    {
      method: 'get',
      path: '/self-update/:operationId/status',
      access: 'public',
      tag: 'events',
      summary: 'Where a self-update of the hub stands; no sign-in, the operation id is the capability',
      response: StatusSchema,
      statuses: { 404: 'Unknown operation' },
    },
    async (c) => {
      const operationId = c.req.param('operationId') ?? '';
      const status = await selfUpdates?.status(operationId);
      if (!status) return c.json({ error: `Unknown self-update ${operationId.slice(0, 80)}` }, 404);
      return c.json(status);
    },
  );
}
