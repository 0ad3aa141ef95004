/**
 * The waves the container page shows before a dependency-group update are the waves the hub runs:
 * the same fleet through the UI's wavesFrom (from GET /containers/groups) and the hub's
 * dependencyGroupOf, with and without a Podman pod.
 */
import { describe, expect, it } from 'vitest';
import { containerGroups } from '../../hub/src/routes/container-groups';
import { dependencyGroupOf } from '../../hub/src/updates/dependency-graph';
import type { Container } from '../../shared/schemas/container';
import { wavesFrom } from '../../ui/src/views/container-detail/group-waves';
import { containerRecord } from '../support/container-fixture';

function fleet(): Container[] {
  const pod = { 'dockwatch.podman.pod': 'shop', 'dd.group': 'shop' };
  const make = (name: string, labels: Record<string, string>) =>
    containerRecord({
      id: name.padEnd(64, '0'),
      name,
      labels,
      ...(labels['dd.group'] && { group: labels['dd.group'] }),
    });
  return [
    make('db', pod),
    make('api', { ...pod, 'dd.depends_on': 'db' }),
    make('sidecar', pod),
    make('web', { 'dd.depends_on': 'api', 'dd.group': 'front' }),
    make('cache', { 'dd.group': 'front' }),
    make('proxy', { 'dd.depends_on': 'cache,web', 'dd.group': 'front' }),
  ];
}

function uiWaves(all: Container[], rootName: string): string[][] {
  const groups = containerGroups(all);
  const group = groups.find((g) => g.containers.some((member) => member.name === rootName));
  if (!group) throw new Error(`no group holds ${rootName}`);
  const root = group.containers.find((member) => member.name === rootName);
  if (!root) throw new Error('unreachable');
  // Every group's members are listed; a dependent may sit in another group (web is in "front").
  const members = groups.flatMap((g) => g.containers);
  const podmates = group.kind === 'pod' ? group.containers.filter((member) => member.id !== root.id) : [];
  return wavesFrom(root, members, podmates).map((wave) => wave.map((member) => member.name));
}

function hubWaves(all: Container[], rootName: string): string[][] {
  const root = all.find((container) => container.name === rootName);
  if (!root) throw new Error(`no ${rootName}`);
  const group = dependencyGroupOf(root, all);
  if (!('waves' in group)) throw new Error('a cycle');
  return group.waves.map((wave) => wave.map((member) => member.container.name));
}

describe('dependency-group waves on the container page', () => {
  it('lists a pod as one group of kind pod, on its host', () => {
    const shop = containerGroups(fleet()).find((group) => group.name === 'shop');
    expect(shop).toMatchObject({ kind: 'pod', watcher: 'local', total: 3 });
    expect(shop?.containers.map((member) => member.name)).toEqual(['api', 'db', 'sidecar']);
  });

  it.each(['db', 'api', 'sidecar', 'web', 'cache'])('from %s, the same waves as the hub', (rootName) => {
    const all = fleet();
    expect(uiWaves(all, rootName)).toEqual(hubWaves(all, rootName));
  });

  it('updates the whole pod first, then what depends on it', () => {
    expect(uiWaves(fleet(), 'sidecar')).toEqual([['db', 'sidecar'], ['api'], ['web'], ['proxy']]);
  });
});
