import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { api, type BulkUpdateAnswer, type Container } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { type Operation, operations } from '../../state';

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
    results.value = { results: gathered, error: errorMessage(error) };
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
            {pending < chosen.length ? '; the hub refuses the others and says why.' : '.'} The hub updates several at
            once (containers of one compose project one after another): each is stopped and re-created on its new image,
            and rolled back on its own if it fails.
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

type RowState = 'refused' | 'queued' | Operation['status'];
const SETTLED: ReadonlySet<RowState> = new Set(['refused', 'succeeded', 'rolled-back', 'failed']);
const STATE_WORDS: Record<RowState, string> = {
  refused: 'refused',
  queued: 'queued',
  'in-progress': 'updating',
  succeeded: 'updated',
  'rolled-back': 'rolled back',
  failed: 'failed',
};

/** "2 updated, 1 failed": the counts that are not zero, in a fixed order. */
export function tally(states: readonly RowState[]): string {
  const order: RowState[] = ['succeeded', 'rolled-back', 'failed', 'refused', 'in-progress', 'queued'];
  return order
    .map((state) => [state, states.filter((s) => s === state).length] as const)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${STATE_WORDS[state]}`)
    .join(', ');
}

/**
 * Each container's answer, then its update as the event stream reports it (looked up by operation
 * id, so two containers of one name on two hosts do not mix), and a heading that says where the
 * batch stands: how many are still under way, then how many succeeded, failed or were refused.
 */
function BulkResults({ results: list, error }: { results: Result[]; error?: string }) {
  const byOperation = new Map([...operations.value.values()].map((operation) => [operation.operationId, operation]));
  const rows = list.map((r) => {
    const live = r.operationId ? byOperation.get(r.operationId) : undefined;
    const state: RowState = r.result === 'refused' ? 'refused' : (live?.status ?? 'queued');
    return { r, live, state };
  });
  const states = rows.map((row) => row.state);
  const done = states.every((state) => SETTLED.has(state));
  return (
    <section class="bulk-results" aria-labelledby="bulk-results-title" data-settled={done}>
      <h2 id="bulk-results-title" aria-live="polite">
        {done ? 'Bulk update finished' : 'Bulk update under way'}: {tally(states)}
      </h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="plain">
        {rows.map(({ r, live, state }) => (
          <li key={r.containerId} data-result={r.result} data-state={state}>
            <strong>{r.containerName ?? r.containerId}</strong>{' '}
            {r.result === 'refused' ? (
              <span class="badge failed">
                refused ({r.status}): {r.error}
              </span>
            ) : (
              <span class={`badge ${state === 'failed' || state === 'rolled-back' ? 'failed' : 'updated'}`}>
                {STATE_WORDS[state]}
                {live?.error ? `: ${live.error}` : state === 'in-progress' && live ? ` (${live.phase})` : ''}
              </span>
            )}
          </li>
        ))}
      </ul>
      <button type="button" class="secondary" onClick={() => (results.value = undefined)}>
        Dismiss
      </button>
    </section>
  );
}
