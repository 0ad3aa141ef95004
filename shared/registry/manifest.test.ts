import { describe, expect, it } from 'vitest';
import { type ImageIndex, isAttestation, selectPlatform, sha256Digest } from './manifest';

const d = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;
const index: ImageIndex = {
  schemaVersion: 2,
  manifests: [
    { digest: d(1), platform: { os: 'linux', architecture: 'amd64' } },
    { digest: d(2), platform: { os: 'linux', architecture: 'arm', variant: 'v6' } },
    { digest: d(3), platform: { os: 'linux', architecture: 'arm', variant: 'v7' } },
    { digest: d(4), platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } },
    {
      digest: d(5),
      platform: { os: 'unknown', architecture: 'unknown' },
      annotations: { 'vnd.docker.reference.type': 'attestation-manifest' },
    },
  ],
};

describe('platform selection', () => {
  it('matches os, architecture and variant, and treats arm64 v8 as arm64', () => {
    expect(selectPlatform(index, { os: 'linux', architecture: 'amd64' })?.digest).toBe(d(1));
    expect(selectPlatform(index, { os: 'linux', architecture: 'arm', variant: 'v7' })?.digest).toBe(d(3));
    expect(selectPlatform(index, { os: 'linux', architecture: 'arm64' })?.digest).toBe(d(4));
    expect(selectPlatform(index, { os: 'windows', architecture: 'amd64' })).toBeUndefined();
  });

  it('never picks an attestation', () => {
    expect(isAttestation(index.manifests[4] as ImageIndex['manifests'][number])).toBe(true);
    expect(selectPlatform(index, { os: 'unknown', architecture: 'unknown' })).toBeUndefined();
  });

  it('computes sha256 digests', async () => {
    expect(await sha256Digest(new TextEncoder().encode(''))).toBe(
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });
});
