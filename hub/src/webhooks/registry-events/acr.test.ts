import { describe, expect, it } from 'vitest';
import { acrFormat } from './acr';
import { parseRegistryEvent } from './index';

/** An Azure Container Registry "push" webhook, as in Azure's webhook reference. */
const ACR_PUSH = {
  id: 'cb8c3971-9adc-488b-bdd8-43cbb4974ff5',
  timestamp: '2026-03-01T16:52:01.343145347Z',
  action: 'push',
  target: {
    mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
    size: 524,
    digest: 'sha256:80f0d5c8786bb9e621a45ece0db56d11cdc624ad20da9fe62e9d25490f331d7d',
    length: 524,
    repository: 'hello-world',
    tag: 'v1',
  },
  request: {
    id: '3cbb6949-7549-4fa1-86cd-a6d5451dffc7',
    host: 'myregistry.azurecr.io',
    method: 'PUT',
    useragent: 'docker/25.0.3 go/go1.21.6 git-commit/f417435 kernel/6.5.0 os/linux arch/amd64',
  },
};

describe('Azure Container Registry webhooks', () => {
  it('reads a push: host from the request, repository and tag from the target', () => {
    expect(parseRegistryEvent(ACR_PUSH)).toEqual({
      format: 'acr',
      images: [
        {
          registry: 'myregistry.azurecr.io',
          repository: 'hello-world',
          tag: 'v1',
          digest: 'sha256:80f0d5c8786bb9e621a45ece0db56d11cdc624ad20da9fe62e9d25490f331d7d',
        },
      ],
      ignored: 0,
    });
  });

  it('ignores Helm chart pushes and deletes', () => {
    expect(acrFormat.parse({ ...ACR_PUSH, action: 'chart_push' })).toEqual({ images: [], ignored: 1 });
    expect(acrFormat.parse({ ...ACR_PUSH, action: 'delete' })).toEqual({ images: [], ignored: 1 });
  });
});
