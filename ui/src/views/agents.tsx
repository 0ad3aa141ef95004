import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { adminApi, type EdgeKey } from '../admin-api';
import { type Agent, ApiError } from '../api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorText } from '../components/error-text';
import { type ListColumn, ListTable } from '../components/list-table';
import { relative, when } from '../format-time';
import { agents } from '../state';
import { useAction } from '../use-action';

/**
 * The agents the hub knows (http-interface §2.3: edge and listen-mode agents look the same; an edge
 * agent listens nowhere, so its port is 0) and the edge key registry (decisions §6).
 */
export function Agents() {
  return (
    <main id="main" tabIndex={-1}>
      <h1>Agents</h1>
      <AgentList />
      <EdgeKeys />
    </main>
  );
}

const AGENT_COLUMNS: readonly ListColumn<Agent>[] = [
  {
    label: 'Name',
    class: 'break',
    cell: (agent) => <a href={`/containers?agent=${encodeURIComponent(agent.name)}`}>{agent.name}</a>,
  },
  {
    label: 'State',
    cell: (agent) => (
      <span>
        <span class={`dot ${agent.connected ? 'ok' : 'off'}`} aria-hidden="true" />{' '}
        {agent.connected ? 'connected' : 'disconnected'}
      </span>
    ),
  },
  {
    label: 'Last seen',
    cell: (agent) => (
      <time dateTime={agent.lastSeen} title={when(agent.lastSeen)}>
        {relative(agent.lastSeen)}
      </time>
    ),
  },
  { label: 'Version', class: 'mono', cell: (agent) => agent.build || agent.version || '—' },
  {
    label: 'Host',
    class: 'break',
    cell: (agent) => (
      <span>
        {agent.host}
        {agent.os && <span class="hint"> · {[agent.os, agent.arch].filter(Boolean).join('/')}</span>}
      </span>
    ),
  },
  { label: 'Mode', cell: (agent) => (agent.port === 0 ? 'edge (dials out)' : `listen (port ${agent.port})`) },
  {
    label: 'Containers',
    cell: (agent) => (
      <span>
        {agent.containers.total}{' '}
        <span class="hint">
          ({agent.containers.running} running, {agent.containers.stopped} stopped)
        </span>
      </span>
    ),
  },
];

function AgentList() {
  const list = agents.value;
  return (
    <section class="card" aria-labelledby="agent-list">
      <h2 id="agent-list">Connected and known agents</h2>
      {list.length === 0 ? (
        <p>No agent has connected yet. Register an edge agent's key below, then start the agent.</p>
      ) : (
        <ListTable columns={AGENT_COLUMNS} rows={list} rowKey={(agent) => agent.name} rowAttribute="data-agent" />
      )}
    </section>
  );
}

function EdgeKeys() {
  const [keys, setKeys] = useState<EdgeKey[] | undefined>();
  const [disabled, setDisabled] = useState(false);
  const [revoking, setRevoking] = useState<EdgeKey | undefined>();
  const { busy, error, setError, run } = useAction();

  const load = () =>
    adminApi.edgeKeys().then(
      (page) => setKeys(page.data),
      (failure: unknown) =>
        failure instanceof ApiError && failure.status === 404 ? setDisabled(true) : setError(errorMessage(failure)),
    );
  useEffect(() => void load(), []);

  async function revoke(key: EdgeKey) {
    await run(async () => {
      await adminApi.revokeEdgeKey(key.keyId);
      await load();
    });
    setRevoking(undefined);
  }

  const columns: readonly ListColumn<EdgeKey>[] = [
    { label: 'Name', class: 'break', cell: (key) => key.label || <span class="hint">(no name)</span> },
    { label: 'Key id', class: 'mono', cell: (key) => key.keyId },
    { label: 'Agents', class: 'break', cell: (key) => (key.agentNames.length ? key.agentNames.join(', ') : '—') },
    { label: 'Registered', cell: (key) => when(key.createdAt) },
    { label: 'State', cell: (key) => (key.revokedAt ? `revoked ${when(key.revokedAt)}` : 'active') },
    {
      label: 'Actions',
      hiddenLabel: true,
      cell: (key) =>
        !key.revokedAt && (
          <button type="button" class="danger" onClick={() => setRevoking(key)}>
            Revoke<span class="visually-hidden"> {key.label || key.keyId}</span>
          </button>
        ),
    },
  ];

  if (disabled)
    return (
      <section class="card" aria-labelledby="edge-keys">
        <h2 id="edge-keys">Edge keys</h2>
        <p>Edge agents are turned off on this hub (DD_EXPERIMENTAL_EDGE=false).</p>
      </section>
    );
  return (
    <section class="card" aria-labelledby="edge-keys">
      <h2 id="edge-keys">Edge keys</h2>
      <p class="hint">
        An edge agent signs in with its Ed25519 key. Register its public key here; revoking it disconnects every agent
        using it at once.
      </p>
      <RegisterEdgeKey onRegistered={load} />
      <ErrorText message={error} />
      {keys && keys.length === 0 && <p>No edge key is registered.</p>}
      {keys && keys.length > 0 && (
        <ListTable columns={columns} rows={keys} rowKey={(key) => key.keyId} rowAttribute="data-key" />
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke this edge key?"
          action="Revoke the key"
          busy={busy}
          onConfirm={() => revoke(revoking)}
          onCancel={() => setRevoking(undefined)}
        >
          <p>
            <strong class="break">{revoking.label || revoking.keyId}</strong> (
            <span class="mono">{revoking.keyId}</span>) can no longer sign in.
            {revoking.agentNames.length > 0 && ` ${revoking.agentNames.join(', ')} will be disconnected now.`} This
            cannot be undone: the agent needs a new key.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function RegisterEdgeKey({ onRegistered }: { onRegistered: () => Promise<unknown> }) {
  const [publicKey, setPublicKey] = useState('');
  const [label, setLabel] = useState('');
  const [done, setDone] = useState<string | undefined>();
  const { busy, error, run } = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    setDone(undefined);
    await run(async () => {
      const key = await adminApi
        .registerEdgeKey({ publicKey: publicKey.trim(), label: label.trim() })
        .catch((failure: unknown) => {
          if (failure instanceof ApiError && failure.status === 409)
            throw new Error('This key is registered already (a revoked key cannot be registered again).');
          throw failure;
        });
      setDone(`Registered ${key.label || 'the key'} as ${key.keyId}.`);
      setPublicKey('');
      setLabel('');
      await onRegistered();
    });
  }

  return (
    <form class="stack register" onSubmit={submit}>
      <label>
        Public key
        <textarea
          name="publicKey"
          required
          rows={2}
          spellcheck={false}
          value={publicKey}
          onInput={(event) => setPublicKey(event.currentTarget.value)}
          aria-describedby="public-key-hint"
        />
        <span id="public-key-hint" class="hint">
          The base64 of the raw 32-byte key, as the agent prints it at its first start.
        </span>
      </label>
      <label>
        Name
        <input name="label" maxLength={100} value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? 'Registering…' : 'Register the key'}
        </button>
      </div>
      <ErrorText message={error} />
      {done && <p role="status">{done}</p>}
    </form>
  );
}
