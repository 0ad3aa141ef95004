import { useState } from 'preact/hooks';
import { OVERRIDABLE_LABELS } from '../../../../shared/containers/overridable-labels';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { putContainer } from '../../state';
import { useAction } from '../../use-action';
import { detailApi } from './detail-api';

const SOURCE_WORDS: Record<string, string> = {
  override: 'override of this container',
  'global-override': 'global override',
  label: 'label',
  default: 'default',
};

/**
 * The container's own labels, as text (keys and values may hold anything a compose file can), then
 * the `dd.*` values the hub acts on with where each comes from (docs/label-overrides.md), and a form
 * that sets or clears this container's overrides (PATCH, one key at a time).
 */
export function LabelsSection({ c }: { c: Container }) {
  const entries = Object.entries(c.labels);
  const effective = Object.entries(c.effectiveLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  const [key, setKey] = useState<string>(OVERRIDABLE_LABELS[0]);
  const [value, setValue] = useState('');
  const { busy, error, run } = useAction();

  const change = (body: { set?: Record<string, string>; unset?: string[] }) =>
    run(async () => {
      putContainer(await detailApi.patchLabelOverrides(c.id, body));
      if (body.set) setValue('');
    });

  return (
    <section class="card" aria-labelledby="labels">
      <h2 id="labels">Labels</h2>
      {entries.length === 0 ? (
        <p>No labels.</p>
      ) : (
        <dl class="grid kv">
          {entries.map(([name, text]) => (
            <div class="kv-row" key={name}>
              <dt class="mono break">{name}</dt>
              <dd class="mono break">{text}</dd>
            </div>
          ))}
        </dl>
      )}
      <h3 id="effective-labels">What the hub acts on</h3>
      {effective.length === 0 ? (
        <p class="hint">No dd.* value set: the hub's defaults apply.</p>
      ) : (
        <table class="list" aria-labelledby="effective-labels">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Value</th>
              <th scope="col">From</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {effective.map(([name, entry]) => (
              <tr key={name} data-label-key={name}>
                <td data-label="Label" class="mono break">
                  {name}
                </td>
                <td data-label="Value" class="mono break">
                  {entry.value}
                </td>
                <td data-label="From">{SOURCE_WORDS[entry.source] ?? entry.source}</td>
                <td data-label="Actions">
                  {entry.source === 'override' && (
                    <button type="button" class="secondary" disabled={busy} onClick={() => change({ unset: [name] })}>
                      Clear override
                      <span class="visually-hidden"> of {name}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        class="actions override-form"
        onSubmit={(event) => {
          event.preventDefault();
          void change({ set: { [key]: value } });
        }}
      >
        <label>
          Override{' '}
          <select value={key} onChange={(event) => setKey(event.currentTarget.value)}>
            {OVERRIDABLE_LABELS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          with{' '}
          <input
            type="text"
            class="mono"
            maxLength={1024}
            value={value}
            onInput={(event) => setValue(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Set override
        </button>
      </form>
      <p class="hint">
        An override changes what the hub acts on without re-creating the container, and is kept when the container is
        re-created. Hooks (dd.hook.*) stay labels only.
      </p>
      <ErrorText message={error} />
    </section>
  );
}
