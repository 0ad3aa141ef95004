import * as v from 'valibot';
import { errorMessage } from '../../../shared/error-message';
import { BulkUpdateAnswerSchema, type BulkUpdateResult } from '../../../shared/schemas/container-views';
import { actorOf } from '../approvals/approval-actors';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { ContainerStore } from '../store/container-store';
import { startUpdateBatch, type UpdateBatchDeps } from '../updates/update-batch';
import type { UpdateService } from '../updates/update-service';

const MAX_CONTAINERS = 100;

const BulkBodySchema = v.object({
  containerIds: v.pipe(
    v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
    v.minLength(1, 'At least one container id is needed'),
    v.maxLength(MAX_CONTAINERS, `At most ${MAX_CONTAINERS} containers per request`),
    v.check((ids) => new Set(ids).size === ids.length, 'Container ids must not repeat'),
  ),
});

/** The bulk update route: the updates it queues under one batch, and the names of refused containers. */
export interface BulkUpdateRoutesDeps extends UpdateBatchDeps {
  updates: Pick<UpdateService, 'requestUpdate' | 'get'>;
  containers: Pick<ContainerStore, 'get'>;
}

/**
 * Bulk update (http-interface §4.8): each container is checked and queued as `POST /containers/{id}/update`
 * would, all under one batchId; dd:batch-update-completed follows when the accepted ones settle.
 */
export function registerBulkUpdateRoutes(api: RouteGroup, deps: BulkUpdateRoutesDeps): void {
  api.add(
    {
      method: 'post',
      path: '/containers/update',
      access: 'containers:update',
      tag: 'containers',
      summary:
        'Queue updates of several containers under one batchId; answers each one accepted (its operationId) or refused (the status and error a single update would get)',
      body: BulkBodySchema,
      response: BulkUpdateAnswerSchema,
      successStatus: 202,
      statuses: { 400: 'Invalid body: containerIds missing, empty, repeated or over 100' },
    },
    async (c, { body }) => {
      const batch = startUpdateBatch(deps);
      const requestedBy = actorOf(c.get('principal'));
      const results: BulkUpdateResult[] = [];
      for (const containerId of body.containerIds) {
        try {
          const operation = await deps.updates.requestUpdate(containerId, {
            source: 'api',
            batchId: batch.batchId,
            requestedBy,
          });
          batch.add(operation);
          results.push({
            containerId,
            containerName: operation.containerName,
            result: 'accepted',
            operationId: operation.id,
            status: 202,
          });
        } catch (error) {
          const name = deps.containers.get(containerId)?.name;
          results.push({
            containerId: containerId.slice(0, 80),
            ...(name !== undefined && { containerName: name }),
            result: 'refused',
            status: error instanceof HttpError ? error.status : 500,
            error: error instanceof HttpError ? error.message : errorMessage(error),
            ...(error instanceof HttpError && error.details !== undefined && { details: error.details }),
          });
        }
      }
      batch.seal();
      const accepted = results.filter((result) => result.result === 'accepted').length;
      return c.json(
        {
          message: `${accepted} of ${results.length} updates queued`,
          batchId: accepted > 0 ? batch.batchId : null,
          total: results.length,
          accepted,
          refused: results.length - accepted,
          results,
        },
        202,
      );
    },
  );
}
