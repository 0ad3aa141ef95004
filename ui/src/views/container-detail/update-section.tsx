import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { actionTriggerFor, actionTriggers, HOW_TO_ENABLE_UPDATES, loadActionTriggers } from '../../action-triggers';
import { api, type Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { UpdatePreviewCard } from '../../components/update-preview-card';
import { operationOf, UpdateStepper } from '../../components/update-stepper';
import { isSettled } from '../../update-steps';
import { CheckNow } from './check-now';
import { detailApi } from './detail-api';
import { seedOperation } from './seed-operation';

/**
 * "Check now", and the update: a preview first (POST preview: what would change, what blocks it),
 * then POST update, then its steps live from `dd:update-operation-changed` (http-interface §6.1);
 * an operation under way can be cancelled (§3.2), a rollback cannot. Without a Docker action
 * trigger for the container there is no Update button, but a sentence saying how to get one.
 */
export function UpdateSection({ c, name }: { c: Container; name: string }) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [previewing, setPreviewing] = useState(false);
  useEffect(() => void loadActionTriggers(), []);
  // By the name first shown: while an update runs, the old container carries a temporary one.
  const operation = operationOf({ agent: c.agent, watcher: c.watcher, name });
  const settled = operation ? isSettled(operation.status) : true;
  const triggers = actionTriggers.value;
  const noTrigger = triggers !== undefined && !actionTriggerFor(c, triggers);

  async function act(action: string, run: () => Promise<void>) {
    setBusy(action);
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <>
      <div class="actions">
        <CheckNow c={c} disabled={busy !== undefined} />
        {c.updateAvailable && !noTrigger && (
          <button
            type="button"
            disabled={busy !== undefined || !settled || previewing}
            onClick={() => setPreviewing(true)}
          >
            Update…
          </button>
        )}
      </div>
      {c.updateAvailable && noTrigger && (
        <p class="notice" data-field="no-action-trigger">
          {HOW_TO_ENABLE_UPDATES}
        </p>
      )}
      <ErrorText message={error} />
      {previewing && (
        <UpdatePreviewCard
          c={c}
          starting={busy === 'update'}
          onClose={() => setPreviewing(false)}
          onStart={() =>
            act('update', async () => {
              const started = await api.update(c.id);
              setPreviewing(false);
              await seedOperation(started.operationId);
            })
          }
        />
      )}
      {operation && (
        <UpdateStepper
          operation={operation}
          cancelling={busy === 'cancel'}
          onCancel={() =>
            act('cancel', async () => {
              await detailApi.cancel(operation.operationId);
            })
          }
        />
      )}
    </>
  );
}
