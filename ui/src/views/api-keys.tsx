import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { type ApiKey, adminApi, type CreatedApiKey } from '../admin-api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { CopyButton } from '../components/copy-button';
import { ErrorText } from '../components/error-text';
import { type ListColumn, ListTable } from '../components/list-table';
import { relative, when } from '../format-time';
import { session } from '../state';
import { useAction } from '../use-action';
import { ApiKeyForm } from './api-key-form';

/** Every key minted by `root`, transitively (what a revocation takes with it, http-interface §3.1). */
function descendantsOf(root: ApiKey, all: readonly ApiKey[]): ApiKey[] {
  const found: ApiKey[] = [];
  const queue = [root.keyId];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const key of all)
      if (key.parentKeyId === parent && !found.includes(key)) {
        found.push(key);
        queue.push(key.keyId);
      }
  }
  return found;
}

/** Every column but the actions, which need the view's state. */
const API_KEY_COLUMNS: readonly ListColumn<ApiKey>[] = [
  { label: 'Name', class: 'break', cell: (key) => key.name },
  { label: 'Key', class: 'mono', cell: (key) => key.displayPrefix },
  { label: 'Scopes', cell: (key) => key.scopes.join(', ') },
  { label: 'State', cell: (key) => <span class={`badge key-${key.status}`}>{key.status}</span> },
  { label: 'Expires', cell: (key) => (key.expiresAt ? when(key.expiresAt) : 'never') },
  { label: 'Last used', cell: (key) => (key.lastUsedAt ? relative(key.lastUsedAt) : 'never') },
  {
    label: 'Created',
    cell: (key) => (
      <span>
        {when(key.createdAt)}
        <span class="hint break"> by {key.createdBy}</span>
      </span>
    ),
  },
];

/** API keys (http-interface §4.2): the list, a new key whose secret shows once, and revocation with its cascade. */
export function ApiKeys() {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const [loaded, setLoaded] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | undefined>();
  const [revoking, setRevoking] = useState<ApiKey | undefined>();
  const [revoked, setRevoked] = useState<string | undefined>();
  const { busy, error, setError, run } = useAction();

  async function load(more = false) {
    try {
      const page = await adminApi.apiKeys(more ? cursor : undefined);
      setKeys((previous) => (more ? [...previous, ...page.data] : page.data));
      setCursor(page.hasMore ? page.nextCursor : undefined);
      setError(undefined);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setLoaded(true);
    }
  }
  useEffect(() => void load(), []);

  async function revoke(key: ApiKey) {
    await run(async () => {
      const answer = await adminApi.revokeApiKey(key.keyId);
      const others = answer.revokedKeyIds.length - 1;
      setRevoked(
        `Revoked ${key.name}${others > 0 ? ` and ${others} key${others === 1 ? '' : 's'} it had created` : ''}.`,
      );
      await load();
    });
    setRevoking(undefined);
  }

  const columns: readonly ListColumn<ApiKey>[] = [
    ...API_KEY_COLUMNS,
    {
      label: 'Actions',
      hiddenLabel: true,
      cell: (key) =>
        key.status !== 'revoked' && (
          <button type="button" class="danger" onClick={() => setRevoking(key)}>
            Revoke<span class="visually-hidden"> {key.name}</span>
          </button>
        ),
    },
  ];
  const cascade = revoking ? descendantsOf(revoking, keys) : [];
  // http-interface §4.2: a session signed in with a recovery code lists and revokes keys but cannot create one.
  const current = session.value;
  const recoveryCode = current.state === 'signed-in' && current.user.assurance === 'recovery-code';
  return (
    <main id="main" tabIndex={-1}>
      <h1>API keys</h1>
      {created ? (
        <NewSecret created={created} onDone={() => setCreated(undefined)} />
      ) : recoveryCode ? (
        <p class="notice">
          You signed in with a recovery code, which cannot create API keys. Sign in again with your two-factor code to
          create one; you can still revoke keys here.
        </p>
      ) : (
        <ApiKeyForm
          onCreated={(key) => {
            setCreated(key);
            setRevoked(undefined);
            void load();
          }}
        />
      )}
      <section class="card" aria-labelledby="key-list">
        <h2 id="key-list">Keys</h2>
        <ErrorText message={error} />
        {revoked && <p role="status">{revoked}</p>}
        {loaded && keys.length === 0 && !error && <p>No API key has been created.</p>}
        {keys.length > 0 && (
          <ListTable columns={columns} rows={keys} rowKey={(key) => key.keyId} rowAttribute="data-key" />
        )}
        {cursor && (
          <div class="pager">
            <button type="button" class="secondary" onClick={() => load(true)}>
              Show more keys
            </button>
          </div>
        )}
      </section>
      {revoking && (
        <ConfirmDialog
          title="Revoke this API key?"
          action="Revoke the key"
          busy={busy}
          onConfirm={() => revoke(revoking)}
          onCancel={() => setRevoking(undefined)}
        >
          <p>
            Programs using <strong class="break">{revoking.name}</strong> (
            <span class="mono">{revoking.displayPrefix}</span>) will be refused from now on. This cannot be undone.
          </p>
          {cascade.length > 0 && (
            <p>
              The {cascade.length} key{cascade.length === 1 ? '' : 's'} it created {cascade.length === 1 ? 'is' : 'are'}{' '}
              revoked too: <span class="break">{cascade.map((key) => key.name).join(', ')}</span>.
            </p>
          )}
        </ConfirmDialog>
      )}
    </main>
  );
}

/** The credential, this once: the API never shows it again (only a digest is stored). */
function NewSecret({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <section class="card secret" aria-labelledby="new-key">
      <h2 id="new-key">
        Key <span class="break">{created.name}</span> created
      </h2>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Send it as <code>Authorization: Bearer …</code>.
      </p>
      <label>
        The new key
        <input class="mono" readOnly value={created.apiKey} onFocus={(event) => event.currentTarget.select()} />
      </label>
      <div class="actions">
        <CopyButton value={created.apiKey} label="Copy the key" />
        <button type="button" class="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
