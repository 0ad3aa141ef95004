import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api';
import { FormActions } from '../../components/form-actions';
import { FormField } from '../../components/form-field';
import { containerList } from '../../state';
import { useAction } from '../../use-action';
import { previewRollout, rolloutImages } from './rollout-preview';
import { hostWords, waveName } from './rollout-words';
import { type Rollout, type RolloutStartBody, rolloutsApi } from './rollouts-api';

type Field = 'image' | 'toVersion' | 'group' | 'canaryHost' | 'waveSize' | 'pauseSeconds';
type Problems = Partial<Record<Field, string>>;
type Values = Record<Field, string>;

const EMPTY: Values = { image: '', toVersion: '', group: '', canaryHost: '', waveSize: '', pauseSeconds: '' };

/** The fields past the image, each with what leaving it empty means (RolloutStartBodySchema's limits). */
const OPTIONAL_FIELDS: { field: Field; label: string; hint: string; attributes: Record<string, unknown> }[] = [
  {
    field: 'toVersion',
    label: 'Version (optional)',
    hint: 'Needed only when containers wait for different versions.',
    attributes: { maxLength: 200 },
  },
  {
    field: 'group',
    label: 'Group (optional)',
    hint: "Only this group's containers; its policy gives the wave settings left empty.",
    attributes: { maxLength: 128 },
  },
  {
    field: 'canaryHost',
    label: 'Canary host (optional)',
    hint: 'Updated first; otherwise the first host by name.',
    attributes: { maxLength: 200 },
  },
  {
    field: 'waveSize',
    label: 'Hosts per wave',
    hint: "Empty: 1, or the group's policy.",
    attributes: { type: 'number', min: 1, max: 1000, step: 1, inputMode: 'numeric' },
  },
  {
    field: 'pauseSeconds',
    label: 'Pause between waves (seconds)',
    hint: "Empty: none, or the group's policy.",
    attributes: { type: 'number', min: 0, max: 86_400, step: 1, inputMode: 'numeric' },
  },
];

/** A whole number in [min, max], or the reason it is not, in words. */
function wholeProblem(text: string, min: number, max: number, what: string): string | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value)) return `${what} must be a whole number.`;
  if (value < min || value > max) return `${what} must be between ${min} and ${max}.`;
  return undefined;
}

/** What the API would refuse (RolloutStartBodySchema's limits), said beside each field before sending. */
function problemsOf(values: Values): Problems {
  const problems: Problems = {};
  if (values.image.trim() === '') problems.image = 'Name the image to roll out, such as ghcr.io/acme/web.';
  const wave = wholeProblem(values.waveSize, 1, 1000, 'Hosts per wave');
  if (wave) problems.waveSize = wave;
  const pause = wholeProblem(values.pauseSeconds, 0, 86_400, 'The pause');
  if (pause) problems.pauseSeconds = pause;
  return problems;
}

function bodyOf(values: Values): RolloutStartBody {
  const text = (field: Field) => values[field].trim() || undefined;
  const toVersion = text('toVersion');
  const group = text('group');
  const canaryHost = text('canaryHost');
  return {
    image: values.image.trim(),
    ...(toVersion && { toVersion }),
    ...(group && { group }),
    ...(canaryHost && { canaryHost }),
    ...(values.waveSize.trim() && { waveSize: Number(values.waveSize) }),
    ...(values.pauseSeconds.trim() && { pauseSeconds: Number(values.pauseSeconds) }),
  };
}

/** The hub's 409 refusals (no-candidates, candidates-differ) belong beside a field; the rest above the button. */
function refusalProblems(error: unknown): Problems | undefined {
  if (!(error instanceof ApiError) || error.status !== 409) return undefined;
  const details = error.body?.details ?? {};
  if (details['reason'] === 'no-candidates') return { image: `${error.message}.` };
  if (details['reason'] === 'candidates-differ') {
    const candidates = Array.isArray(details['candidates']) ? details['candidates'].join(', ') : '';
    return { toVersion: `Several versions are pending (${candidates}): name the one to roll out.` };
  }
  return undefined;
}

/** POST /rollouts: the fields the route takes, what the hub would plan beside them, refusals in words. */
interface RolloutFormProps {
  onStarted: (rollout: Rollout) => void;
  onCancel: () => void;
}

export function RolloutForm({ onStarted, onCancel }: RolloutFormProps) {
  const [values, setValues] = useState<Values>(EMPTY);
  const [problems, setProblems] = useState<Problems>({});
  const { busy, error, setError, run } = useAction();
  // Opened by a button: the person continues in its first field.
  useEffect(() => document.getElementById('rollout-image')?.focus(), []);
  const set = (field: Field) => (event: { currentTarget: HTMLInputElement }) => {
    const next = { ...values, [field]: event.currentTarget.value };
    setValues(next);
    // A problem shown follows the typing until the value is right.
    if (problems[field]) setProblems({ ...problems, [field]: problemsOf(next)[field] });
  };
  const waveSize = Number(values.waveSize) >= 1 ? Math.floor(Number(values.waveSize)) : 1;
  const preview =
    values.image.trim() === ''
      ? undefined
      : previewRollout(containerList.value, {
          image: values.image,
          waveSize,
          ...(values.toVersion.trim() && { toVersion: values.toVersion.trim() }),
          ...(values.group.trim() && { group: values.group.trim() }),
          ...(values.canaryHost.trim() && { canaryHost: values.canaryHost.trim() }),
        });

  async function submit(event: Event) {
    event.preventDefault();
    const found = problemsOf(values);
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    let refusal: Problems | undefined;
    await run(async () => {
      try {
        onStarted(await rolloutsApi.start(bodyOf(values)));
      } catch (failure) {
        refusal = refusalProblems(failure);
        if (!refusal) throw failure;
      }
    });
    if (refusal) {
      setProblems(refusal);
      setError(undefined);
    }
  }

  const input =
    (field: Field, extra: Record<string, unknown> = {}) =>
    (attributes: Record<string, unknown>) => (
      <input {...attributes} {...extra} name={field} value={values[field]} onInput={set(field)} />
    );

  return (
    <section class="card rollout-form" aria-labelledby="new-rollout">
      <h2 id="new-rollout">Start a rollout</h2>
      <p class="hint">Every field but the image may stay empty.</p>
      <form onSubmit={submit} noValidate>
        <div class="rollout-fields">
          <FormField
            id="rollout-image"
            label="Image"
            hint="Its repository, without tag. Every container of it with an update pending is updated."
            problem={problems.image}
          >
            {input('image', { list: 'rollout-images', autoComplete: 'off', maxLength: 400 })}
          </FormField>
          <datalist id="rollout-images">
            {rolloutImages(containerList.value).map((image) => (
              <option key={image} value={image} />
            ))}
          </datalist>
          {OPTIONAL_FIELDS.map(({ field, label, hint, attributes }) => (
            <FormField key={field} id={`rollout-${field}`} label={label} hint={hint} problem={problems[field]}>
              {input(field, attributes)}
            </FormField>
          ))}
        </div>
        {preview && (
          <div class="rollout-preview" aria-live="polite">
            <h3>What it would do</h3>
            {preview.waves.length === 0 && preview.candidates.length === 0 && (
              <p class="hint">No container of this image has an update pending.</p>
            )}
            {preview.waves.length === 0 && preview.candidates.length > 1 && (
              <p class="hint">Containers wait for {preview.candidates.join(', ')}: name the version to roll out.</p>
            )}
            {preview.waves.length > 0 && (
              <ol class="preview-waves">
                {preview.waves.map((wave) => (
                  <li key={wave.wave}>
                    <strong>{waveName(wave.wave)}</strong>:{' '}
                    {wave.hosts.map((host) => `${hostWords(host.host)} (${host.containers.join(', ')})`).join('; ')} →{' '}
                    <span class="mono">{preview.toVersion}</span>
                  </li>
                ))}
              </ol>
            )}
          </div>
        )}
        <FormActions error={error} busy={busy} submit="Start the rollout" submitting="Starting…" onCancel={onCancel} />
      </form>
    </section>
  );
}
