import type { ContainerGroup } from './detail-api';

type Member = ContainerGroup['containers'][number];

/**
 * The waves a dependency-group update from `root` would run (docs/updates.md): the root first, then
 * each container that depends on it, transitively, once everything it depends on in the group is done.
 * Names in a cycle never get a wave; the hub refuses such a group (409), so they are left out here.
 */
export function wavesFrom(root: Member, members: readonly Member[]): Member[][] {
  const byName = new Map(members.map((member) => [member.name, member]));
  const inGroup = new Set([root.name]);
  const queue = [root.name];
  while (queue.length > 0) {
    for (const dependent of byName.get(queue.shift() ?? '')?.dependents ?? []) {
      if (inGroup.has(dependent)) continue;
      inGroup.add(dependent);
      queue.push(dependent);
    }
  }
  const wave = new Map<string, number>([[root.name, 0]]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of inGroup) {
      if (wave.has(name)) continue;
      const before = (byName.get(name)?.dependsOn ?? []).filter((dep) => inGroup.has(dep));
      if (!before.every((dep) => wave.has(dep))) continue;
      wave.set(name, Math.max(...before.map((dep) => wave.get(dep) ?? 0)) + 1);
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
  return waves;
}
