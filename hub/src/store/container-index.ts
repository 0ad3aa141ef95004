import {
  type ContainerQuery,
  type ContainerSortName,
  listedIds,
  pageOf,
  SORT_KEYS,
  sortContainers,
  sortOf,
} from '../../../shared/containers/container-query';
import type { Container } from '../../../shared/schemas/container';
import { SortedChunks } from './sorted-chunks';

/**
 * Below this share of the fleet, a filtered list sorts its matches instead of walking the sorted
 * index past the records it skips: sorting 1/16 of n costs less than visiting all n.
 */
const SORT_MATCHES_BELOW = 1 / 16;

/**
 * The values each filter of GET /api/v1/containers tests, as set keys: the ids under a key are
 * exactly the records that `matchesFilters` lets through for that filter value (facetsOfQuery maps
 * each filter value to its keys).
 */
function facetsOf(c: Container): string[] {
  const facets = [
    `status:${c.status}`,
    `update:${c.updateAvailable}`,
    `watched:${c.watched}`,
    `watcher:${c.watcher}`,
    `type:${c.watcherType ?? 'docker'}`,
  ];
  if (c.agent !== undefined) facets.push(`agent:${c.agent}`);
  if (c.updateMaturityLevel !== undefined) facets.push(`maturity:${c.updateMaturityLevel}`);
  if (c.updateAvailable)
    facets.push(c.updateKind.kind === 'tag' ? `kind:${c.updateKind.semverDiff}` : `kind:${c.updateKind.kind}`);
  return facets;
}

/** Per filter of the query, the facet keys whose union holds every record it can match. */
function facetsOfQuery(query: ContainerQuery): string[][] {
  const filters: string[][] = [];
  switch (query.status) {
    case undefined:
      break;
    case 'update-available':
      filters.push(['update:true']);
      break;
    case 'up-to-date':
      filters.push(['update:false']);
      break;
    case 'stopped':
      filters.push(['status:exited', 'status:created']);
      break;
    default:
      filters.push([`status:${query.status}`]);
  }
  if (query.kind === 'watched' || query.kind === 'unwatched') filters.push([`watched:${query.kind === 'watched'}`]);
  else if (query.kind !== undefined && query.kind !== 'all') filters.push([`kind:${query.kind}`]);
  if (query.watcher !== undefined) filters.push([`watcher:${query.watcher}`]);
  if (query.watcherType !== undefined) filters.push([`type:${query.watcherType}`]);
  if (query.agent !== undefined) filters.push([`agent:${query.agent}`]);
  if (query.maturity !== undefined) filters.push([`maturity:${query.maturity}`]);
  return filters;
}

function samePlaces(previous: Container, next: Container): boolean {
  if (previous.id !== next.id) return false;
  // The fields the sort keys read, compared before the keys (which parse dates) are computed.
  const sameSortFields =
    previous.displayName === next.displayName &&
    previous.status === next.status &&
    previous.createdAt === next.createdAt &&
    previous.image.created === next.image.created;
  if (!sameSortFields) for (const key of Object.values(SORT_KEYS)) if (key(previous) !== key(next)) return false;
  const before = facetsOf(previous);
  const after = facetsOf(next);
  return before.length === after.length && before.every((facet, i) => facet === after[i]);
}

const sizeOf = (sets: readonly Set<string>[]) => sets.reduce((sum, ids) => sum + ids.size, 0);

/**
 * Secondary indexes over the container records, so that GET /api/v1/containers answers a page
 * without copying and sorting the whole fleet: one sorted list per sort key, and the ids under each
 * filter value. Kept current by the store on every write.
 */
export class ContainerIndex {
  private readonly sorted = new Map<ContainerSortName, SortedChunks>();
  private readonly facets = new Map<string, Set<string>>();

  constructor(private readonly record: (id: string) => Container | undefined) {
    for (const name of Object.keys(SORT_KEYS) as ContainerSortName[]) this.sorted.set(name, new SortedChunks());
  }

  /** Rebuilds every index from the records: one sort per key instead of one insert per record. */
  reset(all: readonly Container[]): void {
    for (const [name, list] of this.sorted)
      list.reset(all.map((container) => ({ key: SORT_KEYS[name](container), id: container.id })));
    this.facets.clear();
    for (const container of all) this.addFacets(container);
  }

  /** A record was written: `previous` is the one it replaces, if any. */
  replace(previous: Container | undefined, next: Container): void {
    // A record written again with the same sort keys and filter values (a warm cycle's new
    // checkedAt) keeps its places: moving 1,000 unchanged records was a tenth of a warm cycle.
    if (previous && samePlaces(previous, next)) return;
    if (previous) this.remove(previous);
    for (const [name, list] of this.sorted) list.insert(SORT_KEYS[name](next), next.id);
    this.addFacets(next);
  }

  /** The ids of the records with one facet (`agent:<name>`, `watcher:<name>`…); live, not a copy. */
  idsWith(facet: string): ReadonlySet<string> | undefined {
    return this.facets.get(facet);
  }

  remove(previous: Container): void {
    for (const [name, list] of this.sorted) list.delete(SORT_KEYS[name](previous), previous.id);
    for (const facet of facetsOf(previous)) {
      const ids = this.facets.get(facet);
      ids?.delete(previous.id);
      if (ids?.size === 0) this.facets.delete(facet);
    }
  }

  /**
   * The same answer as `queryContainers(all, query)`, from the indexes: the facet sets decide which
   * ids match (each filter's sets hold exactly the records `matchesFilters` lets through, which the
   * property test checks), so only the records of the page are read.
   */
  query(query: ContainerQuery): { data: Container[]; total: number } {
    const { name, descending } = sortOf(query);
    const order = this.sorted.get(name) as SortedChunks;
    const filters = this.filterSets(query);
    const read = (ids: Iterable<string>) => [...ids].flatMap((id) => this.record(id) ?? []);
    if (filters.length === 0) {
      const page = order.slice(query.offset, query.limit === 0 ? order.size : query.limit, descending);
      return { data: read(page), total: order.size };
    }
    const matches = (id: string) => filters.every((sets) => sets.some((ids) => ids.has(id)));
    const [smallest = [], ...others] = [...filters].sort((a, b) => sizeOf(a) - sizeOf(b));
    // One facet filter: its sets are disjoint and hold only stored ids, so their sizes are the total.
    let total = others.length === 0 && !listedIds(query) ? sizeOf(smallest) : undefined;
    if (total === undefined || total < order.size * SORT_MATCHES_BELOW) {
      const matching: string[] = [];
      for (const ids of smallest)
        for (const id of ids)
          if (others.every((sets) => sets.some((set) => set.has(id))) && this.record(id)) matching.push(id);
      total = matching.length;
      if (total < order.size * SORT_MATCHES_BELOW)
        return { data: pageOf(sortContainers(read(matching), query), query), total };
    }
    const page: string[] = [];
    let skipped = 0;
    order.walk(descending, (id) => {
      if (!matches(id)) return true;
      if (skipped < query.offset) skipped += 1;
      else page.push(id);
      return query.limit === 0 || page.length < query.limit;
    });
    return { data: read(page), total };
  }

  /** Per filter of the query, the sets whose union is exactly the ids it lets through. */
  private filterSets(query: ContainerQuery): Set<string>[][] {
    const filters = facetsOfQuery(query).map((alternatives) =>
      alternatives.map((facet) => this.facets.get(facet) ?? new Set<string>()),
    );
    const listed = listedIds(query);
    if (listed) filters.push([listed]);
    return filters;
  }

  private addFacets(container: Container): void {
    for (const facet of facetsOf(container)) {
      const ids = this.facets.get(facet);
      if (ids) ids.add(container.id);
      else this.facets.set(facet, new Set([container.id]));
    }
  }
}
