import { operationKey, operations, trackOperation } from '../../state';
import { detailApi } from './detail-api';

/**
 * Shows an operation just started before its first event arrives, or if that event was missed
 * (a stream that was reconnecting): one GET of the operation, the fallback http-interface §4.8
 * names. An event already seen for it wins, so a later phase is never replaced by an earlier one.
 */
export async function seedOperation(operationId: string): Promise<void> {
  const view = await detailApi.operation(operationId);
  const host = { agent: view.agent ?? null, watcher: view.watcher };
  if (operations.value.get(operationKey({ ...host, containerName: view.containerName }))?.operationId === operationId)
    return;
  trackOperation({
    operationId: view.id,
    containerName: view.containerName,
    ...host,
    ...(view.triggerName !== undefined && { triggerName: view.triggerName }),
    status: view.status,
    phase: view.phase,
    queuePosition: view.queuePosition ?? 0,
    queueTotal: view.queueTotal ?? 0,
  });
}
