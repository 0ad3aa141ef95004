import type { Container } from '../../../shared/schemas/container';
import type { UpdateService } from '../updates/update-service';

/** What a webhook update goes through: the update service, as for the API. */
export interface WebhookUpdateDeps {
  updates: Pick<UpdateService, 'requestUpdate'>;
}

/**
 * POST /api/v1/webhook/update/{containerName}, once the container is resolved, authorised and
 * opted in: an update operation queued by the update service with source `webhook`,
 * through the same checks as POST /containers/{id}/update, each refusal with its status (400 no
 * update, 403 container actions disabled, 404 no Docker action trigger, 409 queued, running or
 * excluded by labels, 503 its watcher unavailable or its edge agent not connected).
 */
export async function startWebhookUpdate(
  deps: WebhookUpdateDeps,
  container: Container,
): Promise<{ operationId: string }> {
  const operation = await deps.updates.requestUpdate(container.id, { source: 'webhook' });
  return { operationId: operation.id };
}
