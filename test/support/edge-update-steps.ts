/**
 * A step the agent update tests that cut something off mid-update share (the hub killed, its disk
 * filled): the update asked for, then awaited in its health gate.
 */
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { type EdgeUpdateApi, until } from './edge-update-bed';

/**
 * Asks the hub to update the container (asserting its 202) and polls the operation every 50 ms
 * (60 s at most) until it is in its health gate; answers its id and the operation then.
 */
export async function updateIntoHealthGate(
  api: EdgeUpdateApi,
  record: Container,
): Promise<{ operationId: string; operation: UpdateOperation }> {
  const operationId = await api.requestUpdate(record);
  const operation = await until(
    async () => {
      const current = await api.json<UpdateOperation>(`/api/v1/update-operations/${operationId}`);
      return current.phase === 'health-gate' ? current : undefined;
    },
    'the health gate reached',
    60_000,
    50,
  );
  return { operationId, operation };
}
