import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { useAction } from '../../use-action';
import { type ContainerTrigger, detailApi } from './detail-api';
import { useSectionRead } from './use-section-read';

/**
 * The triggers that apply to the container (http-interface §4.8): Docker action triggers (running one
 * updates the container) and notification triggers (running one sends its message now).
 */
export function TriggersSection({ c }: { c: Container }) {
  const [triggers, setTriggers] = useState<ContainerTrigger[] | undefined>();
  const { running: busy, error, setError, run: act } = useAction<string>();
  const [done, setDone] = useState<string | undefined>();

  useSectionRead(
    (signal) => detailApi.triggers(c.id, signal),
    (page) => setTriggers(page.data),
    setError,
    [c.id],
  );

  function run(trigger: ContainerTrigger) {
    setDone(undefined);
    return act(async () => {
      await detailApi.runTrigger(c.id, trigger);
      setDone(
        trigger.type === 'docker'
          ? `${trigger.name} started an update of ${c.name}.`
          : `${trigger.name} (${trigger.type}) ran for ${c.name}.`,
      );
    }, trigger.id);
  }

  return (
    <section class="card" aria-labelledby="triggers">
      <h2 id="triggers">Triggers</h2>
      {triggers === undefined && !error && <p class="muted">Loading…</p>}
      {triggers?.length === 0 && <p>No trigger applies to this container.</p>}
      {triggers && triggers.length > 0 && (
        <ul class="plain rows">
          {triggers.map((trigger) => (
            <li key={trigger.id}>
              <span class="mono break">
                {trigger.name} ({trigger.type === 'docker' ? 'Docker update' : trigger.type})
              </span>
              <button
                type="button"
                class="secondary"
                disabled={busy !== undefined}
                aria-label={`Run ${trigger.name} (${trigger.type}) for ${c.name}`}
                onClick={() => run(trigger)}
              >
                {busy === trigger.id ? 'Running…' : 'Run'}
              </button>
            </li>
          ))}
        </ul>
      )}
      {done && <p role="status">{done}</p>}
      <ErrorText message={error} />
    </section>
  );
}
