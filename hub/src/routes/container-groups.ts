import { actingLabels } from '../../../shared/containers/label-overrides';
import { POD_LABEL } from '../../../shared/podman/podman-labels';
import type { Container } from '../../../shared/schemas/container';
import type { ContainerGroup } from '../../../shared/schemas/container-views';
import { containersByHost, dependenciesOf, HostIndex } from '../updates/dependency-graph';

/** A user's own grouping (it may span hosts); without it, the compose project groups per host. */
const GROUP_LABEL = 'dd.group';

/** The record's `group` (container-labels.ts: `dd.group`, else the compose project), keyed per host for a pod or a compose project. */
function keyOf(
  container: Container,
): { key: string; group: Omit<ContainerGroup, 'total' | 'updatesAvailable' | 'containers'> } | undefined {
  const name = container.group;
  if (!name) return undefined;
  const host = { watcher: container.watcher, agent: container.agent ?? null };
  // A Podman pod is its containers' group (podman-labels.ts) unless they name another: one host's pod.
  if (container.labels[POD_LABEL] === name)
    return {
      key: `pod\u0000${container.agent ?? ''}\u0000${container.watcher}\u0000${name}`,
      group: { name, kind: 'pod', ...host },
    };
  if (actingLabels(container)[GROUP_LABEL])
    return { key: `label\u0000${name}`, group: { name, kind: 'label', watcher: null, agent: null } };
  return {
    key: `compose\u0000${container.agent ?? ''}\u0000${container.watcher}\u0000${name}`,
    group: { name, kind: 'compose', ...host },
  };
}

/**
 * The inventory's groups (GET /api/v1/containers/groups): by Podman pod per host, by `dd.group`,
 * else by compose project per host; containers in none are in no group. Each member shows its dependencies both ways.
 */
export function containerGroups(all: readonly Container[]): ContainerGroup[] {
  const byId = new Map(all.map((container) => [container.id, container]));
  const dependsOn = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  for (const fleet of containersByHost(all)) {
    const index = new HostIndex(fleet);
    for (const container of fleet) {
      const ids = dependenciesOf(container, index).ids;
      dependsOn.set(
        container.id,
        ids.flatMap((id) => byId.get(id)?.name ?? []),
      );
      for (const id of ids) {
        const names = dependents.get(id);
        if (names) names.push(container.name);
        else dependents.set(id, [container.name]);
      }
    }
  }
  const groups = new Map<string, ContainerGroup>();
  for (const container of all) {
    const found = keyOf(container);
    if (!found) continue;
    const group = groups.get(found.key) ?? { ...found.group, total: 0, updatesAvailable: 0, containers: [] };
    group.total += 1;
    if (container.updateAvailable) group.updatesAvailable += 1;
    group.containers.push({
      id: container.id,
      name: container.name,
      updateAvailable: container.updateAvailable,
      dependsOn: dependsOn.get(container.id) ?? [],
      dependents: (dependents.get(container.id) ?? []).sort(),
    });
    groups.set(found.key, group);
  }
  for (const group of groups.values()) group.containers.sort((a, b) => a.name.localeCompare(b.name));
  return [...groups.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || (a.watcher ?? '').localeCompare(b.watcher ?? ''),
  );
}
