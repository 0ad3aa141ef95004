import { describe, expect, it } from 'vitest';
import { parseImageReference } from './image-reference';
import { cachedImageReference } from './image-reference-cache';

describe('cachedImageReference', () => {
  it('answers what parseImageReference does, the same frozen object each time', () => {
    const first = cachedImageReference('ghcr.io/acme/api:2.1.0@sha256:' + 'a'.repeat(64));
    expect(first).toEqual(parseImageReference('ghcr.io/acme/api:2.1.0@sha256:' + 'a'.repeat(64)));
    expect(cachedImageReference('ghcr.io/acme/api:2.1.0@sha256:' + 'a'.repeat(64))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(cachedImageReference('nginx')).toEqual({ registry: 'docker.io', repository: 'library/nginx' });
  });

  it('answers undefined for a reference that does not parse, every time', () => {
    expect(cachedImageReference('Not A Reference')).toBeUndefined();
    expect(cachedImageReference('Not A Reference')).toBeUndefined();
    expect(cachedImageReference('')).toBeUndefined();
  });

  it('keeps answering right once it has started over', () => {
    for (let n = 0; n < 5000; n++) cachedImageReference(`example.com/app:${n}`);
    expect(cachedImageReference('example.com/app:7')).toEqual({
      registry: 'example.com',
      repository: 'app',
      tag: '7',
    });
  });
});
