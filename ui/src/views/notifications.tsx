import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { adminApi, type NotificationRule, type Trigger } from '../admin-api';
import { ErrorText } from '../components/error-text';
import { useAction } from '../use-action';
import { NotificationOutbox } from './notification-outbox';
import { RuleTemplatesEditor } from './rule-templates';

const THRESHOLDS = ['all', 'major', 'minor', 'patch'] as const;

/**
 * Action triggers (DD_ACTION_DOCKER_*) update containers and are listed with the others by
 * GET /triggers, but they send no message: templates and test runs are for notification triggers.
 */
const isNotificationTrigger = (trigger: Trigger) => trigger.type !== 'docker';

/** Notification rules with their templates and live preview, the triggers with a test run, and the outbox (http-interface §4.7, §4.9). */
export function Notifications() {
  const [rules, setRules] = useState<NotificationRule[] | undefined>();
  // Undefined until GET /triggers answers: "none configured" is said only once the hub said so.
  const [triggers, setTriggers] = useState<Trigger[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    adminApi.rules().then(
      (page) => setRules(page.data),
      (failure: unknown) => setError(errorMessage(failure)),
    );
    adminApi.triggers().then(
      (page) => setTriggers(page.data.filter(isNotificationTrigger)),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  }, []);

  const replace = (rule: NotificationRule) =>
    setRules((list) => list?.map((existing) => (existing.id === rule.id ? rule : existing)));

  return (
    <main id="main" tabIndex={-1}>
      <h1>Notifications</h1>
      <ErrorText message={error} />
      <section aria-labelledby="rules">
        <h2 id="rules">Rules</h2>
        {rules?.map((rule) => (
          <RuleCard key={rule.id} rule={rule} triggers={triggers} onSaved={replace} />
        ))}
      </section>
      <TriggerList triggers={triggers} />
      <NotificationOutbox />
    </main>
  );
}

function RuleCard({
  rule,
  triggers,
  onSaved,
}: {
  rule: NotificationRule;
  triggers: Trigger[] | undefined;
  onSaved: (rule: NotificationRule) => void;
}) {
  const [editing, setEditing] = useState(false);
  const { error, run } = useAction();
  const id = `rule-${rule.id}`;

  const patch = (body: Parameters<typeof adminApi.patchRule>[1]) =>
    run(async () => onSaved(await adminApi.patchRule(rule.id, body)));
  const toggleTrigger = (triggerId: string, on: boolean) => {
    // Empty means every trigger (http-interface §2.8): unticking one of "all" keeps the others.
    const all = triggers ?? [];
    const current = rule.triggers.length === 0 ? all.map((t) => t.id) : rule.triggers;
    const next = on ? [...current, triggerId] : current.filter((t) => t !== triggerId);
    void patch({ triggers: next.length === all.length ? [] : next });
  };

  return (
    <article class="card rule" aria-labelledby={id} data-rule={rule.id}>
      <h3 id={id}>{rule.name}</h3>
      <p class="hint">{rule.description}</p>
      <div class="rule-controls">
        <label class="check">
          <input type="checkbox" checked={rule.enabled} onChange={(e) => patch({ enabled: e.currentTarget.checked })} />
          Send notifications
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={rule.bellEnabled}
            onChange={(e) => patch({ bellEnabled: e.currentTarget.checked })}
          />
          Show in the bell
        </label>
        {rule.id === 'update-available' && (
          <label>
            Bell for updates of at least
            <select
              value={rule.bellThreshold}
              onChange={(e) => patch({ bellThreshold: e.currentTarget.value as (typeof THRESHOLDS)[number] })}
            >
              {THRESHOLDS.map((threshold) => (
                <option key={threshold} value={threshold}>
                  {threshold === 'all' ? 'any kind' : threshold}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {triggers && triggers.length > 0 && (
        <fieldset class="inline-checks">
          <legend>Triggers</legend>
          {triggers.map((trigger) => (
            <label class="check" key={trigger.id}>
              <input
                type="checkbox"
                checked={rule.triggers.length === 0 || rule.triggers.includes(trigger.id)}
                onChange={(e) => toggleTrigger(trigger.id, e.currentTarget.checked)}
              />
              <span class="mono">{trigger.id}</span>
            </label>
          ))}
        </fieldset>
      )}
      <ErrorText message={error} />
      <button type="button" class="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
        {editing ? 'Close the templates' : 'Edit the templates'}
        <span class="visually-hidden"> of {rule.name}</span>
      </button>
      {editing && <RuleTemplatesEditor rule={rule} triggers={triggers} onSaved={onSaved} />}
    </article>
  );
}

function TriggerList({ triggers }: { triggers: Trigger[] | undefined }) {
  const [said, setSaid] = useState<Record<string, { ok: boolean; text: string }>>({});
  const [running, setRunning] = useState<string | undefined>();

  async function run(trigger: Trigger) {
    setRunning(trigger.id);
    try {
      await adminApi.runTrigger(trigger.id);
      setSaid((s) => ({ ...s, [trigger.id]: { ok: true, text: 'Delivered a test message.' } }));
    } catch (failure) {
      setSaid((s) => ({ ...s, [trigger.id]: { ok: false, text: errorMessage(failure) } }));
    } finally {
      setRunning(undefined);
    }
  }

  return (
    <section class="card" aria-labelledby="triggers">
      <h2 id="triggers">Triggers</h2>
      {triggers === undefined ? (
        <p>Loading…</p>
      ) : triggers.length === 0 ? (
        <p>No notification trigger is configured.</p>
      ) : (
        <ul class="plain">
          {triggers.map((trigger) => (
            <li key={trigger.id} data-trigger={trigger.id} class="trigger">
              <span class="mono">{trigger.id}</span>{' '}
              <button type="button" class="secondary" disabled={running !== undefined} onClick={() => run(trigger)}>
                {running === trigger.id ? 'Sending…' : 'Send a test'}
                <span class="visually-hidden"> through {trigger.id}</span>
              </button>{' '}
              {said[trigger.id] && (
                <span role="status" class={said[trigger.id]?.ok ? 'ok' : 'error'}>
                  {said[trigger.id]?.text}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
