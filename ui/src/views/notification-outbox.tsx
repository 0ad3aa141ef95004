import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { adminApi, type OutboxEntry } from '../admin-api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorText } from '../components/error-text';
import { when } from '../format-time';
import { useAction } from '../use-action';

/** Deliveries waiting, retrying or given up (http-interface §2.9, §3.6): retry a dead letter, delete any. */
export function NotificationOutbox() {
  const [entries, setEntries] = useState<OutboxEntry[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [deleting, setDeleting] = useState<OutboxEntry | undefined>();
  const action = useAction();
  const busy = action.busy;

  const load = () =>
    adminApi.outbox().then(
      (page) => {
        setEntries(page.data);
        setError(undefined);
      },
      (failure: unknown) => setError(errorMessage(failure)),
    );
  useEffect(() => void load(), []);

  async function act(run: () => Promise<unknown>) {
    await action.run(async () => {
      await run();
      await load();
    });
    setDeleting(undefined);
  }

  return (
    <section class="card" aria-labelledby="outbox">
      <h2 id="outbox">Outbox</h2>
      <p class="hint">Messages a trigger could not deliver yet. A dead letter has used all its attempts.</p>
      <div class="actions">
        <button type="button" class="secondary" onClick={load}>
          Refresh
        </button>
      </div>
      <ErrorText message={action.error ?? error} />
      {entries && entries.length === 0 && <p>Nothing is waiting: every message was delivered.</p>}
      {entries && entries.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Message</th>
              <th scope="col">Trigger</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last error</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-outbox={entry.id}>
                <td data-label="Message" class="break">
                  <span>
                    {entry.payload.title}
                    <span class="hint">
                      {' '}
                      · {entry.event} · {entry.payload.containerCount} container
                      {entry.payload.containerCount === 1 ? '' : 's'} · {when(entry.createdAt)}
                    </span>
                  </span>
                </td>
                <td data-label="Trigger" class="mono">
                  {entry.triggerId}
                </td>
                <td data-label="State">
                  <span>
                    {entry.status}
                    {entry.nextAttemptAt && entry.status !== 'dead-letter' && (
                      <span class="hint"> · next {when(entry.nextAttemptAt)}</span>
                    )}
                  </span>
                </td>
                <td data-label="Attempts">{`${entry.attempts} of ${entry.maxAttempts}`}</td>
                <td data-label="Last error" class="break">
                  {entry.lastError ?? '—'}
                </td>
                <td data-label="Actions">
                  <div class="actions">
                    {entry.status === 'dead-letter' && (
                      <button
                        type="button"
                        class="secondary"
                        disabled={busy}
                        onClick={() => act(() => adminApi.retryOutbox(entry.id))}
                      >
                        Retry
                      </button>
                    )}
                    <button type="button" class="danger" disabled={busy} onClick={() => setDeleting(entry)}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete this message?"
          action="Delete the message"
          busy={busy}
          onConfirm={() => act(() => adminApi.deleteOutbox(deleting.id))}
          onCancel={() => setDeleting(undefined)}
        >
          <p>
            <span class="break">{deleting.payload.title}</span> will never be delivered through{' '}
            <span class="mono">{deleting.triggerId}</span>.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
