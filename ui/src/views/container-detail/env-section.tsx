import { useEffect, useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { useAction } from '../../use-action';
import { detailApi, type EnvEntry } from './detail-api';

/**
 * The environment as served, secrets redacted to `***` (http-interface §2.4); "Reveal" asks the hub
 * for the values (§4.8 env/reveal: audited, 10 a minute). Revealed values live in this component only:
 * never in the shared state nor in storage, and gone when the page is left or "Hide" is pressed.
 */
export function EnvSection({ c }: { c: Container }) {
  const [revealed, setRevealed] = useState<EnvEntry[] | undefined>();
  const { busy, error, run } = useAction();
  // Another container (the page reused by the router): forget what was revealed.
  useEffect(() => setRevealed(undefined), [c.id]);

  const reveal = () => run(async () => setRevealed((await detailApi.revealEnv(c.id)).env));

  const shown = revealed ?? c.env.map((entry) => ({ ...entry, sensitive: entry.value === '***' }));
  return (
    <section class="card" aria-labelledby="environment">
      <h2 id="environment">Environment</h2>
      {c.env.length === 0 ? (
        <p>No environment variables.</p>
      ) : (
        <>
          <div class="actions">
            {revealed ? (
              <button type="button" class="secondary" onClick={() => setRevealed(undefined)}>
                Hide values
              </button>
            ) : (
              <button type="button" class="secondary" disabled={busy} onClick={reveal}>
                {busy ? 'Revealing…' : 'Reveal values'}
              </button>
            )}
            <span class="muted">
              {revealed ? 'Shown for this page only; the reveal is in the audit log.' : 'Secrets show as ***.'}
            </span>
          </div>
          <ErrorText message={error} />
          <dl class="grid kv" data-revealed={revealed ? 'true' : 'false'}>
            {shown.map((entry, index) => (
              <div class="kv-row" key={`${index}:${entry.key}`}>
                <dt class="mono break">
                  {entry.key}
                  {entry.sensitive && <span class="tag">secret</span>}
                </dt>
                <dd class="mono break">{entry.value}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}
