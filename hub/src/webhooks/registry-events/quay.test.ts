import { describe, expect, it } from 'vitest';
import { parseRegistryEvent } from './index';

/** Quay's "Push to Repository" notification. */
const QUAY_PUSH = {
  name: 'repository',
  repository: 'mynamespace/repository',
  namespace: 'mynamespace',
  docker_url: 'quay.io/mynamespace/repository',
  homepage: 'https://quay.io/repository/mynamespace/repository',
  updated_tags: ['latest', '2.1.0'],
};

describe('Quay webhooks', () => {
  it('reads every updated tag, the host from docker_url', () => {
    expect(parseRegistryEvent(QUAY_PUSH)).toEqual({
      format: 'quay',
      images: [
        { registry: 'quay.io', repository: 'mynamespace/repository', tag: 'latest' },
        { registry: 'quay.io', repository: 'mynamespace/repository', tag: '2.1.0' },
      ],
      ignored: 0,
    });
  });

  it('reads the older updated_tags object and a self-hosted Quay’s host', () => {
    const older = {
      ...QUAY_PUSH,
      docker_url: 'quay.internal.example:8443/mynamespace/repository',
      updated_tags: { latest: 'b750fe79269d2ec9a3c593ef05b4332b1d1a02a62b4accb2c21d589ff2f5f2dc' },
    };
    expect(parseRegistryEvent(older)?.images).toEqual([
      { registry: 'quay.internal.example:8443', repository: 'mynamespace/repository', tag: 'latest' },
    ]);
  });

  it('falls back to quay.io without docker_url', () => {
    const { docker_url: _dropped, ...rest } = QUAY_PUSH;
    expect(parseRegistryEvent({ ...rest, updated_tags: [] })?.images).toEqual([
      { registry: 'quay.io', repository: 'mynamespace/repository' },
    ]);
  });
});
