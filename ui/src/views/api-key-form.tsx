import { useState } from 'preact/hooks';
import { SCOPES, type Scope } from '../../../shared/scopes';
import { adminApi, type CreatedApiKey } from '../admin-api';
import { ErrorText } from '../components/error-text';
import { useAction } from '../use-action';

/** What each scope opens (decisions §5), so a person picks them without reading docs/scopes.md. */
const SCOPE_HINTS: Record<Scope, string> = {
  read: 'see containers, agents, triggers, settings, logs',
  'containers:watch': 'check for updates now, refresh inventory',
  'containers:update': 'update, roll back, set update policies',
  'approvals:decide': 'approve, reject or defer updates (with DD_APPROVALS_SEPARATE)',
  'containers:control': 'start, stop, restart',
  'containers:delete': 'delete containers',
  'containers:scan': 'run security scans',
  'triggers:run': 'run a trigger by hand',
  'notifications:manage': 'edit notification rules',
  'settings:write': 'change settings',
  'audit:read': 'read the audit log',
  'edge:manage': 'register and revoke edge keys',
  admin: 'everything above and the admin surfaces, not key management',
  'api-keys:manage': 'create and revoke API keys',
};

/** The end of the chosen day, in the person's time zone, as the ISO instant the API takes. */
function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59`).toISOString();
}

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/** POST /api-keys (http-interface §4.2): a name, scopes from the hub's own list, an optional expiry and rate limit. */
export function ApiKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [expires, setExpires] = useState('');
  const [rateLimit, setRateLimit] = useState('');
  const { busy, error, setError, run } = useAction();

  const toggle = (scope: Scope, on: boolean) =>
    setScopes((held) => (on ? [...held, scope] : held.filter((s) => s !== scope)));

  async function submit(event: Event) {
    event.preventDefault();
    if (scopes.length === 0) {
      setError('Choose at least one permission.');
      return;
    }
    await run(async () => {
      const key = await adminApi.createApiKey({
        name: name.trim(),
        scopes,
        expiresAt: expires ? endOfDay(expires) : null,
        ...(rateLimit && { rateLimitMax: Number(rateLimit) }),
      });
      setName('');
      setExpires('');
      setRateLimit('');
      onCreated(key);
    });
  }

  return (
    <section class="card" aria-labelledby="new-key-form">
      <h2 id="new-key-form">Create a key</h2>
      <form class="stack" onSubmit={submit}>
        <label>
          Name
          <input name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <fieldset class="scopes">
          <legend>Permissions</legend>
          {SCOPES.map((scope) => (
            <label class="check" key={scope}>
              <input
                type="checkbox"
                name="scope"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(e) => toggle(scope, e.currentTarget.checked)}
              />
              <span>
                <span class="mono">{scope}</span> <span class="hint">{SCOPE_HINTS[scope]}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <div class="filters">
          <label>
            Expires at the end of
            <input
              type="date"
              name="expires"
              min={tomorrow()}
              value={expires}
              onInput={(e) => setExpires(e.currentTarget.value)}
              aria-describedby="expires-hint"
            />
            <span id="expires-hint" class="hint">
              Leave empty for a key that never expires.
            </span>
          </label>
          <label>
            Requests per 15 minutes
            <input
              type="number"
              name="rateLimitMax"
              min={1}
              step={1}
              value={rateLimit}
              onInput={(e) => setRateLimit(e.currentTarget.value)}
              aria-describedby="rate-hint"
            />
            <span id="rate-hint" class="hint">
              Empty: the hub's own limit.
            </span>
          </label>
        </div>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create the key'}
          </button>
        </div>
        <ErrorText message={error} />
      </form>
    </section>
  );
}
