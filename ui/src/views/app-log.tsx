import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { adminApi, type LogEntry, type LogLevel } from '../admin-api';
import { ErrorText } from '../components/error-text';
import { LogControls, type LogReading, LogText, lineMatches } from '../log-view/log-text';
import { navigate, query } from '../router';

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
/** The hub keeps the last 1,000 entries (http-interface §4.6); the view keeps as many. */
const KEEP = 1_000;
const BACKFILL = 200;
const RETRY_MS = 2_000;

type StreamState = 'connecting' | 'live' | 'paused' | 'lost';

function readFilters() {
  const q = new URLSearchParams(location.search);
  const level = q.get('level') ?? 'info';
  return {
    level: (LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : 'info',
    component: q.get('component') ?? '',
  };
}

const time = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour12: false });

/**
 * The hub's application log, live: the WebSocket of http-interface §4.6 sends a filtered backfill,
 * then each new entry. Changing a filter opens a new socket with it, so the hub filters, not the page.
 */
export function AppLog() {
  void query.value; // re-read the filters when the address changes
  const filters = readFilters();
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [components, setComponents] = useState<string[]>([]);
  const [state, setState] = useState<StreamState>('connecting');
  const [error, setError] = useState<string | undefined>();
  const [paused, setPaused] = useState(false);
  const [reading, setReading] = useState<LogReading>({ query: '', pretty: true });
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  useEffect(() => {
    adminApi.logComponents().then(setComponents, (failure: unknown) => setError(errorMessage(failure)));
  }, []);

  useEffect(() => {
    let socket: WebSocket | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    const open = () => {
      const q = new URLSearchParams({ level: filters.level, tail: String(BACKFILL) });
      if (filters.component) q.set('component', filters.component);
      const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
      socket = new WebSocket(`${scheme}://${location.host}/api/v1/log/stream?${q}`);
      setState('connecting');
      setEntries([]);
      socket.onopen = () => setState(pausedRef.current ? 'paused' : 'live');
      socket.onmessage = (event: MessageEvent<string>) => {
        if (pausedRef.current) return;
        const entry = JSON.parse(event.data) as LogEntry;
        setEntries((list) => (list.length >= KEEP ? [...list.slice(-(KEEP - 1)), entry] : [...list, entry]));
      };
      socket.onclose = () => {
        if (closed) return;
        setState('lost');
        retry = setTimeout(open, RETRY_MS);
      };
    };
    open();
    return () => {
      closed = true;
      clearTimeout(retry);
      socket?.close();
    };
  }, [filters.level, filters.component]);

  const set = (change: Partial<ReturnType<typeof readFilters>>) => {
    const next = { ...filters, ...change };
    const q = new URLSearchParams();
    if (next.level !== 'info') q.set('level', next.level);
    if (next.component) q.set('component', next.component);
    const search = q.toString();
    navigate(`/log${search ? `?${search}` : ''}`, true);
  };
  const togglePause = () => {
    setPaused(!paused);
    if (state === 'live' || state === 'paused') setState(paused ? 'live' : 'paused');
  };

  const shown = entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => lineMatches(`${entry.component} ${entry.msg}`, reading.query));
  return (
    <main id="main" tabIndex={-1}>
      <h1>Application log</h1>
      <search class="filters" aria-label="Log filters">
        <label>
          Lowest level
          <select value={filters.level} onChange={(e) => set({ level: e.currentTarget.value as LogLevel })}>
            {LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
        <label>
          Component
          <select value={filters.component} onChange={(e) => set({ component: e.currentTarget.value })}>
            <option value="">Every component</option>
            {components.map((component) => (
              <option key={component} value={component}>
                {component}
              </option>
            ))}
          </select>
        </label>
        <div class="actions">
          <button type="button" class="secondary" aria-pressed={paused} onClick={togglePause}>
            {paused ? 'Resume' : 'Pause'}
          </button>
          <button type="button" class="secondary" onClick={() => setEntries([])}>
            Clear
          </button>
        </div>
      </search>
      <p role="status" class="hint" data-stream={state}>
        {state === 'live' && `Live: ${entries.length} entries.`}
        {state === 'paused' && 'Paused: new entries are not shown.'}
        {state === 'connecting' && 'Connecting…'}
        {state === 'lost' && 'The log stream was cut. Reconnecting…'}
      </p>
      <ErrorText message={error} />
      <LogControls reading={reading} onChange={setReading} shown={shown.length} total={entries.length} />
      <ol class="plain log mono" aria-label="Log entries">
        {shown.map(({ entry, index }) => (
          // Entries have no id; the position in this list is stable until the list is replaced.
          <li key={index} class={`level-${entry.level}`} data-level={entry.level}>
            <time dateTime={new Date(entry.timestamp).toISOString()}>{time(entry.timestamp)}</time> {entry.level}{' '}
            <span class="hint">{entry.component}</span> <LogText line={entry.msg} reading={reading} />
          </li>
        ))}
      </ol>
    </main>
  );
}
