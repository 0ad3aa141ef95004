import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import type { AuditAction } from '../../../shared/schemas/audit-entry';
import { type AuditPage, adminApi } from '../admin-api';
import { ErrorText } from '../components/error-text';
import { when } from '../format-time';
import { navigate, query } from '../router';

/**
 * The action types of http-interface §4.10 as keys: the compiler checks this list against the
 * schema's (a missing or unknown one fails it) without bundling valibot.
 */
const ACTION_SET: Record<AuditAction, true> = {
  'update-available': true,
  'update-applied': true,
  'update-applied-dryrun': true,
  'update-failed': true,
  'notification-delivery-failed': true,
  'container-update': true,
  'security-alert': true,
  'security-scan-skipped': true,
  'scanner-asset-pull-started': true,
  'scanner-asset-pull-succeeded': true,
  'scanner-asset-pull-failed': true,
  'scanner-asset-warm-started': true,
  'scanner-asset-warm-succeeded': true,
  'scanner-asset-warm-failed': true,
  'agent-disconnect': true,
  'container-unhealthy': true,
  'maturity-cleared': true,
  'container-added': true,
  'container-removed': true,
  rollback: true,
  preview: true,
  'container-start': true,
  'container-stop': true,
  'container-restart': true,
  'webhook-watch': true,
  'webhook-watch-container': true,
  'webhook-update': true,
  'hook-configured': true,
  'hook-pre-success': true,
  'hook-pre-failed': true,
  'hook-post-success': true,
  'hook-post-failed': true,
  'auto-rollback': true,
  'auth-login': true,
  'env-reveal': true,
  'debug-dump': true,
  'auto-update-blocked': true,
  'update-policy-override-set': true,
  'update-policy-override-cleared': true,
  'group-policy-set': true,
  'group-policy-cleared': true,
  'label-override-set': true,
  'label-override-cleared': true,
  'update-approved': true,
  'update-rejected': true,
  'update-deferred': true,
  'mqtt-command-update': true,
  'api-key-created': true,
  'api-key-revoked': true,
  'api-key-auth-failed': true,
  'edge-key-created': true,
  'edge-key-revoked': true,
  'dependency-group-update': true,
  'compose-file-updated': true,
  rollout: true,
  'self-update': true,
  'settings-changed': true,
  'icon-cache-cleared': true,
};
const ACTIONS = Object.keys(ACTION_SET).sort();
const PAGE_SIZE = 50;

interface AuditFilters {
  action: string;
  container: string;
  from: string;
  to: string;
  page: number;
}

function readFilters(): AuditFilters {
  const q = new URLSearchParams(location.search);
  return {
    action: q.get('action') ?? '',
    container: q.get('container') ?? '',
    from: q.get('from') ?? '',
    to: q.get('to') ?? '',
    page: Math.max(1, Number(q.get('page')) || 1),
  };
}

function writeFilters(filters: AuditFilters): void {
  const q = new URLSearchParams();
  for (const key of ['action', 'container', 'from', 'to'] as const) if (filters[key]) q.set(key, filters[key]);
  if (filters.page > 1) q.set('page', String(filters.page));
  const search = q.toString();
  navigate(`/audit${search ? `?${search}` : ''}`, true);
}

/** A `datetime-local` value is the person's wall clock; the API takes an ISO instant. */
const instant = (local: string) => {
  const date = new Date(local);
  return local && !Number.isNaN(date.getTime()) ? date.toISOString() : '';
};

/** The audit trail (http-interface §4.10), newest first, with the route's filters, in pages of 50. */
export function Audit() {
  void query.value; // re-read the filters when the address changes
  const filters = readFilters();
  const [page, setPage] = useState<AuditPage | undefined>();
  const [error, setError] = useState<string | undefined>();
  const key = JSON.stringify(filters);
  // A range that ends before it starts holds nothing by definition: said, not asked of the hub (issue 28).
  const rangeProblem =
    filters.from && filters.to && instant(filters.from) > instant(filters.to)
      ? `"From" (${when(instant(filters.from))}) is after "To" (${when(instant(filters.to))}): choose a From before the To.`
      : undefined;

  useEffect(() => {
    if (rangeProblem) return;
    const q = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String((filters.page - 1) * PAGE_SIZE) });
    if (filters.action) q.set('action', filters.action);
    if (filters.container) q.set('container', filters.container);
    if (filters.from) q.set('from', instant(filters.from));
    if (filters.to) q.set('to', instant(filters.to));
    let current = true;
    adminApi.audit(q).then(
      (answer) => {
        if (!current) return;
        setPage(answer);
        setError(undefined);
      },
      (failure: unknown) => current && setError(errorMessage(failure)),
    );
    return () => {
      current = false;
    };
  }, [key]);

  const set = (change: Partial<AuditFilters>) => writeFilters({ ...filters, page: 1, ...change });
  const pages = page ? Math.max(1, Math.ceil(page.total / PAGE_SIZE)) : 1;

  return (
    <main id="main" tabIndex={-1}>
      <h1>Audit log</h1>
      <search class="filters" aria-label="Audit filters">
        <label>
          Action
          <select value={filters.action} onChange={(e) => set({ action: e.currentTarget.value })}>
            <option value="">Any action</option>
            {ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label>
          Container
          <input
            type="search"
            value={filters.container}
            onChange={(e) => set({ container: e.currentTarget.value.trim() })}
            aria-describedby="container-hint"
          />
          <span id="container-hint" class="hint">
            Its exact name.
          </span>
        </label>
        <label>
          From
          <input
            type="datetime-local"
            value={filters.from}
            aria-invalid={rangeProblem ? true : undefined}
            aria-describedby={rangeProblem ? 'range-problem' : undefined}
            onChange={(e) => set({ from: e.currentTarget.value })}
          />
        </label>
        <label>
          To
          <input
            type="datetime-local"
            value={filters.to}
            aria-invalid={rangeProblem ? true : undefined}
            aria-describedby={rangeProblem ? 'range-problem' : undefined}
            onChange={(e) => set({ to: e.currentTarget.value })}
          />
        </label>
        {rangeProblem && (
          <p id="range-problem" class="error range-problem" role="alert">
            {rangeProblem}
          </p>
        )}
        <div>
          <button
            type="button"
            class="secondary"
            onClick={() => writeFilters({ action: '', container: '', from: '', to: '', page: 1 })}
          >
            Clear filters
          </button>
        </div>
      </search>
      <ErrorText message={error} />
      {page && !rangeProblem && (
        <p class="hint" role="status">
          {page.total} {page.total === 1 ? 'entry' : 'entries'}
        </p>
      )}
      {page && !rangeProblem && page.data.length > 0 && (
        <table class="list audit">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Container</th>
              <th scope="col">Change</th>
              <th scope="col">Status</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((entry) => (
              <tr key={entry.id} data-action={entry.action}>
                <td data-label="When">
                  <time dateTime={entry.timestamp}>{when(entry.timestamp)}</time>
                </td>
                <td data-label="Action" class="mono">
                  {entry.action}
                </td>
                <td data-label="Container" class="break">
                  <span>
                    {entry.containerName ? (
                      <a href={`/audit?container=${encodeURIComponent(entry.containerName)}`}>{entry.containerName}</a>
                    ) : (
                      '—'
                    )}
                    {entry.containerImage && <span class="hint mono"> {entry.containerImage}</span>}
                  </span>
                </td>
                <td data-label="Change" class="mono break">
                  {entry.fromVersion || entry.toVersion
                    ? `${entry.fromVersion ?? '?'} → ${entry.toVersion ?? '?'}`
                    : (entry.triggerName ?? '—')}
                </td>
                <td data-label="Status">{entry.status ?? '—'}</td>
                <td data-label="Details" class="break">
                  {entry.details ?? ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && !rangeProblem && pages > 1 && (
        <nav class="pager" aria-label="Audit pages">
          <button
            type="button"
            class="secondary"
            disabled={filters.page <= 1}
            onClick={() => writeFilters({ ...filters, page: filters.page - 1 })}
          >
            Newer
          </button>
          <span>
            Page {filters.page} of {pages}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={!page.hasMore}
            onClick={() => writeFilters({ ...filters, page: filters.page + 1 })}
          >
            Older
          </button>
        </nav>
      )}
    </main>
  );
}
