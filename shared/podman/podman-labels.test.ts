import { describe, expect, it } from 'vitest';
import { readContainerLabels } from '../containers/container-labels';
import { isLocalOnlyImage, POD_LABEL, podMemberships, podmanLabels } from './podman-labels';

// As Podman 4.3.1 answers GET /libpod/pods/json for one pod of two containers (trimmed).
const PODS = [
  {
    Cgroup: '/libpod_parent',
    Containers: [
      { Id: 'c2', Names: 'pa-two', Status: 'running' },
      { Id: 'infra1', Names: 'b0586b1089d4-infra', Status: 'running' },
      { Id: 'c1', Names: 'pa-one', Status: 'running' },
    ],
    Created: '2026-12-06T19:51:08.434588953Z',
    Id: 'b0586b1089d4',
    InfraId: 'infra1',
    Name: 'pa',
    Namespace: '',
    Networks: ['podman'],
    Status: 'Running',
    Labels: {},
  },
  // A pod made with --infra=false: no infra container, InfraId empty.
  { Name: 'bare', InfraId: '', Containers: [{ Id: 'c3' }] },
  { Name: 'empty', Containers: null },
];

describe('Podman pods and labels', () => {
  it("maps each container to its pod and tells the pod's infra container apart", () => {
    const members = podMemberships(PODS);
    expect(members.get('c1')).toEqual({ pod: 'pa', infra: false });
    expect(members.get('infra1')).toEqual({ pod: 'pa', infra: true });
    expect(members.get('c3')).toEqual({ pod: 'bare', infra: false });
    expect(members.has('web')).toBe(false);
  });

  it('refuses an answer that is not a list of pods (a Docker Engine has no libpod endpoints)', () => {
    expect(() => podMemberships({ message: 'page not found' })).toThrow(/libpod pods: unexpected answer/);
    expect(() => podMemberships([{ Id: 'x' }])).toThrow(/libpod pods/);
  });

  it("groups a pod's containers under the pod's name, unless the container names its own group", () => {
    const member = { pod: 'pa', infra: false };
    expect(podmanLabels({ a: 'b' }, '127.0.0.1:5000/app:1', member)).toEqual({
      a: 'b',
      'dd.group': 'pa',
      [POD_LABEL]: 'pa',
    });
    expect(readContainerLabels(podmanLabels({}, 'docker.io/library/redis:7', member)).group).toBe('pa');
    expect(podmanLabels({ 'dd.group': 'shop' }, 'docker.io/library/redis:7', member)).toMatchObject({
      'dd.group': 'shop',
      [POD_LABEL]: 'pa',
    });
    expect(podmanLabels({}, 'docker.io/library/redis:7', undefined)).toEqual({});
  });

  it('reads io.containers.autoupdate as its policy, in or out of a pod', () => {
    expect(podmanLabels({ 'io.containers.autoupdate': 'registry' }, 'quay.io/a/b:1', undefined)).toMatchObject({
      'dd.watch': 'true',
      'dd.watch.digest': 'true',
      'dd.action.auto': 'true',
    });
  });

  it('does not check localhost/ images against a registry: Podman keeps them for images made on the host', () => {
    expect(isLocalOnlyImage('localhost/busybox:base')).toBe(true);
    expect(isLocalOnlyImage('localhost:5000/app:1')).toBe(false);
    expect(podmanLabels({}, 'localhost/busybox:base', undefined)).toEqual({ 'dd.watch': 'false' });
    expect(podmanLabels({ 'dd.watch': 'true' }, 'localhost/busybox:base', undefined)['dd.watch']).toBe('true');
    expect(
      podmanLabels({ 'io.containers.autoupdate': 'registry' }, 'localhost/busybox:base', undefined)['dd.watch'],
    ).toBe('true');
  });
});
