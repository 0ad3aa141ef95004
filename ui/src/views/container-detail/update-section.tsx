import { useState } from 'preact/hooks';
import { api, type Container, type UpdatePreview } from '../../api';
import { ErrorText } from '../../components/error-text';
import { operations, putContainer } from '../../state';
import { detailApi } from './detail-api';
import { seedOperation } from './seed-operation';

const SETTLED = new Set(['succeeded', 'rolled-back', 'failed']);

/**
 * "Check now", and the update: a preview first (POST preview: what would change, what blocks it),
 * then POST update, then its phases live from `dd:update-operation-changed` (http-interface §6.1);
 * an operation under way can be cancelled (§3.2).
 */
export function UpdateSection({ c, name }: { c: Container; name: string }) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [preview, setPreview] = useState<UpdatePreview | undefined>();
  // By the name first shown: while an update runs, the old container carries a temporary one.
  const operation = operations.value.get(name);
  const settled = operation ? SETTLED.has(operation.status) : true;

  async function act(name: string, run: () => Promise<void>) {
    setBusy(name);
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={busy !== undefined}
          onClick={() => act('watch', async () => putContainer(await api.watch(c.id)))}
        >
          {busy === 'watch' ? 'Checking…' : 'Check now'}
        </button>
        {c.updateAvailable && (
          <button
            type="button"
            disabled={busy !== undefined || !settled}
            onClick={() => act('preview', async () => setPreview(await api.preview(c.id)))}
          >
            Update…
          </button>
        )}
      </div>
      <ErrorText message={error} />
      {preview && (
        <section class="card" aria-labelledby="preview-title">
          <h2 id="preview-title" class="break">
            Update {c.name}?
          </h2>
          <p class="break">
            From <code>{preview.current.image}</code> to <code>{preview.target?.image ?? 'the candidate'}</code>.
          </p>
          {preview.blockers.length > 0 && (
            <ul>
              {preview.blockers.map((blocker) => (
                <li key={blocker.reason}>{blocker.message ?? blocker.reason}</li>
              ))}
            </ul>
          )}
          <div class="actions">
            <button
              type="button"
              disabled={!preview.canUpdate || busy !== undefined}
              onClick={() =>
                act('update', async () => {
                  const started = await api.update(c.id);
                  setPreview(undefined);
                  await seedOperation(started.operationId);
                })
              }
            >
              {busy === 'update' ? 'Starting…' : 'Start the update'}
            </button>
            <button type="button" class="secondary" onClick={() => setPreview(undefined)}>
              Cancel
            </button>
          </div>
        </section>
      )}
      {operation && (
        <section class="card" aria-labelledby="operation-title" data-operation={operation.status}>
          <h2 id="operation-title">Operation {settled ? operation.status : 'in progress'}</h2>
          <ol class="phases" aria-live="polite">
            {operation.phases.map((phase) => (
              <li key={phase}>{phase}</li>
            ))}
          </ol>
          {operation.status === 'queued' && (
            <p>
              Queued: {operation.queuePosition} of {operation.queueTotal}
            </p>
          )}
          {operation.error && <p class="error break">{operation.error}</p>}
          {!settled && (
            <div class="actions">
              <button
                type="button"
                class="secondary"
                disabled={busy !== undefined}
                onClick={() =>
                  act('cancel', async () => {
                    await detailApi.cancel(operation.operationId);
                  })
                }
              >
                {busy === 'cancel' ? 'Cancelling…' : 'Cancel the update'}
              </button>
            </div>
          )}
        </section>
      )}
    </>
  );
}
