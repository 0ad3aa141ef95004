import type { ContainerGroup } from './detail-api';

type Member = ContainerGroup['containers'][number];

/**
 * The waves a dependency-group update from `root` would run (docs/updates.md), as the hub plans them
 * (hub/src/updates/dependency-graph.ts): the root, with the rest of its Podman pod (`podmates`: the
 * pod is updated as one unit), then each container that depends on them, transitively, once
 * everything it depends on in the group is done. The root's own dependencies order it only inside its
 * pod. Names in a cycle never get a wave; the hub refuses such a group (409), so they are left out here.
 */
export function wavesFrom(root: Member, members: readonly Member[], podmates: readonly Member[] = []): Member[][] {
  const byName = new Map(members.map((member) => [member.name, member]));
  const pod = new Set(podmates.map((member) => member.name));
  const inGroup = new Set([root.name, ...pod]);
  const queue = [...inGroup];
  while (queue.length > 0) {
    for (const dependent of byName.get(queue.shift() ?? '')?.dependents ?? []) {
      if (inGroup.has(dependent)) continue;
      inGroup.add(dependent);
      queue.push(dependent);
    }
  }
  const before = (name: string) =>
    (byName.get(name)?.dependsOn ?? []).filter((dep) => (name === root.name ? pod : inGroup).has(dep));
  const wave = new Map<string, number>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of inGroup) {
      if (wave.has(name)) continue;
      const deps = before(name);
      if (!deps.every((dep) => wave.has(dep))) continue;
      wave.set(name, deps.length === 0 ? 0 : Math.max(...deps.map((dep) => wave.get(dep) ?? 0)) + 1);
      changed = true;
    }
  }
  const waves: Member[][] = [];
  for (const [name, index] of wave) {
    const member = byName.get(name);
    if (!member) continue;
    const held = waves[index];
    if (held) held.push(member);
    else waves[index] = [member];
  }
  for (const held of waves) held?.sort((a, b) => a.name.localeCompare(b.name));
  return waves.filter((held) => held !== undefined);
}
