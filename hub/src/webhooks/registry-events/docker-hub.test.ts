import { describe, expect, it } from 'vitest';
import { parseRegistryEvent } from './index';

/** Docker Hub's documented webhook payload (trimmed of the long description fields). */
const HUB_PUSH = {
  callback_url: 'https://registry.hub.docker.com/u/svendowideit/testhook/hook/2141b5bi5i5b02bec211i4eeih0242eg11000a/',
  push_data: { pushed_at: 1417566161, pusher: 'trustedbuilder', tag: 'latest' },
  repository: {
    comment_count: 0,
    date_created: 1417494799,
    description: '',
    full_description: 'Docker Hub based automated build from a GitHub repo',
    is_official: false,
    is_private: true,
    is_trusted: true,
    name: 'testhook',
    namespace: 'svendowideit',
    owner: 'svendowideit',
    repo_name: 'svendowideit/testhook',
    repo_url: 'https://registry.hub.docker.com/u/svendowideit/testhook/',
    star_count: 0,
    status: 'Active',
  },
};

describe('Docker Hub webhooks', () => {
  it('reads repo_name and the pushed tag, on docker.io', () => {
    expect(parseRegistryEvent(HUB_PUSH)).toEqual({
      format: 'docker-hub',
      images: [{ registry: 'docker.io', repository: 'svendowideit/testhook', tag: 'latest' }],
      ignored: 0,
    });
  });

  it('falls back to namespace/name, and puts a single name under library/', () => {
    const { repo_name: _dropped, ...rest } = HUB_PUSH.repository;
    expect(parseRegistryEvent({ ...HUB_PUSH, repository: rest })?.images).toEqual([
      { registry: 'docker.io', repository: 'svendowideit/testhook', tag: 'latest' },
    ]);
    expect(parseRegistryEvent({ ...HUB_PUSH, repository: { repo_name: 'nginx' } })?.images).toEqual([
      { registry: 'docker.io', repository: 'library/nginx', tag: 'latest' },
    ]);
  });
});
