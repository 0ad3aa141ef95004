import type { Container } from '../schemas/container';
import type { WatcherType } from '../sources/watcher-type-names';

export const CONTAINER_SORTS = ['name', '-name', 'status', '-status', 'age', '-age', 'created', '-created'] as const;
export const CONTAINER_STATUS_FILTERS = [
  'update-available',
  'up-to-date',
  'running',
  'stopped',
  'exited',
  'paused',
  'restarting',
  'dead',
  'created',
] as const;
export const CONTAINER_KIND_FILTERS = ['major', 'minor', 'patch', 'digest', 'watched', 'unwatched', 'all'] as const;

export interface ContainerQuery {
  limit: number;
  offset: number;
  sort?: (typeof CONTAINER_SORTS)[number] | undefined;
  order?: 'asc' | 'desc' | undefined;
  status?: (typeof CONTAINER_STATUS_FILTERS)[number] | undefined;
  kind?: (typeof CONTAINER_KIND_FILTERS)[number] | undefined;
  watcher?: string | undefined;
  /** Only the records of watchers of this type (docs/sources.md); a record without `watcherType` is docker's. */
  watcherType?: WatcherType | undefined;
  /** An edge agent's name: only its containers. */
  agent?: string | undefined;
  maturity?: 'hot' | 'mature' | 'established' | undefined;
  containerIds?: string | undefined;
}

function matchesStatus(c: Container, status: ContainerQuery['status']): boolean {
  switch (status) {
    case undefined:
      return true;
    case 'update-available':
      return c.updateAvailable;
    case 'up-to-date':
      return !c.updateAvailable;
    case 'stopped':
      // Docker has no `stopped` state: a stopped container is exited or created and never started.
      return c.status === 'exited' || c.status === 'created';
    default:
      return c.status === status;
  }
}

function matchesKind(c: Container, kind: ContainerQuery['kind']): boolean {
  if (kind === undefined || kind === 'all') return true;
  if (kind === 'watched') return c.watched;
  if (kind === 'unwatched') return !c.watched;
  if (!c.updateAvailable) return false;
  if (kind === 'digest') return c.updateKind.kind === 'digest';
  return c.updateKind.kind === 'tag' && c.updateKind.semverDiff === kind;
}

export type ContainerSortName = 'name' | 'status' | 'age' | 'created';
export type ContainerSortKey = string | number;

/** An unparsable date sorts first, as the oldest: a consistent order that a sorted index can keep. */
const time = (iso: string) => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
};

export const SORT_KEYS: Record<ContainerSortName, (c: Container) => ContainerSortKey> = {
  name: (c) => c.displayName.toLowerCase(),
  status: (c) => c.status,
  // Age of the running container: older first means created earlier.
  age: (c) => time(c.createdAt),
  created: (c) => time(c.image.created ?? c.createdAt),
};

/** The sort a query asks for: `-name` and `order=desc` both mean descending; the default is by name. */
export function sortOf(query: Pick<ContainerQuery, 'sort' | 'order'>): {
  name: ContainerSortName;
  descending: boolean;
} {
  const name = (query.sort?.replace(/^-/, '') ?? 'name') as ContainerSortName;
  const descending = query.order ? query.order === 'desc' : (query.sort?.startsWith('-') ?? false);
  return { name: name in SORT_KEYS ? name : 'name', descending };
}

/** By key, then by id, so that every order is total and the same on every call. */
export function compareKeys(keyA: ContainerSortKey, idA: string, keyB: ContainerSortKey, idB: string): number {
  if (keyA < keyB) return -1;
  if (keyA > keyB) return 1;
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

export function compareKeyed(
  a: { key: ContainerSortKey; id: string },
  b: { key: ContainerSortKey; id: string },
): number {
  return compareKeys(a.key, a.id, b.key, b.id);
}

/** The ids a `containerIds` filter names, or undefined when it names none. */
export function listedIds(query: Pick<ContainerQuery, 'containerIds'>): Set<string> | undefined {
  if (!query.containerIds) return undefined;
  return new Set(
    query.containerIds
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  );
}

/** Every filter of the query but `containerIds` (see listedIds). */
export function matchesFilters(c: Container, query: ContainerQuery): boolean {
  return (
    matchesStatus(c, query.status) &&
    matchesKind(c, query.kind) &&
    (query.watcher === undefined || c.watcher === query.watcher) &&
    (query.watcherType === undefined || (c.watcherType ?? 'docker') === query.watcherType) &&
    (query.agent === undefined || c.agent === query.agent) &&
    (query.maturity === undefined || c.updateMaturityLevel === query.maturity)
  );
}

/** Matching records in the query's order. */
export function sortContainers(matching: readonly Container[], query: ContainerQuery): Container[] {
  const { name, descending } = sortOf(query);
  const key = SORT_KEYS[name];
  // Keys once per record, not once per comparison: 10,000 records sort about 7x faster (bench finding).
  const keyed = matching.map((container) => ({ container, id: container.id, key: key(container) }));
  keyed.sort((a, b) => (descending ? compareKeyed(b, a) : compareKeyed(a, b)));
  return keyed.map((entry) => entry.container);
}

export function pageOf<T>(sorted: readonly T[], query: Pick<ContainerQuery, 'limit' | 'offset'>): T[] {
  return query.limit === 0 ? sorted.slice(query.offset) : sorted.slice(query.offset, query.offset + query.limit);
}

/**
 * Filters, sorts and pages containers as GET /api/v1/containers does (http-interface §4.8), over a
 * plain list. The container store answers the route from its indexes (store/container-index.ts);
 * this is the reference it is tested against.
 */
export function queryContainers(
  all: readonly Container[],
  query: ContainerQuery,
): { data: Container[]; total: number } {
  const ids = listedIds(query);
  const matching = all.filter((c) => (!ids || ids.has(c.id)) && matchesFilters(c, query));
  return { data: pageOf(sortContainers(matching, query), query), total: matching.length };
}
