import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, type RecentStatus } from '../api';
import { updateKindOf } from '../format';
import { agents, containerList } from '../state';
import { NotificationBell } from './notification-bell';

const KINDS = ['major', 'minor', 'patch', 'digest'] as const;
/** The maturity levels of a pending update, youngest first (the list's `maturity` filter takes each). */
const MATURITY = ['hot', 'mature', 'established'] as const;

/**
 * Fleet counts, updates by kind and by maturity, and connected agents, from the live store (the same
 * counts as GET /containers/summary, kept current by the event stream); recent status from the audit;
 * the notification bell.
 */
export function Dashboard() {
  const [recent, setRecent] = useState<RecentStatus | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api.recentStatus().then(setRecent, (failure: ApiError) => setError(failure.message));
  }, []);
  const all = containerList.value;
  const running = all.filter((c) => c.status === 'running').length;
  const withUpdate = all.filter((c) => c.updateAvailable);
  const connected = agents.value.filter((a) => a.connected).length;
  const recentEntries = Object.entries(recent?.statuses ?? {}).slice(-10);

  return (
    <main id="main" tabIndex={-1}>
      <h1>Dashboard</h1>
      <section aria-labelledby="fleet" class="cards">
        <h2 id="fleet" class="visually-hidden">
          Fleet
        </h2>
        <Stat label="Containers" value={all.length} />
        <Stat label="Running" value={running} />
        <Stat label="Stopped" value={all.length - running} />
        <Stat label="Updates available" value={withUpdate.length} />
        <Stat label="Agents connected" value={`${connected} of ${agents.value.length}`} />
      </section>
      <section aria-labelledby="by-kind" class="card">
        <h2 id="by-kind">Updates by kind</h2>
        <dl class="inline">
          {KINDS.map((kind) => (
            <div key={kind}>
              <dt>{kind}</dt>
              <dd>
                <a href={`/containers?kind=${kind}`}>{withUpdate.filter((c) => updateKindOf(c) === kind).length}</a>
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <section aria-labelledby="by-maturity" class="card">
        <h2 id="by-maturity">Updates by maturity</h2>
        <dl class="inline">
          {MATURITY.map((level) => (
            <div key={level}>
              <dt>{level}</dt>
              <dd>
                <a href={`/containers?maturity=${level}`}>
                  {withUpdate.filter((c) => c.updateMaturityLevel === level).length}
                </a>
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <NotificationBell />
      <section aria-labelledby="agents" class="card">
        <h2 id="agents">Agents</h2>
        {agents.value.length === 0 ? (
          <p>No agent has connected.</p>
        ) : (
          <ul class="plain">
            {agents.value.map((agent) => (
              <li key={agent.name}>
                <span class={`dot ${agent.connected ? 'ok' : 'off'}`} aria-hidden="true" /> {agent.name}{' '}
                <span class="hint">
                  {agent.connected ? 'connected' : 'disconnected'} · {agent.containers.total} containers
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="recent" class="card">
        <h2 id="recent">Recent status</h2>
        {error && <p class="error">{error}</p>}
        {recent && recentEntries.length === 0 && <p>Nothing updated recently.</p>}
        <ul class="plain">
          {recentEntries.map(([name, status]) => (
            <li key={name}>
              {name}: <span class={`badge ${status}`}>{status}</span>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}

function Stat({ label, value }: { label: string; value: number | string }) {
  return (
    <div class="card stat">
      <span class="stat-value">{value}</span>
      <span class="stat-label">{label}</span>
    </div>
  );
}
