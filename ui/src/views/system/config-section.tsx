import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { ApiError } from '../../api';
import { ErrorText } from '../../components/error-text';
import { useAction } from '../../use-action';
import { type ConfigView, systemApi, type Validation } from './system-api';

const SOURCE_WORDS = { env: 'environment', file: 'file', default: 'default' } as const;

/** Every variable with its value (secrets masked by the hub) and its source, filtered as one types; problems beside theirs. */
function VariablesTable({ config, problems }: { config: ConfigView; problems: Validation['problems'] }) {
  const [filter, setFilter] = useState('');
  const wanted = filter.trim().toUpperCase();
  const shown = config.variables.filter((variable) => wanted === '' || variable.name.includes(wanted));
  const problemOf = new Map(problems.map((problem) => [problem.variable, problem.message]));
  return (
    <>
      <label>
        Find a variable <input type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
      </label>
      <table class="list" aria-label="Variables">
        <thead>
          <tr>
            <th scope="col">Variable</th>
            <th scope="col">Value</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((variable) => (
            <tr
              key={variable.name}
              data-variable={variable.name}
              aria-invalid={problemOf.has(variable.name) || undefined}
            >
              <td data-label="Variable" class="mono break">
                {variable.name}
                {config.restartRequired.includes(variable.name) && <span class="hint"> (needs a restart)</span>}
              </td>
              <td data-label="Value" class="mono break">
                {variable.value ?? '—'}
                {problemOf.has(variable.name) && <span class="error"> {problemOf.get(variable.name)}</span>}
              </td>
              <td data-label="From">{SOURCE_WORDS[variable.source]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length === 0 && <p>No variable matches "{filter}".</p>}
    </>
  );
}

/**
 * The configuration (docs/configuration-file.md): the variables as the hub reads them; the file of
 * DD_CONFIG_FILE checked before it is written, each problem named with its variable, written and
 * reloaded only after a second click. Administrators only: others are told so.
 */
export function ConfigSection() {
  const [config, setConfig] = useState<ConfigView | undefined>();
  const [readError, setReadError] = useState<string | undefined>();
  const [content, setContent] = useState('');
  const [validation, setValidation] = useState<Validation | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState<string | undefined>();
  const { running, busy, error, run } = useAction<'validate' | 'save'>();

  const read = () =>
    systemApi.config().then(
      (view) => {
        setConfig(view);
        setContent(view.file?.content ?? '');
      },
      (failure: unknown) =>
        setReadError(
          failure instanceof ApiError && failure.status === 403
            ? 'Reading the configuration needs an administrator.'
            : errorMessage(failure),
        ),
    );
  useEffect(() => void read(), []);

  const validate = () =>
    run(async () => {
      setSaved(undefined);
      setConfirming(false);
      setValidation(await systemApi.validate(content));
    }, 'validate');
  const save = () =>
    run(async () => {
      const reload = await systemApi.save(content);
      setConfirming(false);
      setValidation(undefined);
      setSaved(
        `Saved and reloaded: ${reload.applied.length} applied${
          reload.restartRequired.length > 0 ? `; a restart is needed for ${reload.restartRequired.join(', ')}` : ''
        }.`,
      );
      await read();
    }, 'save');

  const file = config?.file;
  return (
    <section class="card" aria-labelledby="configuration">
      <h2 id="configuration">Configuration</h2>
      {readError && <p data-field="config-refused">{readError}</p>}
      {config && !file && (
        <p>
          No configuration file: the variables come from the environment. Set <code>DD_CONFIG_FILE</code> to edit them
          here.
        </p>
      )}
      {file && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void validate();
          }}
        >
          <label for="config-file">
            <span class="mono">{file.path}</span> {file.writable ? '' : '(read-only)'}
          </label>
          <textarea
            id="config-file"
            class="mono"
            rows={12}
            value={content}
            readOnly={!file.writable}
            onInput={(event) => {
              setContent(event.currentTarget.value);
              setConfirming(false);
              setValidation(undefined);
            }}
          />
          {validation && (
            <div role={validation.valid ? 'status' : 'alert'} data-field="validation">
              {validation.valid ? (
                <p>The file is valid: {validation.variables.length} variables.</p>
              ) : (
                <ul>
                  {validation.problems.map((problem) => (
                    <li key={`${problem.variable}:${problem.message}`}>
                      <code>{problem.variable}</code>: {problem.message}
                    </li>
                  ))}
                </ul>
              )}
              {validation.overridden.length > 0 && (
                <p class="hint">The environment overrides {validation.overridden.join(', ')}.</p>
              )}
            </div>
          )}
          <div class="actions">
            <button type="submit" class="secondary" disabled={busy}>
              {running === 'validate' ? 'Checking…' : 'Check'}
            </button>
            {file.writable && validation?.valid && !confirming && (
              <button type="button" onClick={() => setConfirming(true)}>
                Save and reload…
              </button>
            )}
            {confirming && (
              <button type="button" disabled={busy} onClick={save}>
                {running === 'save' ? 'Saving…' : 'Write the file and reload now'}
              </button>
            )}
          </div>
          {saved && <p role="status">{saved}</p>}
          <ErrorText message={error} />
        </form>
      )}
      {config && <VariablesTable config={config} problems={validation?.problems ?? []} />}
    </section>
  );
}
