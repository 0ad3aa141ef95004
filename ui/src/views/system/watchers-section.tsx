import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { ErrorText } from '../../components/error-text';
import { type ListColumn, ListTable } from '../../components/list-table';
import { relative, when } from '../../format-time';
import { useAction } from '../../use-action';
import { CheckCycle } from '../dashboard/check-cycle';
import { systemApi, type WatcherView } from './system-api';

/** Where a watcher looks, in a few words: its endpoint, file or directory. */
function sourceOf(watcher: WatcherView): string {
  const configuration = watcher.configuration ?? {};
  return String(configuration.endpoint ?? configuration.file ?? configuration.directory ?? '—');
}

/** A time in words ("in 5 minutes"), the date and time on hover. */
const TimeAgo = ({ at }: { at: string | undefined }) => <span title={when(at)}>{relative(at)}</span>;

const keyOf = (w: WatcherView) => `${w.agent ?? ''}/${w.type}/${w.name}`;

/** Every watcher with its schedule, last and next run, and a refresh of its inventory; "Check all now" above them. */
export function WatchersSection() {
  const [watchers, setWatchers] = useState<WatcherView[] | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const { running, busy, error, setError, run } = useAction<string>();
  const read = () =>
    systemApi.watchers().then(
      (page) => setWatchers(page.data),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  useEffect(() => void read(), []);
  const refresh = (watcher: WatcherView) =>
    run(async () => {
      setDone(undefined);
      await systemApi.refreshWatcher(watcher);
      setDone(`Read the containers of ${watcher.name} again.`);
      await read();
    }, keyOf(watcher));

  const columns: ListColumn<WatcherView>[] = [
    {
      label: 'Name',
      cell: (watcher) => (
        <>
          {watcher.name}
          {watcher.agent && <span class="hint"> on {watcher.agent}</span>}
        </>
      ),
    },
    { label: 'Type', cell: (watcher) => watcher.type },
    { label: 'Where', class: 'mono break', cell: sourceOf },
    { label: 'Schedule', class: 'mono', cell: (watcher) => String(watcher.configuration?.cron ?? '—') },
    { label: 'Last run', cell: (watcher) => <TimeAgo at={watcher.metadata.lastRunAt} /> },
    { label: 'Next run', field: 'next-run', cell: (watcher) => <TimeAgo at={watcher.metadata.nextRunAt} /> },
    {
      label: 'Actions',
      hiddenLabel: true,
      cell: (watcher) => (
        <button type="button" class="secondary" disabled={busy} onClick={() => refresh(watcher)}>
          {running === keyOf(watcher) ? 'Reading…' : `Read ${watcher.name} again`}
        </button>
      ),
    },
  ];
  return (
    <section class="card" aria-labelledby="watchers">
      <h2 id="watchers">Watchers</h2>
      <CheckCycle />
      {watchers && watchers.length === 0 && <p>No watcher is registered.</p>}
      {watchers && watchers.length > 0 && (
        <ListTable
          columns={columns}
          rows={watchers}
          rowKey={keyOf}
          rowAttribute="data-watcher"
          rowValue={(watcher) => watcher.name}
          labelledBy="watchers"
        />
      )}
      {done && <p role="status">{done}</p>}
      <ErrorText message={error} />
    </section>
  );
}
