import { useEffect, useMemo, useState } from 'preact/hooks';
import { loadActionTriggers } from '../action-triggers';
import { type Approval, adminApi } from '../admin-api';
import { type ApiError, api, type RecentStatus } from '../api';
import { updateKindOf } from '../format';
import { agents, approvalsChanged, containerList, operationKey, operations } from '../state';
import { isSettled } from '../update-steps';
import { rankPendingUpdates } from './dashboard/attention';
import { CheckCycle } from './dashboard/check-cycle';
import { containerHref } from './dashboard/container-links';
import { type Failure, FinishedOperations, Problems, RunningOperations } from './dashboard/operations-lists';
import { PendingUpdates } from './dashboard/pending-updates';
import { SecurityCard } from './dashboard/security-card';
import { NotificationBell } from './notification-bell';

const KINDS = ['major', 'minor', 'patch', 'digest'] as const;
/** The maturity levels of a pending update, youngest first (the list's `maturity` filter takes each). */
const MATURITY = ['hot', 'mature', 'established'] as const;

/** The audit's recent status of a container, as a sentence. */
const RECENT_WORDS: Record<string, (name: string) => string> = {
  updated: (name) => `${name} was updated`,
  pending: (name) => `${name} has an update waiting`,
  failed: (name) => `${name} could not be updated`,
};

/**
 * What needs attention, first: failed updates and disconnected agents, updates running now, then
 * the pending updates ranked (attention.ts) with their one action; "Check all now" with the last
 * and next cycle. Then the fleet's counts from the live store, the bell and recent activity in
 * words. A card for what is not configured (no agent) is left out.
 */
export function Dashboard() {
  const [recent, setRecent] = useState<RecentStatus | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [approvals, setApprovals] = useState<readonly Approval[]>([]);
  const all = containerList.value;
  // By container identity (state.ts).
  const byName = operations.value;
  const settledCount = [...byName.values()].filter((operation) => isSettled(operation.status)).length;
  // The audit's view changes when an operation ends: read again then.
  useEffect(() => {
    api.recentStatus().then(setRecent, (failure: ApiError) => setError(failure.message));
  }, [settledCount]);
  const readApprovals = () =>
    adminApi.approvals('pending').then(
      (page) => setApprovals(page.data),
      () => undefined,
    );
  useEffect(() => void readApprovals(), [approvalsChanged.value]);
  useEffect(() => void loadActionTriggers(), []);

  const running = [...byName.values()].filter((operation) => !isSettled(operation.status));
  const busy = new Set(running.map(operationKey));
  const ranked = useMemo(() => rankPendingUpdates(all), [all]).filter((c) => !busy.has(operationKey(c)));
  const finished = [...byName.values()].filter((operation) => operation.status === 'succeeded');
  const failures: Failure[] = [];
  const followed = new Set<string>();
  for (const operation of byName.values()) {
    followed.add(operation.containerName);
    if (operation.status === 'failed' || operation.status === 'rolled-back')
      failures.push({ name: operation.containerName, operation });
  }
  // The audit's word for what this page did not follow live.
  for (const [name, status] of Object.entries(recent?.statuses ?? {}))
    if (status === 'failed' && !followed.has(name)) failures.push({ name });
  const disconnected = agents.value.filter((agent) => !agent.connected);
  const withUpdate = all.filter((c) => c.updateAvailable);
  const runningCount = all.filter((c) => c.status === 'running').length;
  const connected = agents.value.length - disconnected.length;
  const recentEntries = Object.entries(recent?.statuses ?? {}).slice(-10);
  const calm = failures.length === 0 && disconnected.length === 0 && running.length === 0 && ranked.length === 0;

  return (
    <main id="main" tabIndex={-1}>
      <h1>Dashboard</h1>
      <section aria-labelledby="attention" class="card attention">
        <div class="attention-head">
          <h2 id="attention">Needs your attention</h2>
          <CheckCycle />
        </div>
        <Problems failures={failures} disconnected={disconnected} />
        <RunningOperations running={running} />
        <FinishedOperations finished={finished} />
        {ranked.length > 0 && (
          <>
            <h3 id="pending-updates">
              {ranked.length === 1 ? '1 update' : `${ranked.length} updates`}, most important first
            </h3>
            <PendingUpdates ranked={ranked} approvals={approvals} onApproved={() => void readApprovals()} />
          </>
        )}
        {calm && <p>Nothing needs your attention: every watched container runs its newest version.</p>}
      </section>
      <section aria-labelledby="fleet" class="cards">
        <h2 id="fleet" class="visually-hidden">
          Fleet
        </h2>
        <Stat label="Containers" value={all.length} />
        <Stat label="Running" value={runningCount} />
        <Stat label="Stopped" value={all.length - runningCount} />
        <Stat label="Updates available" value={withUpdate.length} />
        {agents.value.length > 0 && <Stat label="Agents connected" value={`${connected} of ${agents.value.length}`} />}
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
      <SecurityCard />
      <NotificationBell />
      {agents.value.length > 0 && (
        <section aria-labelledby="agents" class="card">
          <h2 id="agents">Agents</h2>
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
        </section>
      )}
      <section aria-labelledby="recent" class="card">
        <h2 id="recent">Recent activity</h2>
        {error && <p class="error">{error}</p>}
        {recent && recentEntries.length === 0 && <p>Nothing updated recently.</p>}
        <ul class="plain">
          {recentEntries.map(([name, status]) => (
            <li key={name} data-recent={status}>
              <a href={containerHref(name)}>{(RECENT_WORDS[status] ?? ((n: string) => `${n}: ${status}`))(name)}</a>
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
