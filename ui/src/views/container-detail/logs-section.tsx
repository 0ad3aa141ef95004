import { useEffect, useRef, useState } from 'preact/hooks';
import type { Container } from '../../api';
import { LogControls, type LogReading, LogText, lineMatches } from '../../log-view/log-text';
import { detailUrls } from './detail-api';

/** The lines kept on screen: the download has the rest. */
const KEEP = 1_000;

interface Line {
  n: number;
  type: 'stdout' | 'stderr';
  ts: string;
  line: string;
}

/** Close codes of the log stream (http-interface §4.8), in words. */
function closedBecause(code: number): string {
  switch (code) {
    case 1000:
      return 'The log ended (the container stopped).';
    case 4001:
      return 'The container is not running: start it to follow its log, or download what it wrote.';
    case 4004:
      return 'This container no longer exists.';
    case 1011:
      return 'The log could not be read from Docker (its host may be unreachable).';
    default:
      return 'The log stream closed.';
  }
}

/** The container's log, live over its WebSocket (the last 100 lines, then each new one), with a download. */
export function LogsSection({ c }: { c: Container }) {
  const [following, setFollowing] = useState(true);
  const [lines, setLines] = useState<Line[]>([]);
  const [state, setState] = useState<string>('Connecting…');
  const [reading, setReading] = useState<LogReading>({ query: '', pretty: true });
  const counter = useRef(0);

  useEffect(() => {
    if (!following) return;
    const ws = new WebSocket(detailUrls.logStream(c.id));
    let ended = false;
    ws.onopen = () => setState('Following the log.');
    ws.onmessage = (event) => {
      const frame = JSON.parse(String(event.data)) as Omit<Line, 'n'>;
      counter.current += 1;
      const line = { ...frame, n: counter.current };
      setLines((held) => (held.length >= KEEP ? [...held.slice(held.length - KEEP + 1), line] : [...held, line]));
    };
    ws.onclose = (event) => {
      if (ended) return;
      setState(closedBecause(event.code));
      setFollowing(false);
    };
    return () => {
      ended = true;
      ws.close(1000);
    };
  }, [c.id, following]);

  const shown = reading.query ? lines.filter((line) => lineMatches(line.line, reading.query)) : lines;
  return (
    <section class="card" aria-labelledby="logs">
      <h2 id="logs">Logs</h2>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setFollowing(!following)}>
          {following ? 'Pause' : 'Follow'}
        </button>
        <button type="button" class="secondary" onClick={() => setLines([])}>
          Clear
        </button>
        <a class="button secondary" href={detailUrls.logDownload(c.id)} download={`${c.name}.log`}>
          Download the log
        </a>
        <span class="muted" role="status">
          {following ? state : state === 'Following the log.' ? 'Paused.' : state}
        </span>
      </div>
      <LogControls reading={reading} onChange={setReading} shown={shown.length} total={lines.length} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls, so it must be reachable by keyboard */}
      <ol class="log-lines" aria-label={`Log of ${c.name}`} tabIndex={0}>
        {shown.map((line) => (
          <li key={line.n} class={line.type}>
            <time dateTime={line.ts}>{line.ts.slice(11, 19)}</time> <LogText line={line.line} reading={reading} />
          </li>
        ))}
      </ol>
      {lines.length === 0 && <p class="muted">No log lines yet.</p>}
    </section>
  );
}
