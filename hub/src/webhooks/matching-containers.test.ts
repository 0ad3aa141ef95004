import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord, withImage } from '../../../test/support/container-fixture';
import { matchingContainers } from './matching-containers';

const nginx = withImage(containerRecord({ id: '1'.repeat(64), name: 'nginx' }), 'docker.io', 'library/nginx', '1.27');
const app = withImage(containerRecord({ id: '2'.repeat(64), name: 'app' }), '127.0.0.1:5000', 'team/app');
const appOnAgent = {
  ...withImage(containerRecord({ id: '3'.repeat(64), name: 'app' }), '127.0.0.1:5000', 'team/app'),
  agent: 'nas',
};
const mirrored = {
  ...withImage(containerRecord({ id: '4'.repeat(64), name: 'mirror' }), 'mirror.local:5000', 'cache/app'),
  image: {
    ...app.image,
    registry: { url: 'mirror.local:5000', lookupImage: '127.0.0.1:5000/team/app:1.0.0' },
    name: 'cache/app',
  },
};
const unwatched = {
  ...withImage(containerRecord({ id: '5'.repeat(64), name: 'quiet' }), '127.0.0.1:5000', 'team/app'),
  watched: false,
};
const all = [nginx, app, appOnAgent, mirrored, unwatched];
const ids = (containers: readonly Container[]) => containers.map((c) => `${c.agent ?? '-'}:${c.name}`).sort();

describe('containers a registry push concerns', () => {
  it('matches by host and repository, any tag, local and on agents, through dd.registry.lookup.image; never unwatched ones', () => {
    const matched = matchingContainers(all, [{ registry: '127.0.0.1:5000', repository: 'team/app', tag: '9.9.9' }]);
    expect(ids(matched)).toEqual(['-:app', '-:mirror', 'nas:app']);
  });

  it('does not match the same repository on another host', () => {
    expect(matchingContainers(all, [{ registry: 'ghcr.io', repository: 'team/app' }])).toEqual([]);
    expect(ids(matchingContainers(all, [{ registry: 'mirror.local:5000', repository: 'cache/app' }]))).toEqual([
      '-:mirror',
    ]);
  });

  it('matches the repository on any host when the event names none, library/ included', () => {
    expect(ids(matchingContainers(all, [{ registry: undefined, repository: 'nginx' }]))).toEqual(['-:nginx']);
    expect(ids(matchingContainers(all, [{ registry: undefined, repository: 'team/app' }]))).toEqual([
      '-:app',
      '-:mirror',
      'nas:app',
    ]);
  });
});
