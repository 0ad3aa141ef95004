import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, type UpdatePreview } from '../api';
import { candidateOf, hostOf, imageName, shortDigest, updateKindOf } from '../format';
import { containers, containersLoaded, operations, putContainer } from '../state';

const SETTLED = new Set(['succeeded', 'rolled-back', 'failed']);

/** One container: what runs against what could, its labels, "Check now", and an update with its live phases. */
export function ContainerDetail({ id }: { id: string }) {
  const container = containers.value.get(id);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const [preview, setPreview] = useState<UpdatePreview | undefined>();
  const [missing, setMissing] = useState(false);

  useEffect(() => {
    if (container || !containersLoaded.value) return;
    // Not in the store (yet): ask for it once; a 404 means it is gone.
    api
      .container(id)
      .then(putContainer, (failure: ApiError) =>
        failure.status === 404 ? setMissing(true) : setError(failure.message),
      );
  }, [id, containersLoaded.value]);

  if (!container) {
    return (
      <main id="main" tabIndex={-1}>
        <h1>Container</h1>
        <p role="status">{missing ? 'This container no longer exists.' : (error ?? 'Loading…')}</p>
        <a href="/containers">Back to containers</a>
      </main>
    );
  }
  const c = container;
  const operation = operations.value.get(c.name);
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
    <main id="main" tabIndex={-1}>
      <p>
        <a href="/containers">← Containers</a>
      </p>
      <h1 class="break">{c.name}</h1>
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
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {preview && (
        <section class="card" aria-labelledby="preview-title">
          <h2 id="preview-title">Update {c.name}?</h2>
          <p>
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
                  await api.update(c.id);
                  setPreview(undefined);
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
        <section class="card" aria-labelledby="operation-title">
          <h2 id="operation-title">Update {settled ? operation.status : 'in progress'}</h2>
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
          {operation.error && <p class="error">{operation.error}</p>}
        </section>
      )}
      <section class="card" aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        <dl class="grid">
          <dt>Image</dt>
          <dd class="mono break">{imageName(c)}</dd>
          <dt>Running tag</dt>
          <dd class="mono">{c.image.tag.value}</dd>
          <dt>Running digest</dt>
          <dd class="mono">{shortDigest(c.image.digest.value) || 'unknown'}</dd>
          <dt>Candidate</dt>
          <dd class="mono">{c.updateAvailable ? `${candidateOf(c)} (${updateKindOf(c)})` : 'none: up to date'}</dd>
          {c.result?.digest && (
            <>
              <dt>Candidate digest</dt>
              <dd class="mono">{shortDigest(c.result.digest)}</dd>
            </>
          )}
          <dt>Status</dt>
          <dd>
            <span class={`status ${c.status}`}>{c.status}</span>
            {c.health && ` (${c.health})`}
          </dd>
          <dt>Host</dt>
          <dd>
            {hostOf(c)} · watcher {c.watcher}
          </dd>
          {c.error && (
            <>
              <dt>Last check</dt>
              <dd class="error">{c.error.message}</dd>
            </>
          )}
        </dl>
      </section>
      <section class="card" aria-labelledby="labels">
        <h2 id="labels">Labels</h2>
        {Object.keys(c.labels).length === 0 ? (
          <p>No labels.</p>
        ) : (
          <dl class="grid">
            {Object.entries(c.labels).map(([key, value]) => (
              <>
                <dt class="mono break" key={`k${key}`}>
                  {key}
                </dt>
                <dd class="mono break" key={`v${key}`}>
                  {value}
                </dd>
              </>
            ))}
          </dl>
        )}
      </section>
    </main>
  );
}
