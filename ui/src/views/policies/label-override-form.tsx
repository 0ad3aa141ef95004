import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api';
import { FormActions } from '../../components/form-actions';
import { FormField } from '../../components/form-field';
import { containerList } from '../../state';
import { useAction } from '../../use-action';
import { parseLabels } from './label-lines';
import { MatchList } from './match-list';
import { type GlobalLabelOverride, type LabelOverrideSelector, policiesApi } from './policies-api';
import { matchingNames, selectorMatches } from './policy-matches';

const SELECTOR_FIELDS = [
  { key: 'name', label: 'Container name', hint: 'A glob: * any characters, ? one.', max: 256 },
  { key: 'image', label: 'Image', hint: 'A glob on registry/repository:tag, such as ghcr.io/acme/*.', max: 256 },
  { key: 'agent', label: 'Agent', hint: '__local__ for this hub’s own host.', max: 63 },
  { key: 'watcher', label: 'Watcher', hint: 'Its name, such as local.', max: 128 },
  { key: 'group', label: 'Group', hint: 'Its own dd.group label or compose project.', max: 256 },
] as const;
type SelectorKey = (typeof SELECTOR_FIELDS)[number]['key'];
type Problems = Partial<Record<SelectorKey | 'labels', string>>;

function selectorOf(values: Record<SelectorKey, string>): LabelOverrideSelector {
  const selector: LabelOverrideSelector = {};
  for (const { key } of SELECTOR_FIELDS) {
    const value = values[key].trim();
    if (value) selector[key] = value;
  }
  return selector;
}

const EMPTY: Record<SelectorKey, string> = { name: '', image: '', agent: '', watcher: '', group: '' };

/** POST /label-overrides: a selector, the dd.* labels, and the containers it would match as it is typed. */
interface LabelOverrideFormProps {
  onAdded: (override: GlobalLabelOverride) => void;
  onCancel: () => void;
}

export function LabelOverrideForm({ onAdded, onCancel }: LabelOverrideFormProps) {
  const [values, setValues] = useState(EMPTY);
  const [labels, setLabels] = useState('');
  const [problems, setProblems] = useState<Problems>({});
  const { busy, error, setError, run } = useAction();
  // Opened by a button: the person continues in its first field.
  useEffect(() => document.getElementById('selector-name')?.focus(), []);
  const selector = selectorOf(values);

  async function submit(event: Event) {
    event.preventDefault();
    const parsed = parseLabels(labels);
    if ('problem' in parsed) {
      setProblems({ labels: parsed.problem });
      return;
    }
    setProblems({});
    let refused: string | undefined;
    await run(async () => {
      try {
        onAdded(await policiesApi.addLabelOverride({ selector, labels: parsed.labels }));
      } catch (failure) {
        // A value the label's own parser refuses names the key: said beside the labels.
        const key = failure instanceof ApiError ? failure.body?.details?.['label'] : undefined;
        if (typeof key !== 'string') throw failure;
        refused = `${key}: ${failure instanceof ApiError ? failure.message : ''}`;
      }
    });
    if (refused) {
      setProblems({ labels: refused });
      setError(undefined);
    }
  }

  return (
    <section class="card policy-form" aria-labelledby="override-form-title">
      <h3 id="override-form-title">Add a label override</h3>
      <form onSubmit={submit} noValidate>
        <fieldset class="policy-fields">
          <legend>Which containers (every field given must match; none: all of them)</legend>
          {SELECTOR_FIELDS.map((field) => (
            <FormField
              key={field.key}
              id={`selector-${field.key}`}
              label={field.label}
              hint={field.hint}
              problem={problems[field.key]}
            >
              {(attributes) => (
                <input
                  {...attributes}
                  maxLength={field.max}
                  value={values[field.key]}
                  onInput={(event) => setValues({ ...values, [field.key]: event.currentTarget.value })}
                />
              )}
            </FormField>
          ))}
        </fieldset>
        <p class="hint" aria-live="polite">
          Matches now: <MatchList names={matchingNames(containerList.value, (c) => selectorMatches(selector, c))} />
        </p>
        <FormField
          id="override-labels"
          label="Labels"
          hint="One a line, key=value, such as dd.watch=false or dd.update.approval=required."
          problem={problems.labels}
        >
          {(attributes) => (
            <textarea
              {...attributes}
              rows={3}
              value={labels}
              onInput={(event) => {
                setLabels(event.currentTarget.value);
                if (problems.labels) setProblems({});
              }}
            />
          )}
        </FormField>
        <FormActions error={error} busy={busy} submit="Add the override" submitting="Adding…" onCancel={onCancel} />
      </form>
    </section>
  );
}
