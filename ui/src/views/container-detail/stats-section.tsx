import { useEffect, useState } from 'preact/hooks';
import type { Container } from '../../api';
import { detailUrls, type StatsSample } from './detail-api';

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

/**
 * CPU and memory, from the stats stream (http-interface §4.14) while "Show" is on: a second
 * EventSource only while someone looks at it, so the page's one live stream stays the UI's.
 */
export function StatsSection({ c }: { c: Container }) {
  const [on, setOn] = useState(false);
  const [sample, setSample] = useState<StatsSample | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    if (!on) return;
    const source = new EventSource(detailUrls.statsStream(c.id));
    source.addEventListener('container-stats', (event) => {
      setProblem(undefined);
      setSample(JSON.parse((event as MessageEvent<string>).data) as StatsSample);
    });
    source.addEventListener('stats-error', (event) => {
      setProblem((JSON.parse((event as MessageEvent<string>).data) as { error: string }).error);
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        setProblem('The stats stream was refused (the container may be gone or its host unreachable).');
        setOn(false);
      }
    });
    return () => source.close();
  }, [c.id, on]);

  const running = c.status === 'running';
  return (
    <section class="card" aria-labelledby="stats">
      <h2 id="stats">Resources</h2>
      {!running && <p class="muted">Stats are sampled while the container runs.</p>}
      {running && (
        <div class="actions">
          <button type="button" class="secondary" aria-pressed={on} onClick={() => setOn(!on)}>
            {on ? 'Stop live stats' : 'Show live stats'}
          </button>
        </div>
      )}
      {problem && <p class="error">{problem}</p>}
      {on && sample && (
        <dl class="grid" aria-live="polite" data-field="stats">
          <dt>CPU</dt>
          <dd>{sample.cpuPercent.toFixed(1)} %</dd>
          <dt>Memory</dt>
          <dd>
            {mib(sample.memoryBytes)}
            {sample.memoryLimitBytes > 0 && ` of ${mib(sample.memoryLimitBytes)}`}
          </dd>
          <dt>Sampled</dt>
          <dd>{new Date(sample.at).toLocaleTimeString()}</dd>
        </dl>
      )}
    </section>
  );
}
