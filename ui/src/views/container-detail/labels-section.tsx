import type { Container } from '../../api';

/** The container's labels, as text: keys and values may hold anything a compose file can. */
export function LabelsSection({ c }: { c: Container }) {
  const entries = Object.entries(c.labels);
  return (
    <section class="card" aria-labelledby="labels">
      <h2 id="labels">Labels</h2>
      {entries.length === 0 ? (
        <p>No labels.</p>
      ) : (
        <dl class="grid kv">
          {entries.map(([key, value]) => (
            <div class="kv-row" key={key}>
              <dt class="mono break">{key}</dt>
              <dd class="mono break">{value}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
