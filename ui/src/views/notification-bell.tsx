import { useEffect, useState } from 'preact/hooks';
import type * as v from 'valibot';
import type { BellEntrySchema } from '../../../shared/schemas/notification-views';
import { type ApiError, call } from '../api';
import { relative, when } from '../format-time';
import { bellSentence, bellTarget } from './bell-words';
import { containerHref } from './dashboard/container-links';

type BellEntry = v.InferOutput<typeof BellEntrySchema>;
interface BellPage {
  data: BellEntry[];
  unread: number;
}

const SHOWN = 5;

/** The entry in words, a link to what it is about (its container, or the agents). */
function BellLink({ entry }: { entry: BellEntry }) {
  const sentence = bellSentence(entry);
  const target = bellTarget(entry);
  if (target === 'agents') return <a href="/agents">{sentence}</a>;
  if (target === 'container' && entry.containerName)
    return (
      <a href={containerHref(entry.containerName)} class="break">
        {sentence}
      </a>
    );
  return <span class="break">{sentence}</span>;
}

/** The in-app bell (http-interface §2.8) on the dashboard: the unread count, the latest entries, mark all read. */
export function NotificationBell() {
  const [page, setPage] = useState<BellPage | undefined>();
  const [error, setError] = useState<string | undefined>();
  const load = () =>
    call<BellPage>(`/notifications/bell?limit=${SHOWN}`).then(setPage, (failure: ApiError) =>
      setError(failure.message),
    );
  useEffect(() => {
    void load();
  }, []);
  const markAllRead = () =>
    call<{ unread: number }>('/notifications/bell/read', { method: 'POST', body: {} }).then(
      () => load(),
      (failure: ApiError) => setError(failure.message),
    );

  return (
    <section aria-labelledby="bell" class="card">
      <h2 id="bell">
        Notifications{' '}
        {page && page.unread > 0 && (
          <span class="badge">
            {page.unread} <span class="visually-hidden">unread</span>
          </span>
        )}
      </h2>
      {error && <p class="error">{error}</p>}
      {page && page.data.length === 0 && <p>Nothing to tell yet.</p>}
      <ul class="plain">
        {page?.data.map((entry) => (
          <li key={entry.id} class={entry.read ? 'read' : 'unread'}>
            <time class="hint" dateTime={entry.timestamp} title={when(entry.timestamp)}>
              {relative(entry.timestamp)}
            </time>{' '}
            <BellLink entry={entry} />
          </li>
        ))}
      </ul>
      {page && page.unread > 0 && (
        <button type="button" onClick={markAllRead}>
          Mark all read
        </button>
      )}
    </section>
  );
}
