import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { type Container, call } from '../../api';
import { ErrorText } from '../../components/error-text';
import { relative, when } from '../../format-time';
import { containers } from '../../state';

/** GET /watchers (http-interface §2.2): only when each watcher last ran and runs next. */
interface WatcherTimes {
  metadata: { lastRunAt?: string; nextRunAt?: string };
}

function cycleOf(watchers: readonly WatcherTimes[]): { last?: string | undefined; next?: string | undefined } {
  const last = watchers.map((w) => w.metadata.lastRunAt).filter((at): at is string => !!at);
  const next = watchers.map((w) => w.metadata.nextRunAt).filter((at): at is string => !!at);
  return {
    ...(last.length > 0 && { last: last.sort().at(-1) }),
    ...(next.length > 0 && { next: next.sort()[0] }),
  };
}

/** "Check all now" (POST /containers/watch: every watcher, every registry), with the last and the next cycle. */
export function CheckCycle() {
  const [cycle, setCycle] = useState<{ last?: string | undefined; next?: string | undefined } | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [result, setResult] = useState<string | undefined>();
  const readCycle = () =>
    call<{ data: WatcherTimes[] }>('/watchers').then(
      (page) => setCycle(cycleOf(page.data)),
      () => undefined,
    );
  useEffect(() => void readCycle(), []);

  async function checkAll() {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      const page = await call<{ data: Container[] }>('/containers/watch', { method: 'POST' });
      // One new map for the whole answer (putContainer copies the map once per container).
      const next = new Map(containers.value);
      for (const container of page.data) next.set(container.id, container);
      containers.value = next;
      const updates = page.data.filter((c) => c.updateAvailable).length;
      setResult(
        `Checked ${page.data.length} containers: ${updates === 0 ? 'no update' : `${updates} with an update`}.`,
      );
      await readCycle();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="check-cycle">
      <p class="hint" data-field="cycle">
        {cycle?.last ? <span title={when(cycle.last)}>Last checked {relative(cycle.last)}</span> : 'Not checked yet'}
        {cycle?.next && (
          <span title={when(cycle.next)}>
            {' · '}next check {/* A cycle that is due runs now, or is running: its time is no news. */}
            {Date.parse(cycle.next) <= Date.now() + 1_000 ? 'due now' : relative(cycle.next)}
          </span>
        )}
      </p>
      <button type="button" class="secondary" disabled={busy} onClick={checkAll}>
        {busy ? 'Checking every container…' : 'Check all now'}
      </button>
      {result && <p role="status">{result}</p>}
      <ErrorText message={error} />
    </div>
  );
}
