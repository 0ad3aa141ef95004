import { containerIdentity } from '../../../../shared/containers/container-identity';
import {
  CONTAINER_KIND_FILTERS,
  CONTAINER_SORTS,
  CONTAINER_STATUS_FILTERS,
  type ContainerQuery,
  queryContainers,
} from '../../../../shared/containers/container-query';
import { WATCHER_TYPES, type WatcherType } from '../../../../shared/sources/watcher-type-names';
import type { Container } from '../../api';
import { hostLabelOf, imageName } from '../../format';
import { SOURCE_WORDS } from '../../source-words';

export { WATCHER_TYPES } from '../../../../shared/sources/watcher-type-names';
export { CONTAINER_KIND_FILTERS, CONTAINER_SORTS, CONTAINER_STATUS_FILTERS, SOURCE_WORDS };
export const MATURITY_FILTERS = ['hot', 'mature', 'established'] as const;
export const GROUPINGS = ['', 'host', 'group'] as const;

/** The list's state, all of it in the address so a filtered, sorted, grouped view can be shared. */
export interface ListQuery {
  q: string;
  watcher: string;
  /** A watcher type (docker, podman, swarm, file, dockerfile), empty for all. */
  watcherType: string;
  /** An agent's name, `-` for the hub's own watchers, empty for all. */
  agent: string;
  status: string;
  kind: string;
  maturity: string;
  sort: string;
  order: string;
  group: string;
}

const KEYS = ['q', 'watcher', 'watcherType', 'agent', 'status', 'kind', 'maturity', 'sort', 'order', 'group'] as const;
const oneOf = <T extends string>(values: readonly T[], value: string | null): T | '' =>
  values.includes(value as T) ? (value as T) : '';

export function readListQuery(search: string): ListQuery {
  const query = new URLSearchParams(search);
  return {
    q: query.get('q') ?? '',
    watcher: query.get('watcher') ?? '',
    watcherType: oneOf(WATCHER_TYPES, query.get('watcherType')),
    agent: query.get('agent') ?? '',
    status: oneOf(CONTAINER_STATUS_FILTERS, query.get('status')),
    kind: oneOf(CONTAINER_KIND_FILTERS, query.get('kind')),
    maturity: oneOf(MATURITY_FILTERS, query.get('maturity')),
    sort: oneOf(CONTAINER_SORTS, query.get('sort')),
    order: oneOf(['asc', 'desc'], query.get('order')),
    group: oneOf(GROUPINGS, query.get('group')),
  };
}

export function listQueryPath(list: ListQuery): string {
  const query = new URLSearchParams();
  for (const key of KEYS) if (list[key]) query.set(key, list[key]);
  const search = query.toString();
  return `/containers${search ? `?${search}` : ''}`;
}

function matchesText(c: Container, text: string): boolean {
  return `${c.name} ${c.displayName} ${imageName(c)}:${c.image.tag.value}`.toLowerCase().includes(text);
}

/**
 * The filters and sorts of GET /api/v1/containers (http-interface §4.8), run by the route's own
 * function on the live set, so events keep the list current without asking the hub again; then the
 * free-text search over name and image.
 */
export function filterContainers(all: readonly Container[], list: ListQuery): Container[] {
  const query: ContainerQuery = {
    limit: 0,
    offset: 0,
    ...(list.sort && { sort: list.sort as ContainerQuery['sort'] }),
    ...(list.order && { order: list.order as ContainerQuery['order'] }),
    ...(list.status && { status: list.status as ContainerQuery['status'] }),
    ...(list.kind && { kind: list.kind as ContainerQuery['kind'] }),
    ...(list.maturity && { maturity: list.maturity as ContainerQuery['maturity'] }),
    ...(list.watcher && { watcher: list.watcher }),
    ...(list.watcherType && { watcherType: list.watcherType as WatcherType }),
    ...(list.agent && list.agent !== '-' && { agent: list.agent }),
  };
  const text = list.q.trim().toLowerCase();
  const local = list.agent === '-';
  const candidates = local || text ? all.filter((c) => (!local || !c.agent) && (!text || matchesText(c, text))) : all;
  return queryContainers(candidates, query).data;
}

/** The labels of the filters, as the chips and the empty list's sentence name them. */
const FILTER_LABELS = {
  q: 'Name or image',
  watcher: 'Watcher',
  watcherType: 'Source',
  agent: 'Host',
  status: 'Status',
  kind: 'Update kind',
  maturity: 'Maturity',
} as const;
export type FilterKey = keyof typeof FILTER_LABELS;

function filterWords(key: FilterKey, list: ListQuery): string {
  if (key === 'agent' && list.agent === '-') return 'this hub';
  if (key === 'q') return `“${list.q.trim()}”`;
  if (key === 'watcherType') return SOURCE_WORDS[list.watcherType as WatcherType] ?? list.watcherType;
  return list[key];
}

/** The filters in force (sort, order and grouping never hide a container), each with its words. */
export function activeFilters(list: ListQuery): { key: FilterKey; label: string; value: string }[] {
  return (Object.keys(FILTER_LABELS) as FilterKey[])
    .filter((key) => list[key].trim() !== '')
    .map((key) => ({
      key,
      label: FILTER_LABELS[key],
      value: filterWords(key, list),
    }));
}

/**
 * An update's temporary old container (`<name>-old-<time>`, shared/update-engine/operation.ts; the
 * pattern is repeated here because that module carries valibot schemas the page does not load).
 */
const TEMPORARY_NAME = /-old-\d{10,}$/;

/**
 * One row per container identity (agent, watcher, name) while an update re-creates it: the old
 * container renamed `<name>-old-<time>` is left out once the new one exists, and stands for it
 * (under the name it will have again) until then; two records of one identity (the new container seen before the
 * old one's rename) show as the newer. Everything else is returned as it is, in its order.
 */
export function collapseRecreated(all: readonly Container[]): readonly Container[] {
  if (!all.some((c) => TEMPORARY_NAME.test(c.name))) {
    const seen = new Set<string>();
    let duplicate = false;
    for (const c of all) {
      const key = containerIdentity(c);
      if (seen.has(key)) {
        duplicate = true;
        break;
      }
      seen.add(key);
    }
    if (!duplicate) return all;
  }
  const chosen = new Map<string, { c: Container; temporary: boolean }>();
  for (const c of all) {
    const temporary = TEMPORARY_NAME.test(c.name);
    const name = temporary ? c.name.replace(TEMPORARY_NAME, '') : c.name;
    const shown: Container = temporary
      ? { ...c, name, displayName: c.displayName === c.name ? name : c.displayName }
      : c;
    const key = containerIdentity(shown);
    const held = chosen.get(key);
    // The real container wins over the stand-in; of two alike, the newer.
    if (!held || (held.temporary && !temporary) || (held.temporary === temporary && c.createdAt > held.c.createdAt))
      chosen.set(key, { c: shown, temporary });
  }
  const byId = new Map([...chosen.values()].map(({ c }) => [c.id, c]));
  return all.flatMap((c) => byId.get(c.id) ?? []);
}

/** One line of the list: a group's header or a container. */
export type ListItem =
  | { type: 'group'; key: string; label: string; count: number; updates: number }
  | { type: 'container'; key: string; container: Container };

/** `dd.group`, else the compose project (the record's `group`), as the groups route has it. */
const groupOf = (c: Container): string => c.group ?? '';

/** The rows to show: the containers in order, or under a header per host or group (sorted by name, the ungrouped last). */
export function listItems(shown: readonly Container[], grouping: string): ListItem[] {
  const row = (container: Container): ListItem => ({ type: 'container', key: container.id, container });
  if (grouping !== 'host' && grouping !== 'group') return shown.map(row);
  const keyOf = grouping === 'host' ? hostLabelOf : groupOf;
  const groups = new Map<string, Container[]>();
  for (const container of shown) {
    const key = keyOf(container);
    const members = groups.get(key);
    if (members) members.push(container);
    else groups.set(key, [container]);
  }
  const names = [...groups.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  return names.flatMap((name) => {
    const members = groups.get(name) ?? [];
    const label = name || (grouping === 'group' ? 'No group' : 'this hub');
    return [
      {
        type: 'group' as const,
        key: `group:${name}`,
        label,
        count: members.length,
        updates: members.filter((c) => c.updateAvailable).length,
      },
      ...members.map(row),
    ];
  });
}
