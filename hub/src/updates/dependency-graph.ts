import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Container } from '../../../shared/schemas/container';

/** Names a container lists in `dd.depends_on` (comma-separated container or compose service names). */
export const DEPENDS_ON_LABEL = 'dd.depends_on';
/** What Docker Compose writes: `service:condition:restart` entries, comma-separated. */
const COMPOSE_DEPENDS_ON_LABEL = 'com.docker.compose.depends_on';
const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';
const COMPOSE_SERVICE_LABEL = 'com.docker.compose.service';
/** More names than any real stack lists: a bound on work for a hostile label. */
const MAX_NAMES = 64;

type Located = Pick<Container, 'id' | 'name' | 'agent' | 'watcher' | 'labels'>;

function listed(value: string | undefined, pick: (entry: string) => string): string[] {
  if (!value) return [];
  const names = value
    .split(',')
    .map((entry) => pick(entry.trim()))
    .filter((name) => name !== '');
  return [...new Set(names)].slice(0, MAX_NAMES);
}

/** The names a container says it depends on, from both labels. */
export function declaredDependencies(container: Pick<Container, 'labels' | 'effectiveLabels'>): string[] {
  const own = listed(actingLabels(container)[DEPENDS_ON_LABEL], (entry) => entry);
  const compose = listed(container.labels[COMPOSE_DEPENDS_ON_LABEL], (entry) => entry.split(':')[0]?.trim() ?? '');
  return [...new Set([...own, ...compose])];
}

const sameHost = (a: Located, b: Located) => a.agent === b.agent && a.watcher === b.watcher;

/**
 * A name resolved on the container's own Docker host: a container of that name, else the service of
 * that name in the container's compose project (what compose `depends_on` names).
 */
function resolve(name: string, from: Located, fleet: readonly Located[]): Located | undefined {
  const onHost = fleet.filter((candidate) => sameHost(candidate, from) && candidate.id !== from.id);
  const byName = onHost.find((candidate) => candidate.name === name);
  if (byName) return byName;
  const project = from.labels[COMPOSE_PROJECT_LABEL];
  if (!project) return undefined;
  return onHost.find(
    (candidate) =>
      candidate.labels[COMPOSE_PROJECT_LABEL] === project && candidate.labels[COMPOSE_SERVICE_LABEL] === name,
  );
}

export interface Dependencies {
  /** Ids of the containers it depends on. */
  ids: string[];
  /** Names that match no container on its host (not running, or a typo): they order nothing. */
  unresolved: string[];
}

export function dependenciesOf(container: Located, fleet: readonly Located[]): Dependencies {
  const ids: string[] = [];
  const unresolved: string[] = [];
  for (const name of declaredDependencies(container)) {
    const found = resolve(name, container, fleet);
    if (found) {
      if (!ids.includes(found.id)) ids.push(found.id);
    } else unresolved.push(name);
  }
  return { ids, unresolved };
}

export interface GroupMember<T extends Located> {
  container: T;
  /** Its dependencies inside the group (they are in earlier waves). */
  dependsOn: T[];
}

export type DependencyGroup<T extends Located> = { waves: GroupMember<T>[][] } | { cycle: T[] };

/**
 * The root and every container that depends on it, directly or through others, in waves: a
 * container's wave comes after the waves of all its dependencies in the group, so wave 0 is the root
 * alone and each wave can be updated once the one before it has succeeded. Dependencies outside the
 * group order nothing. A cycle in the group is answered instead of waves.
 */
export function dependencyGroupOf<T extends Located>(root: T, fleet: readonly T[]): DependencyGroup<T> {
  const host = fleet.filter((container) => sameHost(container, root));
  const dependencies = new Map(host.map((container) => [container.id, dependenciesOf(container, host).ids]));
  const members = new Map<string, T>([[root.id, root]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const container of host) {
      if (members.has(container.id)) continue;
      if ((dependencies.get(container.id) ?? []).some((id) => members.has(id))) {
        members.set(container.id, container);
        grew = true;
      }
    }
  }
  // The root's own dependencies are outside its group: it starts the order, whatever it depends on.
  const dependsOnOf = (container: T) =>
    container.id === root.id ? [] : (dependencies.get(container.id) ?? []).filter((id) => members.has(id));
  const waves: GroupMember<T>[][] = [];
  const placed = new Set<string>();
  while (placed.size < members.size) {
    const wave = [...members.values()].filter(
      (container) => !placed.has(container.id) && dependsOnOf(container).every((id) => placed.has(id)),
    );
    if (wave.length === 0) {
      return { cycle: [...members.values()].filter((container) => !placed.has(container.id)) };
    }
    for (const container of wave) placed.add(container.id);
    waves.push(
      wave
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((container) => ({
          container,
          dependsOn: dependsOnOf(container).flatMap((id) => {
            const found = members.get(id);
            return found ? [found] : [];
          }),
        })),
    );
  }
  return { waves };
}
