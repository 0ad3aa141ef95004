import { describe, expect, it } from 'vitest';
import { pullReference, splitReference, withTag } from './image-names';

describe('image names', () => {
  it('splits at the tag colon, not at a registry port', () => {
    expect(splitReference('127.0.0.1:5000/a/b:1.2')).toEqual({
      repository: '127.0.0.1:5000/a/b',
      tag: '1.2',
      digest: undefined,
    });
    expect(splitReference('127.0.0.1:5000/a/b')).toEqual({
      repository: '127.0.0.1:5000/a/b',
      tag: undefined,
      digest: undefined,
    });
    expect(splitReference('nginx:1.27@sha256:abc')).toEqual({ repository: 'nginx', tag: '1.27', digest: 'sha256:abc' });
  });

  it('moves a reference to another tag in the spelling the user wrote, and pulls one tag only', () => {
    expect(withTag('nginx:1.27', '1.28')).toBe('nginx:1.28');
    expect(withTag('ghcr.io/a/b:1@sha256:abc', '2')).toBe('ghcr.io/a/b:2');
    expect(pullReference('localhost:5000/app')).toBe('localhost:5000/app:latest');
    expect(pullReference('app@sha256:abc')).toBe('app@sha256:abc');
  });
});
