import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../../test/support/container-fixture';
import { declaredDependencies, dependenciesOf, dependencyGroupOf } from './dependency-graph';

let next = 0;
function container(name: string, labels: Record<string, string> = {}, over: Partial<Container> = {}): Container {
  next += 1;
  return containerRecord({ id: `${name}-${next}`.padEnd(64, '0'), name, labels, ...over });
}

const compose = (project: string, service: string, dependsOn?: string) => ({
  'com.docker.compose.project': project,
  'com.docker.compose.service': service,
  ...(dependsOn !== undefined && { 'com.docker.compose.depends_on': dependsOn }),
});

const names = (group: ReturnType<typeof dependencyGroupOf<Container>>) =>
  'waves' in group
    ? group.waves.map((wave) => wave.map((member) => member.container.name))
    : group.cycle.map((c) => c.name);

describe('dependency graph', () => {
  it('reads dd.depends_on and compose depends_on (service:condition:restart), without repeats', () => {
    expect(
      declaredDependencies({
        labels: {
          'dd.depends_on': ' db , cache,,db',
          'com.docker.compose.depends_on': 'db:service_healthy:false,queue:service_started:true',
        },
      }),
    ).toEqual(['db', 'cache', 'queue']);
  });

  it('resolves names on the same host only: container names first, then services of the same compose project', () => {
    const db = container('stack-db-1', compose('stack', 'db'));
    const otherStackDb = container('other-db-1', compose('other', 'db'));
    const remoteCache = container('cache', {}, { agent: 'far' });
    const api = container('api', {
      ...compose('stack', 'api', 'db:service_started:false'),
      'dd.depends_on': 'cache,ghost',
    });
    expect(dependenciesOf(api, [db, otherStackDb, remoteCache, api])).toEqual({
      ids: [db.id],
      unresolved: ['cache', 'ghost'],
    });
  });

  it('groups the root with everything that depends on it, directly or not, in waves', () => {
    const db = container('db');
    const cache = container('cache');
    const api = container('api', { 'dd.depends_on': 'db,cache' });
    const worker = container('worker', { 'dd.depends_on': 'db' });
    const web = container('web', { 'dd.depends_on': 'api' });
    const unrelated = container('unrelated', { 'dd.depends_on': 'cache' });
    const fleet = [web, unrelated, worker, api, cache, db];
    expect(names(dependencyGroupOf(db, fleet))).toEqual([['db'], ['api', 'worker'], ['web']]);
    const group = dependencyGroupOf(db, fleet);
    // cache is outside db's group: api's dependency on it orders nothing here.
    if ('waves' in group) expect(group.waves[1]?.[0]?.dependsOn.map((c) => c.name)).toEqual(['db']);
    // A leaf is a group of its own; the root's own dependencies are not part of its group.
    expect(names(dependencyGroupOf(web, fleet))).toEqual([['web']]);
    expect(names(dependencyGroupOf(api, fleet))).toEqual([['api'], ['web']]);
  });

  it('puts a member after the longest chain to it (a diamond)', () => {
    const db = container('db');
    const api = container('api', { 'dd.depends_on': 'db' });
    const web = container('web', { 'dd.depends_on': 'db,api' });
    expect(names(dependencyGroupOf(db, [web, api, db]))).toEqual([['db'], ['api'], ['web']]);
  });

  it('answers the members of a cycle instead of waves', () => {
    const db = container('db');
    const a = container('a', { 'dd.depends_on': 'db,b' });
    const b = container('b', { 'dd.depends_on': 'a' });
    const group = dependencyGroupOf(db, [db, a, b]);
    expect('cycle' in group).toBe(true);
    expect(names(group).sort()).toEqual(['a', 'b']);
  });

  it("takes the root's whole Podman pod as one unit, ordered by the pod's own dependencies", () => {
    const pod = { 'dockwatch.podman.pod': 'shop' };
    const db = container('db', pod);
    const api = container('api', { ...pod, 'dd.depends_on': 'db' });
    const sidecar = container('sidecar', pod);
    const web = container('web', { 'dd.depends_on': 'api' });
    const otherPod = container('other', { 'dockwatch.podman.pod': 'blog' });
    const elsewhere = container('db2', pod, { watcher: 'other-host' });
    const fleet = [web, api, sidecar, db, otherPod, elsewhere];
    // From any member: the pod is the first waves (api after db, its dependency in the pod), then its dependents.
    expect(names(dependencyGroupOf(sidecar, fleet))).toEqual([['db', 'sidecar'], ['api'], ['web']]);
    // The root's dependency on a podmate orders it, where a dependency outside the group does not.
    expect(names(dependencyGroupOf(api, fleet))).toEqual([['db', 'sidecar'], ['api'], ['web']]);
    // Another pod, or the same pod name on another host, is not part of it.
    expect(names(dependencyGroupOf(otherPod, fleet))).toEqual([['other']]);
    const loop = container('loop', { ...pod, 'dd.depends_on': 'back' });
    const back = container('back', { ...pod, 'dd.depends_on': 'loop' });
    expect('cycle' in dependencyGroupOf(loop, [loop, back])).toBe(true);
  });

  it('stays bounded on a hostile label', () => {
    const db = container('db');
    const noisy = container('noisy', { 'dd.depends_on': Array.from({ length: 10_000 }, (_, i) => `n${i}`).join(',') });
    expect(dependenciesOf(noisy, [db, noisy]).unresolved).toHaveLength(64);
  });
});
