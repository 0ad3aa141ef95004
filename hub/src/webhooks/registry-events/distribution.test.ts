import { describe, expect, it } from 'vitest';
import { distributionFormat } from './distribution';
import { parseRegistryEvent } from './index';

/** An envelope as distribution 2.8 sends it for `docker push 127.0.0.1:5000/team/app:1.1.0`: blobs, then the manifest. */
const PUSH_ENVELOPE = {
  events: [
    {
      id: '5c7a4a1f-7b3e-4a5c-9d1e-3f0e1c2d9a01',
      timestamp: '2026-03-01T10:00:00.123456789Z',
      action: 'push',
      target: {
        mediaType: 'application/octet-stream',
        size: 2811,
        digest: 'sha256:4f4fb700ef54461cfa02571ae0db9a0dc1e0cdb5577484a6d75e68dc38e8acc1',
        length: 2811,
        repository: 'team/app',
        url: 'http://127.0.0.1:5000/v2/team/app/blobs/sha256:4f4fb700ef54461cfa02571ae0db9a0dc1e0cdb5577484a6d75e68dc38e8acc1',
      },
      request: {
        id: 'a1',
        addr: '127.0.0.1:51234',
        host: '127.0.0.1:5000',
        method: 'PUT',
        useragent: 'docker/20.10.24',
      },
      actor: {},
      source: { addr: 'build-host:5000', instanceID: 'f0c5e1a2-0000-4000-8000-000000000001' },
    },
    {
      id: '5c7a4a1f-7b3e-4a5c-9d1e-3f0e1c2d9a02',
      timestamp: '2026-03-01T10:00:00.223456789Z',
      action: 'push',
      target: {
        mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
        size: 528,
        digest: 'sha256:9b0bc5c61d1f3a3b25d8f8a5a1f6f1b8e5e0c6a7b8c9d0e1f2a3b4c5d6e7f8a9',
        length: 528,
        repository: 'team/app',
        url: 'http://127.0.0.1:5000/v2/team/app/manifests/sha256:9b0bc5c61d1f3a3b25d8f8a5a1f6f1b8e5e0c6a7b8c9d0e1f2a3b4c5d6e7f8a9',
        tag: '1.1.0',
      },
      request: {
        id: 'a2',
        addr: '127.0.0.1:51234',
        host: '127.0.0.1:5000',
        method: 'PUT',
        useragent: 'docker/20.10.24',
      },
      actor: {},
      source: { addr: 'build-host:5000', instanceID: 'f0c5e1a2-0000-4000-8000-000000000001' },
    },
  ],
};

describe('distribution registry notifications', () => {
  it('reads the pushed manifest of an envelope and skips its blob pushes', () => {
    expect(parseRegistryEvent(PUSH_ENVELOPE)).toEqual({
      format: 'distribution',
      images: [
        {
          registry: '127.0.0.1:5000',
          repository: 'team/app',
          tag: '1.1.0',
          digest: 'sha256:9b0bc5c61d1f3a3b25d8f8a5a1f6f1b8e5e0c6a7b8c9d0e1f2a3b4c5d6e7f8a9',
        },
      ],
      ignored: 1,
    });
  });

  it('ignores pulls, the hub’s own lookups among them, and deletes', () => {
    const pull = structuredClone(PUSH_ENVELOPE.events[1]) as Record<string, unknown>;
    pull.action = 'pull';
    const removal = { ...pull, action: 'delete' };
    expect(distributionFormat.parse({ events: [pull, removal] })).toEqual({ images: [], ignored: 2 });
  });

  it('takes a manifest pushed by digest (an index child) without a tag, and the host from the URL when request.host is missing', () => {
    const child = {
      action: 'push',
      target: {
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: 'sha256:1111111111111111111111111111111111111111111111111111111111111111',
        repository: 'Team/App',
        url: 'https://registry.example.com/v2/team/app/manifests/sha256:1111111111111111111111111111111111111111111111111111111111111111',
      },
    };
    expect(distributionFormat.parse({ events: [child] }).images).toEqual([
      {
        registry: 'registry.example.com',
        repository: 'team/app',
        digest: 'sha256:1111111111111111111111111111111111111111111111111111111111111111',
      },
    ]);
  });

  it('puts single-name Docker Hub repositories under library/, and counts malformed events as ignored', () => {
    const hub = {
      action: 'push',
      target: { repository: 'nginx', tag: '1.27' },
      request: { host: 'registry-1.docker.io' },
    };
    const broken = { action: 'push', target: { repository: '../../etc' } };
    expect(distributionFormat.parse({ events: [hub, broken, 'nonsense'] })).toEqual({
      images: [{ registry: 'docker.io', repository: 'library/nginx', tag: '1.27' }],
      ignored: 2,
    });
  });
});
