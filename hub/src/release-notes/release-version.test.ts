import { describe, expect, it } from 'vitest';
import { compareReleaseVersions, formatVersion, parseImageTag, parseReleaseTag, parseSemver } from './release-version';

const release = (tag: string) => {
  const version = parseReleaseTag(tag);
  return version && { prefix: version.prefix, version: formatVersion(version) };
};

describe('release tags', () => {
  it('reads the version behind v and monorepo prefixes', () => {
    expect(release('1.2.3')).toEqual({ prefix: '', version: '1.2.3' });
    expect(release('v1.2.3')).toEqual({ prefix: '', version: '1.2.3' });
    expect(release('V1.2.3-rc.1')).toEqual({ prefix: '', version: '1.2.3-rc.1' });
    expect(release('app@1.2.3')).toEqual({ prefix: 'app', version: '1.2.3' });
    expect(release('@scope/app@1.2.3')).toEqual({ prefix: '@scope/app', version: '1.2.3' });
    expect(release('app-v1.2.3')).toEqual({ prefix: 'app', version: '1.2.3' });
    expect(release('my-app-1.2.3-beta.2')).toEqual({ prefix: 'my-app', version: '1.2.3-beta.2' });
    expect(release('component/v1.2.3')).toEqual({ prefix: 'component', version: '1.2.3' });
    expect(release('v1.2.3+build.7')).toEqual({ prefix: '', version: '1.2.3' });
  });

  it('refuses what is not semver', () => {
    for (const tag of ['latest', '1.2', 'v1', 'nightly-2024-01-01', '', '1.2.3.4', 'x'.repeat(300)]) {
      expect(parseReleaseTag(tag), tag).toBeUndefined();
    }
    expect(parseSemver('app@1.2.3')).toBeUndefined();
    expect(parseSemver('v2.0.0')).toMatchObject({ major: 2, minor: 0, patch: 0 });
  });
});

describe('image tags', () => {
  it('drops a variant, keeps a prerelease, pads missing parts', () => {
    const image = (tag: string) => {
      const version = parseImageTag(tag);
      return version && formatVersion(version);
    };
    expect(image('1.2.3-alpine')).toBe('1.2.3');
    expect(image('v1.2.3-alpine3.20')).toBe('1.2.3');
    expect(image('1.2.3-ls45')).toBe('1.2.3');
    expect(image('1.2.3-rc.1')).toBe('1.2.3-rc.1');
    expect(image('1.2.3-beta2')).toBe('1.2.3-beta2');
    expect(image('1.2')).toBe('1.2.0');
    expect(image('latest')).toBeUndefined();
  });
});

describe('precedence', () => {
  it('orders as semver does', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.10.0',
      '2.0.0',
    ];
    const parsed = ordered.map((tag) => parseReleaseTag(tag) as NonNullable<ReturnType<typeof parseReleaseTag>>);
    const shuffled = [...parsed].reverse().sort(compareReleaseVersions);
    expect(shuffled.map(formatVersion)).toEqual(ordered);
  });
});
