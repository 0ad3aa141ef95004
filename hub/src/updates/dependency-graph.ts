import { actingLabels } from '../../../shared/containers/label-overrides';
import { POD_LABEL } from '../../../shared/podman/podman-labels';
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
 * One Docker host's containers by name and by compose service, built once so that resolving every
 * container's dependencies is linear in the host's size (it was a scan of the host per name).
 */
export class HostIndex<T extends Located> {
  private readonly byName = new Map<string, T[]>();
  private readonly byService = new Map<string, T[]>();

  /** `host` must hold one host's containers only (see `containersByHost`). */
  constructor(readonly host: readonly T[]) {
    for (const container of host) {
      append(this.byName, container.name, container);
      const project = container.labels[COMPOSE_PROJECT_LABEL];
      const service = container.labels[COMPOSE_SERVICE_LABEL];
      if (project && service) append(this.byService, serviceKey(project, service), container);
    }
  }

  /**
   * A name resolved on the container's own host: a container of that name, else the service of that
   * name in the container's compose project (what compose `depends_on` names). Never itself.
   */
  resolve(name: string, from: Located): T | undefined {
    const other = (candidates: T[] | undefined) => candidates?.find((candidate) => candidate.id !== from.id);
    const byName = other(this.byName.get(name));
    if (byName) return byName;
    const project = from.labels[COMPOSE_PROJECT_LABEL];
    return project ? other(this.byService.get(serviceKey(project, name))) : undefined;
  }
}

const serviceKey = (project: string, service: string) => `${project}\u0000${service}`;

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The fleet split by Docker host (agent and watcher), in the fleet's order. */
export function containersByHost<T extends Located>(fleet: readonly T[]): T[][] {
  const hosts = new Map<string, T[]>();
  for (const container of fleet) append(hosts, `${container.agent ?? ''}\u0000${container.watcher}`, container);
  return [...hosts.values()];
}

export interface Dependencies {
  /** Ids of the containers it depends on. */
  ids: string[];
  /** Names that match no container on its host (not running, or a typo): they order nothing. */
  unresolved: string[];
}

/** `fleet` may span hosts; pass a `HostIndex` of the container's host when resolving many containers. */
export function dependenciesOf(container: Located, fleet: readonly Located[] | HostIndex<Located>): Dependencies {
  const index = fleet instanceof HostIndex ? fleet : new HostIndex(fleet.filter((other) => sameHost(other, container)));
  const ids: string[] = [];
  const unresolved: string[] = [];
  for (const name of declaredDependencies(container)) {
    const found = index.resolve(name, container);
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

/** The other containers of the root's Podman pod on its host (none when it is in no pod). */
export function podmatesOf<T extends Located>(root: T, host: readonly T[]): T[] {
  const pod = root.labels[POD_LABEL];
  if (!pod) return [];
  return host.filter((container) => container.id !== root.id && container.labels[POD_LABEL] === pod);
}

/**
 * The root and every container that depends on it, directly or through others, in waves: a
 * container's wave comes after the waves of all its dependencies in the group, so wave 0 is the root
 * (with the rest of its Podman pod, updated as one unit: docs/sources.md) and each wave can be
 * updated once the one before it has succeeded. Dependencies outside the group order nothing. A
 * cycle in the group is answered instead of waves.
 */
export function dependencyGroupOf<T extends Located>(root: T, fleet: readonly T[]): DependencyGroup<T> {
  const host = fleet.filter((container) => sameHost(container, root));
  const index = new HostIndex(host);
  const dependencies = new Map(host.map((container) => [container.id, dependenciesOf(container, index).ids]));
  const podmates = podmatesOf(root, host);
  const members = new Map<string, T>([root, ...podmates].map((member) => [member.id, member]));
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
  // The root's own dependencies are outside its group (it starts the order, whatever it depends on),
  // but for the rest of its pod, which is updated with it.
  const inPod = new Set(podmates.map((member) => member.id));
  const dependsOnOf = (container: T) =>
    (dependencies.get(container.id) ?? []).filter((id) => (container.id === root.id ? inPod : members).has(id));
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
