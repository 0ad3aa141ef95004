import type { Container } from '../api';
import { candidateOf, hostOf, imageName, updateKindOf } from '../format';
import { navigate, query } from '../router';
import { containerList, containersLoaded, loadError } from '../state';

const PAGE_SIZE = 50;
const STATUSES = ['running', 'stopped', 'exited', 'paused', 'restarting', 'dead', 'created'];
const KINDS = ['major', 'minor', 'patch', 'digest'];

interface Filters {
  q: string;
  watcher: string;
  agent: string;
  status: string;
  kind: string;
  updates: boolean;
  page: number;
}

function readFilters(): Filters {
  const query = new URLSearchParams(location.search);
  return {
    q: query.get('q') ?? '',
    watcher: query.get('watcher') ?? '',
    agent: query.get('agent') ?? '',
    status: query.get('status') ?? '',
    kind: query.get('kind') ?? '',
    updates: query.get('updates') === '1',
    page: Math.max(1, Number(query.get('page')) || 1),
  };
}

function writeFilters(filters: Filters): void {
  const query = new URLSearchParams();
  for (const key of ['q', 'watcher', 'agent', 'status', 'kind'] as const)
    if (filters[key]) query.set(key, filters[key]);
  if (filters.updates) query.set('updates', '1');
  if (filters.page > 1) query.set('page', String(filters.page));
  const search = query.toString();
  navigate(`/containers${search ? `?${search}` : ''}`, true);
}

/** The list route's filters (spec 4.8), applied here to the live store so events keep the list current. */
function matches(c: Container, f: Filters): boolean {
  if (f.watcher && c.watcher !== f.watcher) return false;
  if (f.agent && (f.agent === '-' ? c.agent !== undefined : c.agent !== f.agent)) return false;
  if (f.status === 'stopped' ? c.status !== 'exited' && c.status !== 'created' : f.status && c.status !== f.status)
    return false;
  if ((f.updates || f.kind) && !c.updateAvailable) return false;
  if (f.kind && updateKindOf(c) !== f.kind) return false;
  const q = f.q.trim().toLowerCase();
  if (q && !`${c.name} ${c.displayName} ${imageName(c)}:${c.image.tag.value}`.toLowerCase().includes(q)) return false;
  return true;
}

const distinct = (values: (string | undefined)[]) => [...new Set(values.filter((v): v is string => Boolean(v)))].sort();

export function Containers() {
  void query.value; // re-read the filters when the address changes
  const filters = readFilters();
  const all = containerList.value;
  const shown = all.filter((c) => matches(c, filters)).sort((a, b) => a.name.localeCompare(b.name));
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const page = Math.min(filters.page, pages);
  const rows = shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const set = (change: Partial<Filters>) => writeFilters({ ...filters, page: 1, ...change });
  const text = (event: Event) => (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;

  return (
    <main id="main" tabIndex={-1}>
      <h1>Containers</h1>
      <search>
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          <label>
            Search
            <input
              type="search"
              name="q"
              value={filters.q}
              placeholder="name or image"
              onInput={(e) => set({ q: text(e) })}
            />
          </label>
          <label>
            Watcher
            <select name="watcher" value={filters.watcher} onChange={(e) => set({ watcher: text(e) })}>
              <option value="">All</option>
              {distinct(all.map((c) => c.watcher)).map((w) => (
                <option key={w}>{w}</option>
              ))}
            </select>
          </label>
          <label>
            Host
            <select name="agent" value={filters.agent} onChange={(e) => set({ agent: text(e) })}>
              <option value="">All</option>
              <option value="-">This hub</option>
              {distinct(all.map((c) => c.agent)).map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select name="status" value={filters.status} onChange={(e) => set({ status: text(e) })}>
              <option value="">All</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <label>
            Update kind
            <select name="kind" value={filters.kind} onChange={(e) => set({ kind: text(e) })}>
              <option value="">Any</option>
              {KINDS.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
          <label class="check">
            <input
              type="checkbox"
              name="updates"
              checked={filters.updates}
              onChange={(e) => set({ updates: (e.currentTarget as HTMLInputElement).checked })}
            />
            Only with an update
          </label>
        </form>
      </search>
      {loadError.value && (
        <p class="error" role="alert">
          {loadError.value}
        </p>
      )}
      <p class="hint" aria-live="polite">
        {containersLoaded.value ? `${shown.length} of ${all.length} containers` : 'Loading containers…'}
      </p>
      <table class="list">
        <caption class="visually-hidden">Containers</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Image</th>
            <th scope="col">Tag</th>
            <th scope="col">Update</th>
            <th scope="col">Host</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.id} data-id={c.id}>
              <td data-label="Name">
                <a href={`/containers/${encodeURIComponent(c.id)}`}>{c.name}</a>
              </td>
              <td data-label="Image" class="mono">
                {imageName(c)}
              </td>
              <td data-label="Tag" class="mono">
                {c.image.tag.value}
              </td>
              <td data-label="Update">
                {c.updateAvailable ? (
                  <span class={`badge ${updateKindOf(c)}`}>
                    {updateKindOf(c)} → {candidateOf(c)}
                  </span>
                ) : (
                  <span class="hint">up to date</span>
                )}
              </td>
              <td data-label="Host">
                <span>
                  {hostOf(c)} <span class="hint">({c.watcher})</span>
                </span>
              </td>
              <td data-label="Status">
                <span class={`status ${c.status}`}>{c.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {pages > 1 && (
        <nav class="pager" aria-label="Pages">
          <button
            type="button"
            class="secondary"
            disabled={page <= 1}
            onClick={() => writeFilters({ ...filters, page: page - 1 })}
          >
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={page >= pages}
            onClick={() => writeFilters({ ...filters, page: page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </main>
  );
}
