import { describe, expect, it } from 'vitest';
import { ghcrFormat } from './ghcr';
import { parseRegistryEvent } from './index';

/** GitHub's `package` event for a container published to ghcr.io (the fields the hub reads, as GitHub sends them). */
const PACKAGE_PUBLISHED = {
  action: 'published',
  package: {
    id: 2170546,
    name: 'hello-world',
    namespace: 'Codertocat',
    description: null,
    ecosystem: 'CONTAINER',
    package_type: 'CONTAINER',
    html_url: 'https://github.com/users/Codertocat/packages/container/package/hello-world',
    created_at: '2026-03-01T10:00:00Z',
    updated_at: '2026-03-01T10:00:00Z',
    owner: { login: 'Codertocat', id: 21031067, type: 'User' },
    package_version: {
      id: 212466351,
      version: 'sha256:3da1996a8115d7616457760d9920b815241d0a03b34cf5f04e9a0e9d8de37498',
      name: 'sha256:3da1996a8115d7616457760d9920b815241d0a03b34cf5f04e9a0e9d8de37498',
      html_url: 'https://github.com/users/Codertocat/packages/container/hello-world/212466351',
      metadata: [],
      container_metadata: {
        tag: { name: '1.3.0', digest: 'sha256:3da1996a8115d7616457760d9920b815241d0a03b34cf5f04e9a0e9d8de37498' },
        labels: {
          description: '',
          source: 'https://github.com/Codertocat/hello-world',
          revision: '',
          image_url: '',
          licenses: '',
        },
        manifest: {
          digest: 'sha256:3da1996a8115d7616457760d9920b815241d0a03b34cf5f04e9a0e9d8de37498',
          media_type: 'application/vnd.oci.image.index.v1+json',
        },
      },
      package_files: [],
      installation_command: 'docker pull ghcr.io/codertocat/hello-world:1.3.0',
      package_url: 'ghcr.io/Codertocat/hello-world:1.3.0',
    },
    registry: {
      about_url: 'https://docs.github.com/packages',
      name: 'GitHub CONTAINER registry',
      type: 'CONTAINER',
      url: 'https://ghcr.io/Codertocat',
      vendor: 'GitHub Inc',
    },
  },
  repository: { id: 185882436, name: 'hello-world', full_name: 'Codertocat/hello-world', private: false },
  sender: { login: 'Codertocat', id: 21031067 },
};

const EXPECTED = [
  {
    registry: 'ghcr.io',
    repository: 'codertocat/hello-world',
    tag: '1.3.0',
    digest: 'sha256:3da1996a8115d7616457760d9920b815241d0a03b34cf5f04e9a0e9d8de37498',
  },
];

describe('GHCR package webhooks', () => {
  it('reads a package event: package_url lower-cased, the tag from container_metadata', () => {
    expect(parseRegistryEvent(PACKAGE_PUBLISHED)).toEqual({ format: 'ghcr', images: EXPECTED, ignored: 0 });
  });

  it('reads the older registry_package event alike', () => {
    const { package: pkg, ...rest } = PACKAGE_PUBLISHED;
    expect(parseRegistryEvent({ ...rest, registry_package: pkg })).toEqual({
      format: 'ghcr',
      images: EXPECTED,
      ignored: 0,
    });
  });

  it('builds the name from owner and package when package_url is missing, and an untagged push has no tag', () => {
    const { package_url: _dropped, ...version } = PACKAGE_PUBLISHED.package.package_version;
    const untagged = {
      ...PACKAGE_PUBLISHED,
      package: {
        ...PACKAGE_PUBLISHED.package,
        package_version: { ...version, container_metadata: { tag: { name: '', digest: '' } } },
      },
    };
    expect(ghcrFormat.parse(untagged).images).toEqual([{ registry: 'ghcr.io', repository: 'codertocat/hello-world' }]);
  });

  it('ignores other package types and other actions', () => {
    const npm = {
      ...PACKAGE_PUBLISHED,
      package: {
        ...PACKAGE_PUBLISHED.package,
        ecosystem: 'npm',
        package_type: 'npm',
        package_version: { package_url: 'npm.pkg.github.com/@codertocat/hello' },
      },
    };
    expect(ghcrFormat.parse(npm)).toEqual({ images: [], ignored: 1 });
    expect(ghcrFormat.parse({ ...PACKAGE_PUBLISHED, action: 'deleted' })).toEqual({ images: [], ignored: 1 });
  });
});
