import { useEffect, useState } from 'preact/hooks';
import { FormActions } from '../../components/form-actions';
import { FormField } from '../../components/form-field';
import { useAction } from '../../use-action';
import { type GroupPolicy, type GroupPolicyBody, type GroupPolicyScope, policiesApi } from './policies-api';
import { parseWindows, windowText } from './policy-words';

interface Values {
  scope: GroupPolicyScope;
  name: string;
  updateMode: '' | 'notify' | 'manual' | 'auto';
  approval: '' | 'required' | 'not-required';
  maturityMode: '' | 'all' | 'mature';
  maturityMinAgeDays: string;
  windows: string;
  rollout: boolean;
  waveSize: string;
  pauseSeconds: string;
  canaryHost: string;
  automatic: boolean;
}
type Problems = Partial<Record<keyof Values, string>>;

function valuesOf(policy: GroupPolicy | undefined): Values {
  return {
    scope: policy?.scope ?? 'group',
    name: policy?.name ?? '',
    updateMode: policy?.updateMode ?? '',
    approval: policy?.approvalRequired === undefined ? '' : policy.approvalRequired ? 'required' : 'not-required',
    maturityMode: policy?.maturityMode ?? '',
    maturityMinAgeDays: policy?.maturityMinAgeDays === undefined ? '' : String(policy.maturityMinAgeDays),
    windows: (policy?.windows ?? []).map(windowText).join('\n'),
    rollout: policy?.rollout !== undefined,
    waveSize: String(policy?.rollout?.waveSize ?? 1),
    pauseSeconds: String(policy?.rollout?.pauseSeconds ?? 0),
    canaryHost: policy?.rollout?.canaryHost ?? '',
    automatic: policy?.rollout?.automatic ?? false,
  };
}

function whole(text: string, min: number, max: number, what: string): string | undefined {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value)) return `${what} must be a whole number.`;
  if (value < min || value > max) return `${what} must be between ${min} and ${max}.`;
  return undefined;
}

/** GroupPolicyBodySchema's rules, said beside each field; the body when there is no problem. */
function check(values: Values): { problems: Problems; body?: GroupPolicyBody } {
  const problems: Problems = {};
  const name = values.name.trim();
  if (name === '') problems.name = 'Name the group (its dd.group label or compose project) or the agent.';
  else if (name.length > 128 || /[\s/\\]/.test(name))
    problems.name = 'A name has 1 to 128 characters, without spaces or slashes.';
  const maturity = values.maturityMinAgeDays.trim() && whole(values.maturityMinAgeDays, 1, 365, 'The minimum age');
  if (maturity) problems.maturityMinAgeDays = maturity;
  const windows = parseWindows(values.windows);
  if ('problem' in windows) problems.windows = windows.problem;
  if (values.rollout) {
    const wave = whole(values.waveSize, 1, 1000, 'Hosts per wave');
    if (wave) problems.waveSize = wave;
    const pause = whole(values.pauseSeconds, 0, 86_400, 'The pause');
    if (pause) problems.pauseSeconds = pause;
    if (values.canaryHost.trim().length > 200) problems.canaryHost = 'At most 200 characters.';
  }
  if (Object.keys(problems).length > 0 || 'problem' in windows) return { problems };
  const canaryHost = values.canaryHost.trim();
  const body: GroupPolicyBody = {
    ...(values.updateMode && { updateMode: values.updateMode }),
    ...(values.approval && { approvalRequired: values.approval === 'required' }),
    ...(values.maturityMode && { maturityMode: values.maturityMode }),
    ...(values.maturityMinAgeDays.trim() && { maturityMinAgeDays: Number(values.maturityMinAgeDays) }),
    ...(windows.windows.length > 0 && { windows: windows.windows }),
    ...(values.rollout && {
      rollout: {
        waveSize: Number(values.waveSize),
        pauseSeconds: Number(values.pauseSeconds),
        automatic: values.automatic,
        ...(canaryHost && { canaryHost }),
      },
    }),
  };
  return { problems, body };
}

interface GroupPolicyFormProps {
  /** The policy edited; none for a new one. */
  editing: GroupPolicy | undefined;
  onSaved: (policy: GroupPolicy) => void;
  onCancel: () => void;
}

/** PUT /group-policies/{scope}/{name}: the whole policy; a field left empty falls to the next level. */
export function GroupPolicyForm({ editing, onSaved, onCancel }: GroupPolicyFormProps) {
  const [values, setValues] = useState<Values>(() => valuesOf(editing));
  const [problems, setProblems] = useState<Problems>({});
  const { busy, error, run } = useAction();
  // Opened by a button: the person continues in the first field they may change.
  useEffect(() => document.getElementById(editing ? 'policy-mode' : 'policy-scope')?.focus(), []);
  const update = <K extends keyof Values>(key: K, value: Values[K]) => {
    const next = { ...values, [key]: value };
    setValues(next);
    if (problems[key]) setProblems({ ...problems, [key]: check(next).problems[key] });
  };
  const text =
    (key: 'name' | 'maturityMinAgeDays' | 'waveSize' | 'pauseSeconds' | 'canaryHost' | 'windows') =>
    (event: { currentTarget: { value: string } }) =>
      update(key, event.currentTarget.value);

  async function submit(event: Event) {
    event.preventDefault();
    const { problems: found, body } = check(values);
    setProblems(found);
    if (!body) return;
    await run(async () => onSaved(await policiesApi.setGroupPolicy(values.scope, values.name.trim(), body)));
  }

  const title = editing ? `Edit the ${editing.scope} policy ${editing.name}` : 'Set a policy';
  return (
    <section class="card policy-form" aria-labelledby="policy-form-title">
      <h3 id="policy-form-title">{title}</h3>
      <form onSubmit={submit} noValidate>
        <div class="policy-fields">
          <FormField id="policy-scope" label="Applies to" problem={undefined}>
            {(attributes) => (
              <select
                {...attributes}
                disabled={editing !== undefined}
                value={values.scope}
                onChange={(event) => update('scope', event.currentTarget.value as GroupPolicyScope)}
              >
                <option value="group">A group of containers</option>
                <option value="agent">An agent (a host)</option>
              </select>
            )}
          </FormField>
          <FormField
            id="policy-name"
            label={values.scope === 'group' ? 'Group name' : 'Agent name'}
            hint={
              values.scope === 'group'
                ? 'Its dd.group label, else its compose project.'
                : '__local__ for this hub’s own watchers.'
            }
            problem={problems.name}
          >
            {(attributes) => (
              <input {...attributes} readOnly={editing !== undefined} value={values.name} onInput={text('name')} />
            )}
          </FormField>
          <FormField id="policy-mode" label="Update mode" problem={undefined}>
            {(attributes) => (
              <select
                {...attributes}
                value={values.updateMode}
                onChange={(event) => update('updateMode', event.currentTarget.value as Values['updateMode'])}
              >
                <option value="">Not set</option>
                <option value="notify">Notify only</option>
                <option value="manual">Manual updates</option>
                <option value="auto">Automatic updates</option>
              </select>
            )}
          </FormField>
          <FormField id="policy-approval" label="Approval" problem={undefined}>
            {(attributes) => (
              <select
                {...attributes}
                value={values.approval}
                onChange={(event) => update('approval', event.currentTarget.value as Values['approval'])}
              >
                <option value="">Not set</option>
                <option value="required">Updates need an approval</option>
                <option value="not-required">No approval needed</option>
              </select>
            )}
          </FormField>
          <FormField id="policy-maturity" label="Maturity" problem={undefined}>
            {(attributes) => (
              <select
                {...attributes}
                value={values.maturityMode}
                onChange={(event) => update('maturityMode', event.currentTarget.value as Values['maturityMode'])}
              >
                <option value="">Not set</option>
                <option value="all">Any age</option>
                <option value="mature">Wait until the version is old enough</option>
              </select>
            )}
          </FormField>
          <FormField
            id="policy-min-age"
            label="Minimum age (days)"
            hint="1 to 365; empty: 7."
            problem={problems.maturityMinAgeDays}
          >
            {(attributes) => (
              <input
                {...attributes}
                type="number"
                min={1}
                max={365}
                step={1}
                value={values.maturityMinAgeDays}
                onInput={text('maturityMinAgeDays')}
              />
            )}
          </FormField>
          <FormField
            id="policy-windows"
            label="Update windows (UTC)"
            hint="One a line: days (optional) then start-end, such as “sat sun 02:00-05:00”. Empty: any time."
            problem={problems.windows}
          >
            {(attributes) => <textarea {...attributes} rows={3} value={values.windows} onInput={text('windows')} />}
          </FormField>
        </div>
        <label class="check">
          <input
            type="checkbox"
            checked={values.rollout}
            onChange={(e) => update('rollout', e.currentTarget.checked)}
          />{' '}
          Set how its image is rolled out across hosts
        </label>
        {values.rollout && (
          <div class="policy-fields">
            <FormField id="policy-wave-size" label="Hosts per wave" problem={problems.waveSize}>
              {(attributes) => (
                <input
                  {...attributes}
                  type="number"
                  min={1}
                  max={1000}
                  step={1}
                  value={values.waveSize}
                  onInput={text('waveSize')}
                />
              )}
            </FormField>
            <FormField id="policy-pause" label="Pause between waves (seconds)" problem={problems.pauseSeconds}>
              {(attributes) => (
                <input
                  {...attributes}
                  type="number"
                  min={0}
                  max={86_400}
                  step={1}
                  value={values.pauseSeconds}
                  onInput={text('pauseSeconds')}
                />
              )}
            </FormField>
            <FormField id="policy-canary" label="Canary host (optional)" problem={problems.canaryHost}>
              {(attributes) => <input {...attributes} value={values.canaryHost} onInput={text('canaryHost')} />}
            </FormField>
            <label class="check">
              <input
                type="checkbox"
                checked={values.automatic}
                onChange={(e) => update('automatic', e.currentTarget.checked)}
              />{' '}
              Automatic updates go through a rollout
            </label>
          </div>
        )}
        <FormActions error={error} busy={busy} submit="Save the policy" submitting="Saving…" onCancel={onCancel} />
      </form>
    </section>
  );
}
