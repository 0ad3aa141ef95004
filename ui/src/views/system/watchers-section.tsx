import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { ErrorText } from '../../components/error-text';
import { relative, when } from '../../format-time';
import { useAction } from '../../use-action';
import { CheckCycle } from '../dashboard/check-cycle';
import { systemApi, type WatcherView } from './system-api';

/** Where a watcher looks, in a few words: its endpoint, file or directory. */
function sourceOf(watcher: WatcherView): string {
  const configuration = watcher.configuration ?? {};
  return String(configuration.endpoint ?? configuration.file ?? configuration.directory ?? '—');
}

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

  return (
    <section class="card" aria-labelledby="watchers">
      <h2 id="watchers">Watchers</h2>
      <CheckCycle />
      {watchers && watchers.length === 0 && <p>No watcher is registered.</p>}
      {watchers && watchers.length > 0 && (
        <table class="list" aria-labelledby="watchers">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Where</th>
              <th scope="col">Schedule</th>
              <th scope="col">Last run</th>
              <th scope="col">Next run</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {watchers.map((watcher) => (
              <tr key={keyOf(watcher)} data-watcher={watcher.name}>
                <td data-label="Name">
                  {watcher.name}
                  {watcher.agent && <span class="hint"> on {watcher.agent}</span>}
                </td>
                <td data-label="Type">{watcher.type}</td>
                <td data-label="Where" class="mono break">
                  {sourceOf(watcher)}
                </td>
                <td data-label="Schedule" class="mono">
                  {String(watcher.configuration?.cron ?? '—')}
                </td>
                <td data-label="Last run">
                  <span title={when(watcher.metadata.lastRunAt)}>{relative(watcher.metadata.lastRunAt)}</span>
                </td>
                <td data-label="Next run" data-field="next-run">
                  <span title={when(watcher.metadata.nextRunAt)}>{relative(watcher.metadata.nextRunAt)}</span>
                </td>
                <td data-label="Actions">
                  <button type="button" class="secondary" disabled={busy} onClick={() => refresh(watcher)}>
                    {running === keyOf(watcher) ? 'Reading…' : `Read ${watcher.name} again`}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {done && <p role="status">{done}</p>}
      <ErrorText message={error} />
    </section>
  );
}
