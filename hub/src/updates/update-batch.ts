import type { UpdateOperation } from '../../../shared/update-engine';
import type { EventBus, Publish, UiEvent } from '../events/event-bus';
import type { UpdateService } from './update-service';

/** One settled operation of a batch, as dd:batch-update-completed lists it. */
export interface BatchItem {
  operationId: string;
  containerId: string;
  containerName: string;
  status: string;
  newContainerId?: string;
  error?: string;
}

export interface UpdateBatch {
  readonly batchId: string;
  /** An operation queued with this batchId. */
  add(operation: UpdateOperation): void;
  /** No more operations will be added: the event follows once every one has settled (at once when none was). */
  seal(): void;
}

/** A batch follows its operations' events on the bus and publishes its own completion. */
export interface UpdateBatchDeps {
  now: () => number;
  updates: Pick<UpdateService, 'get'>;
  events: Pick<EventBus, 'subscribe'>;
  publish: Publish;
}

const record = (data: unknown): Record<string, unknown> =>
  typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};

/**
 * Follows a bulk update (http-interface §4.8) until each of its operations has settled, then publishes
 * dd:batch-update-completed (http-interface §6.1). It listens from before the first request, so an
 * operation that settles before the answer is sent is not missed. In memory: a batch cut short by
 * a hub restart gets no completion event (its operations still settle and are announced one by one).
 */
export function startUpdateBatch(deps: UpdateBatchDeps): UpdateBatch {
  const batchId = crypto.randomUUID();
  const startedAt = deps.now();
  const pending = new Map<string, UpdateOperation>();
  const settled = new Map<string, Record<string, unknown>>();
  let sealed = false;
  let done = false;

  function finishIfSettled(): void {
    if (done || !sealed || [...pending.keys()].some((id) => !settled.has(id))) return;
    done = true;
    subscription.unsubscribe();
    if (pending.size === 0) return;
    const items: BatchItem[] = [...pending.values()].map((operation) => {
      const event = settled.get(operation.id) ?? {};
      const status = deps.updates.get(operation.id)?.status ?? (event['newContainerId'] ? 'succeeded' : 'failed');
      return {
        operationId: operation.id,
        containerId: operation.containerId,
        containerName: operation.containerName,
        status,
        ...(typeof event['newContainerId'] === 'string' && { newContainerId: event['newContainerId'] }),
        ...(typeof event['error'] === 'string' && { error: event['error'] }),
      };
    });
    const succeeded = items.filter((item) => item.status === 'succeeded').length;
    deps.publish('dd:batch-update-completed', {
      batchId,
      total: items.length,
      succeeded,
      failed: items.length - succeeded,
      durationMs: Math.max(0, deps.now() - startedAt),
      items: items as unknown as Record<string, unknown>[],
    });
  }

  function onEvent(event: UiEvent): void {
    if (event.type !== 'dd:update-applied' && event.type !== 'dd:update-failed') return;
    const data = record(event.data);
    if (data['batchId'] !== batchId || typeof data['operationId'] !== 'string') return;
    settled.set(data['operationId'], data);
    finishIfSettled();
  }

  const subscription = deps.events.subscribe(onEvent);
  return {
    batchId,
    add(operation) {
      pending.set(operation.id, operation);
    },
    seal() {
      sealed = true;
      finishIfSettled();
    },
  };
}
