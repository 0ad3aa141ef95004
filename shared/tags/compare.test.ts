import { describe, expect, it } from 'vitest';
import { compareVersions, diffVersions, isPrereleaseAllowed, naturalCompare } from './compare';
import { type ParsedVersion, parseVersionTag } from './parse';

const v = (tag: string): ParsedVersion => {
  const version = parseVersionTag(tag);
  if (version === undefined) throw new Error(`test setup: ${tag} is not a version`);
  return version;
};

describe('compareVersions', () => {
  it.each([
    ['1.9.0', '1.10.0'],
    ['1.2.3-alpha.1', '1.2.3-beta.1'],
    ['1.2.3-beta2', '1.2.3-rc1'],
    ['1.2.3-rc', '1.2.3-rc1'],
    ['1.2.3-rc.9', '1.2.3-rc.10'],
    ['1.2.3-rc.9', '1.2.3'],
    ['1.2.3-ls99', '1.2.3-ls100'],
    ['2.3.0', '2.3.0p1'],
    ['2.3.0p9', '2.3.0p13'],
    ['2.3.0p13', '2.4.0'],
    ['4.6.5-r0-ls340', '4.6.5-r1-ls300'],
    ['2024.9.3', '2024.10.0'],
    ['1.40.1.8227', '1.40.2.8395'],
  ])('orders %s below %s', (lower, higher) => {
    expect(compareVersions(v(lower), v(higher))).toBe(-1);
    expect(compareVersions(v(higher), v(lower))).toBe(1);
  });

  it('sees no order in a hash, a suffix or metadata', () => {
    expect(compareVersions(v('1.40.1.8227-c0dd5a73e'), v('1.40.1.8227-0123abcd'))).toBe(0);
    expect(compareVersions(v('7.2.5-alpine3.19'), v('7.2.5-alpine3.20'))).toBe(0);
    expect(compareVersions(v('1.2.3+a'), v('1.2.3+b'))).toBe(0);
    expect(compareVersions(v('2024.07.0'), v('2024.7.0'))).toBe(0);
  });
});

describe('diffVersions', () => {
  it.each([
    ['1.2.3', '2.0.0', 'major'],
    ['1.2.3', '1.3.0', 'minor'],
    ['1.2.3', '1.2.4', 'patch'],
    ['16', '17', 'major'],
    ['16.3', '16.4', 'minor'],
    ['1.40.1.8227', '1.40.1.8300', 'patch'],
    ['1.2.3-rc1', '1.2.3-rc2', 'prerelease'],
    ['1.2.3-rc1', '1.2.3', 'prerelease'],
    ['1.2.3-rc1', '1.2.4', 'patch'],
    ['1.2.3-ls123', '1.2.3-ls124', 'patch'],
    ['2.3.0p13', '2.3.0p14', 'patch'],
    ['2024.12.4', '2025.1.0', 'major'],
    ['1.2', '1.2.1', 'patch'],
  ] as const)('%s → %s is %s', (from, to, level) => {
    expect(diffVersions(v(from), v(to))).toBe(level);
  });

  it('is undefined for equal versions', () => {
    expect(diffVersions(v('1.2.3'), v('v1.2.3'))).toBeUndefined();
    expect(diffVersions(v('7.2.5-alpine3.19'), v('7.2.5-alpine3.20'))).toBeUndefined();
  });
});

describe('isPrereleaseAllowed', () => {
  it('keeps a stable tag stable', () => {
    expect(isPrereleaseAllowed(v('1.2.3'), v('1.3.0-rc1'))).toBe(false);
    expect(isPrereleaseAllowed(v('1.2.3'), v('1.3.0'))).toBe(true);
  });

  it('lets a prerelease climb its ladder or go stable', () => {
    expect(isPrereleaseAllowed(v('1.3.0-beta1'), v('1.3.0-rc1'))).toBe(true);
    expect(isPrereleaseAllowed(v('1.3.0-beta1'), v('1.3.0'))).toBe(true);
    expect(isPrereleaseAllowed(v('1.3.0-beta1'), v('1.3.0-nightly'))).toBe(false);
    expect(isPrereleaseAllowed(v('2.54.0-rc.0'), v('3.0.0-beta.1'))).toBe(false);
  });

  // Regression (issue 33, item 18): `1.0.0-test1` was never offered `1.0.0-test2`.
  it('lets a prerelease move to any prerelease of its own version that semver and the ladder both call newer', () => {
    expect(isPrereleaseAllowed(v('1.0.0-test1'), v('1.0.0-test2'))).toBe(true);
    expect(isPrereleaseAllowed(v('1.0.0-test.2'), v('1.0.0-test.10'))).toBe(true);
    expect(isPrereleaseAllowed(v('1.0.0-dev'), v('1.0.0-rc.1'))).toBe(true);
    expect(isPrereleaseAllowed(v('1.0.0-rc.2'), v('1.0.0-rc.1'))).toBe(false);
    // Semver's ASCII order puts these above the current one; the ladder does not.
    expect(isPrereleaseAllowed(v('1.0.0-rc.1'), v('1.0.0-snapshot'))).toBe(false);
    expect(isPrereleaseAllowed(v('1.0.0-dev'), v('1.0.0-alpha.1'))).toBe(false);
  });

  it('keeps a channel on its channel', () => {
    expect(isPrereleaseAllowed(v('1.23-nightly'), v('1.24-nightly'))).toBe(true);
    expect(isPrereleaseAllowed(v('1.23-nightly'), v('1.24-dev'))).toBe(false);
    expect(isPrereleaseAllowed(v('1.23-nightly'), v('1.24-rc1'))).toBe(false);
  });
});

describe('naturalCompare', () => {
  it('orders numbers inside strings by value and is total', () => {
    const sorted = ['1.2.3-ls10', '1.2.3-ls9', 'b', 'a', '1.2.3-ls09'].sort(naturalCompare);
    expect(sorted).toEqual(['1.2.3-ls09', '1.2.3-ls9', '1.2.3-ls10', 'a', 'b']);
  });
});
