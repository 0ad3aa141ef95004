import { describe, expect, it } from 'vitest';
import { NO_TAG_POLICY } from '../../../shared/tags';
import { checkImage, type ImageCheckInput } from './check-image';
import type { FleetLookups } from './fleet-lookups';

const HEAD_DIGEST = `sha256:${'a'.repeat(64)}`;

/** Lookups that answer a HEAD and record every question: what a check asks is what the registry is asked. */
function recordingLookups() {
  const asked: string[] = [];
  const lookups = {
    tagDigest: async (_registry: string, repository: string, tag: string) => {
      asked.push(`head ${repository}:${tag}`);
      return { digest: HEAD_DIGEST, mediaType: 'application/vnd.oci.image.manifest.v1+json' };
    },
    platformImage: async (_registry: string, repository: string, digest: string) => {
      asked.push(`platform ${repository}@${digest}`);
      return { manifestDigest: `sha256:${'b'.repeat(64)}`, configDigest: `sha256:${'c'.repeat(64)}` };
    },
    publishedAt: async () => {
      asked.push('published');
      return undefined;
    },
  } as unknown as FleetLookups;
  return { lookups, asked };
}

const input = (overrides: Partial<ImageCheckInput>): ImageCheckInput => ({
  registry: '127.0.0.1:5000',
  repository: 'bench/app',
  tag: 'latest',
  platform: { os: 'linux', architecture: 'amd64' },
  localDigests: [],
  tagPolicy: NO_TAG_POLICY,
  ...overrides,
});

describe('checkImage by digest', () => {
  it('does not take a reference standing in for the image id as a digest (bench sources: 3 requests per :latest entry, each a false update)', async () => {
    const { lookups, asked } = recordingLookups();
    // A Dockerfile's `FROM 127.0.0.1:5000/bench/app:latest`: the file source's record has the reference as its id.
    const result = await checkImage(input({ localImageId: '127.0.0.1:5000/bench/app:latest' }), lookups);
    expect(result.digestChanged).toBe(false);
    expect(result.remoteDigest).toBe(HEAD_DIGEST);
    expect(asked).toEqual(['head bench/app:latest']);
  });

  it('still compares a Docker image id, which is a digest', async () => {
    const { lookups, asked } = recordingLookups();
    const result = await checkImage(input({ localImageId: `sha256:${'d'.repeat(64)}` }), lookups);
    expect(result.digestChanged).toBe(true);
    expect(asked).toEqual(['head bench/app:latest', `platform bench/app@${HEAD_DIGEST}`, 'published']);
  });
});
