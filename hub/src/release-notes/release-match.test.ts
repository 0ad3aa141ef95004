import { describe, expect, it } from 'vitest';
import { findRelease, type Release, releasesBetween, releaseVersionOf } from './release-match';
import { parseSemver } from './release-version';

const release = (tag: string, prerelease = false): Release => ({
  tag,
  version: releaseVersionOf(tag),
  title: tag,
  date: null,
  body: '',
  url: null,
  prerelease,
});

const semver = (text: string) => parseSemver(text) as NonNullable<ReturnType<typeof parseSemver>>;
const tags = (releases: Release[]) => releases.map((r) => r.tag);

describe('findRelease', () => {
  const plain = [release('v1.3.0'), release('v1.2.3'), release('1.2.2')];

  it('maps v prefixes both ways and an image variant to its release', () => {
    expect(findRelease(plain, '1.2.3', 'acme/app')?.tag).toBe('v1.2.3');
    expect(findRelease(plain, 'v1.2.2', 'acme/app')?.tag).toBe('1.2.2');
    expect(findRelease(plain, '1.2.3-alpine', 'acme/app')?.tag).toBe('v1.2.3');
    expect(findRelease(plain, '1.3', 'acme/app')?.tag).toBe('v1.3.0');
    expect(findRelease(plain, '1.4.0', 'acme/app')).toBeUndefined();
    expect(findRelease(plain, 'latest', 'acme/app')).toBeUndefined();
  });

  it('prefers the exact tag, then no prefix, then the image name, and never guesses between components', () => {
    const mono = [release('web@2.0.0'), release('api@2.0.0'), release('app-v2.0.0'), release('v2.0.0')];
    expect(findRelease(mono, 'api@2.0.0', 'acme/web')?.tag).toBe('api@2.0.0');
    expect(findRelease(mono, '2.0.0', 'acme/web')?.tag).toBe('v2.0.0');
    const components = [release('web@2.0.0'), release('api@2.0.0'), release('worker/v2.0.0')];
    expect(findRelease(components, '2.0.0', 'acme/api')?.tag).toBe('api@2.0.0');
    expect(findRelease(components, '2.0.0', 'ghcr-mirror/worker')?.tag).toBe('worker/v2.0.0');
    expect(findRelease(components, '2.0.0', 'acme/other')).toBeUndefined();
    expect(findRelease([release('server-v3.1.0')], '3.1.0', 'acme/other')?.tag).toBe('server-v3.1.0');
  });
});

describe('releasesBetween', () => {
  const list = [
    release('v2.0.0'),
    release('v2.0.0-rc.1', true),
    release('v1.3.0'),
    release('1.3.0'),
    release('v1.2.1'),
    release('v1.2.0'),
    release('nightly'),
    release('other@1.2.5'),
  ];

  it('gives every release after from up to to, oldest first, once per version', () => {
    expect(tags(releasesBetween(list, semver('1.2.0'), semver('2.0.0'), 'acme/app'))).toEqual([
      'v1.2.1',
      'v1.3.0',
      'v2.0.0',
    ]);
    expect(tags(releasesBetween(list, semver('v1.2.1'), semver('1.3.0'), 'acme/app'))).toEqual(['v1.3.0']);
    expect(releasesBetween(list, semver('2.0.0'), semver('1.0.0'), 'acme/app')).toEqual([]);
  });

  it('counts prereleases only when to is one', () => {
    expect(tags(releasesBetween(list, semver('1.3.0'), semver('2.0.0-rc.1'), 'acme/app'))).toEqual(['v2.0.0-rc.1']);
  });
});
