import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import { ApiError, api, type BulkUpdateAnswer, type Container } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { operations } from '../../state';

/** The route takes at most 100 ids a request (bulk-update-routes.ts); a larger selection goes in several. */
const PER_REQUEST = 100;
const NAMED_IN_DIALOG = 8;

/** The selected containers' ids: kept across filters, so a selection can be built from several. */
export const selection = signal<ReadonlySet<string>>(new Set());
type Result = BulkUpdateAnswer['results'][number];
const results = signal<{ results: Result[]; error?: string } | undefined>(undefined);

export function select(ids: readonly string[], on: boolean): void {
  const next = new Set(selection.value);
  for (const id of ids) on ? next.add(id) : next.delete(id);
  selection.value = next;
}

async function updateAll(ids: string[]): Promise<void> {
  const gathered: Result[] = [];
  try {
    for (let start = 0; start < ids.length; start += PER_REQUEST)
      gathered.push(...(await api.bulkUpdate(ids.slice(start, start + PER_REQUEST))).results);
    results.value = { results: gathered };
    selection.value = new Set();
  } catch (error) {
    results.value = { results: gathered, error: error instanceof ApiError ? error.message : String(error) };
  }
}

/**
 * "Update N" for the selection (POST /containers/update, http-interface §4.8). The route needs no
 * confirmation token (§4.1 names none), but updating many containers is asked first, naming them
 * and how many have nothing to update, which the hub then refuses one by one.
 */
export function BulkBar({ byId }: { byId: ReadonlyMap<string, Container> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const chosen = [...selection.value].flatMap((id) => byId.get(id) ?? []);
  if (chosen.length === 0 && !results.value) return null;
  const pending = chosen.filter((c) => c.updateAvailable).length;
  return (
    <>
      {chosen.length > 0 && (
        <section class="bulk-bar" aria-label="Selected containers">
          <span>{chosen.length} selected</span>
          <button type="button" onClick={() => setAsking(true)}>
            Update {chosen.length}
          </button>
          <button type="button" class="secondary" onClick={() => (selection.value = new Set())}>
            Clear selection
          </button>
        </section>
      )}
      {asking && (
        <ConfirmDialog
          title={`Update ${chosen.length} ${chosen.length === 1 ? 'container' : 'containers'}?`}
          action={`Update ${chosen.length}`}
          busy={busy}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setBusy(true);
            void updateAll(chosen.map((c) => c.id)).finally(() => {
              setBusy(false);
              setAsking(false);
            });
          }}
        >
          <p>
            {pending} of them {pending === 1 ? 'has' : 'have'} an update pending
            {pending < chosen.length ? '; the hub refuses the others and says why.' : '.'} Each one is stopped and
            re-created on its new image, one after another.
          </p>
          <ul class="plain">
            {chosen.slice(0, NAMED_IN_DIALOG).map((c) => (
              <li key={c.id}>{c.name}</li>
            ))}
            {chosen.length > NAMED_IN_DIALOG && <li>and {chosen.length - NAMED_IN_DIALOG} more</li>}
          </ul>
        </ConfirmDialog>
      )}
      {results.value && <BulkResults {...results.value} />}
    </>
  );
}

/** Each container's answer, then its update's phases as the event stream reports them. */
function BulkResults({ results: list, error }: { results: Result[]; error?: string }) {
  const accepted = list.filter((r) => r.result === 'accepted').length;
  return (
    <section class="bulk-results" aria-labelledby="bulk-results-title">
      <h2 id="bulk-results-title">
        Bulk update: {accepted} of {list.length} queued
      </h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="plain" aria-live="polite">
        {list.map((r) => {
          const operation = r.containerName ? operations.value.get(r.containerName) : undefined;
          const live = operation && operation.operationId === r.operationId ? operation : undefined;
          return (
            <li key={r.containerId} data-result={r.result}>
              <strong>{r.containerName ?? r.containerId}</strong>{' '}
              {r.result === 'accepted' ? (
                <span class="badge updated">
                  {live ? (live.error ? `failed: ${live.error}` : live.phase) : 'queued'}
                </span>
              ) : (
                <span class="badge failed">
                  refused ({r.status}): {r.error}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      <button type="button" class="secondary" onClick={() => (results.value = undefined)}>
        Dismiss
      </button>
    </section>
  );
}
