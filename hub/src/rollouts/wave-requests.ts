import { errorMessage } from '../../../shared/error-message';
import type { Rollout, RolloutHost } from '../../../shared/schemas/rollout';
import type { UpdateOperation } from '../../../shared/update-engine';
import { HttpError } from '../http/http-error';
import type { ContainerStore } from '../store/container-store';
import type { UpdateService } from '../updates/update-service';
import { updateTargetOf } from '../updates/update-target';

type Entry = RolloutHost['containers'][number];

/** Requests one container's update for a rollout: its entry with the operation, `failed`, or undefined (stopping). */
export type WaveRequest = (rollout: Rollout, entry: Entry) => Promise<Entry | undefined>;

export interface WaveRequestsDeps {
  containers: Pick<ContainerStore, 'get'>;
  updates: Pick<UpdateService, 'requestUpdate' | 'operationsOf' | 'unsettled'>;
  /** The hub is stopping: a refusal now is the update service closing, not the container's. */
  stopping: () => boolean;
}

/**
 * The update of one container of a wave, requested once: through the normal update path (source
 * `api`, the rollout's id as the batch), or found among the operations when the hub stopped
 * between requesting it and storing its id. Answers the container's entry with its operation, or
 * `failed` with the refusal; undefined when the hub is stopping (the entry stays to be requested).
 */
export function createWaveRequests(deps: WaveRequestsDeps): WaveRequest {
  /** An operation of this rollout for this container: the update service journals it before answering the request. */
  function requestedBefore(rollout: Rollout, entry: Entry): UpdateOperation | undefined {
    const record = deps.containers.get(entry.containerId);
    const mine = (operation: UpdateOperation) =>
      operation.batchId === rollout.id && operation.containerId === entry.containerId;
    return deps.updates.unsettled().find(mine) ?? (record && deps.updates.operationsOf(record).find(mine));
  }

  return async function request(rollout: Rollout, entry: Entry): Promise<Entry | undefined> {
    const found = requestedBefore(rollout, entry);
    if (found) return { ...entry, operationId: found.id, status: found.status };
    const record = deps.containers.get(entry.containerId);
    const target = record && updateTargetOf(record);
    if (!record || !target || target.toVersion !== rollout.toVersion)
      return { ...entry, status: 'failed', error: 'the candidate is no longer pending' };
    try {
      const operation = await deps.updates.requestUpdate(record.id, { source: 'api', batchId: rollout.id });
      return { ...entry, operationId: operation.id, status: operation.status };
    } catch (error) {
      if (deps.stopping()) return undefined;
      // The update service refuses with the HttpError its routes answer (approval required, busy,
      // agent not connected, …): the reason it names is what the rollout records.
      const reason = error instanceof HttpError ? (error.details?.['reason'] ?? error.message) : errorMessage(error);
      return { ...entry, status: 'failed', error: String(reason).slice(0, 300) };
    }
  };
}
