import { describe, expect, it } from 'vitest';
import { familyKey } from './compare';
import { MAX_TAG_LENGTH, parseVersionTag } from './parse';

function shape(tag: string) {
  const version = parseVersionTag(tag);
  if (version === undefined) return undefined;
  const { prefix, parts, magnitude, pre, builds, suffix, hasHash } = version;
  return {
    prefix,
    parts,
    magnitude,
    pre: pre && `${pre.label}${pre.num ?? ''}`,
    builds: builds.map((b) => `${b.marker}${b.num}`),
    suffix,
    hasHash,
  };
}

describe('parseVersionTag', () => {
  it.each([
    ['1', { parts: [1], prefix: '' }],
    ['1.2', { parts: [1, 2] }],
    ['1.2.3', { parts: [1, 2, 3] }],
    ['1.40.1.8227', { parts: [1, 40, 1, 8227] }],
    ['v1.2.3', { prefix: 'v' }],
    ['V1.2.3', { prefix: 'V' }],
    ['version-1.2.3', { prefix: 'version-' }],
    ['release-v1.2', { prefix: 'release-v', parts: [1, 2] }],
    ['noble-20240801', { prefix: 'noble-', magnitude: 'date8' }],
    ['2024.10.1', { magnitude: 'year' }],
    ['2024.07.0', { parts: [2024, 7, 0] }],
    ['20240807', { magnitude: 'date8' }],
    ['2024091605', { magnitude: 'date10' }],
  ])('reads the prefix and numbers of %s', (tag, expected) => {
    expect(shape(tag)).toMatchObject(expected);
  });

  it.each([
    ['1.2.3-rc.1', 'rc1'],
    ['1.2.3-rc1', 'rc1'],
    ['1.2.3rc1', 'rc1'],
    ['1.2.3-beta2', 'beta2'],
    ['1.2.3-alpha', 'alpha'],
    ['3.14.0a1', 'alpha1'],
    ['2024.10.0b3', 'beta3'],
    ['v0.108.0-b.5', 'beta5'],
    ['8.4.0RC1-fpm-alpine', 'rc1'],
    ['3.13-rc-slim', 'rc'],
    ['1.23-nightly', 'nightly'],
    ['1.0.0-test1', 'test1'],
  ])('reads the prerelease of %s', (tag, pre) => {
    expect(shape(tag)?.pre).toBe(pre);
  });

  it.each([
    ['1.2.3-ls123', ['ls123'], ''],
    ['1.2.3-r1', ['r1'], ''],
    ['2.3.0p13', ['p13'], ''],
    ['1.2.3-4', [], '-4'],
    ['4.0.3-22-minimal', [], '-22-minimal'],
    ['1.2.3-20240812', ['date20240812'], ''],
    ['21.0.4_7-jdk-jammy', ['_7'], '-jdk-jammy'],
    ['16.4.0-debian-12-r2', ['r2'], '-debian-12'],
    ['4.6.5-r0-ls340', ['r0', 'ls340'], ''],
    ['10.9.9ubu2404-ls26', ['ls26'], 'ubu2404'],
  ])('reads the build counters and suffix of %s', (tag, builds, suffix) => {
    expect(shape(tag)).toMatchObject({ builds, suffix });
  });

  it.each([
    ['1.27.3-alpine3.20-slim', '-alpine3.20-slim'],
    ['3.12.4-windowsservercore-ltsc2022', '-windowsservercore-ltsc2022'],
    ['29-fpm-alpine', '-fpm-alpine'],
    ['3.13.7-management-alpine', '-management-alpine'],
    ['2.0.18-openssl', '-openssl'],
    ['11.0.1-security-01', '-security-01'],
  ])('keeps the variant words of %s as the suffix', (tag, suffix) => {
    expect(shape(tag)?.suffix).toBe(suffix);
  });

  it('treats a git hash as present but without order (plex)', () => {
    expect(shape('1.40.1.8227-c0dd5a73e')).toMatchObject({ hasHash: true, suffix: '', builds: [] });
    expect(shape('1.40.1.8227-c0dd5a73e-ls210')).toMatchObject({ hasHash: true, builds: ['ls210'] });
    expect(shape('1.40.4.8679-424562606')).toMatchObject({ hasHash: true, suffix: '', builds: [] });
  });

  it('ignores build metadata after +', () => {
    expect(shape('1.2.3+build.7')).toMatchObject({ parts: [1, 2, 3], suffix: '' });
    expect(parseVersionTag('1.2.3+bad!meta')).toBeUndefined();
  });

  it.each([
    'latest',
    'stable',
    'edge',
    'alpine',
    'mainline-alpine3.20',
    'stable-alpine',
    'lts-alpine',
    'alpine3.19',
    'windowsservercore-ltsc2022',
    'bookworm-slim',
    'sha-1a2b3c4',
    'sha256-0123abcd.sig',
    'commit-5f3e2a1',
    'pr-12345',
    'arm64v8-1.2.3-ls123',
    '1.2.3.4.5',
    '2024.11.0.dev202410080235',
    '2.4.0-2024.09.20',
    'RELEASE.2024-08-03T04-33-23Z',
    '1a2b3c4d',
    '1.2.3-',
    '1.2.3--alpine',
    '1.2.3a',
    '1234567890123456',
    '',
  ])('does not read %j as a version', (tag) => {
    expect(parseVersionTag(tag)).toBeUndefined();
  });

  it('puts variants with masked numbers in one family, other variants in another', () => {
    const key = (tag: string) => familyKey(parseVersionTag(tag)!);
    expect(key('7.2.5-alpine3.19')).toBe(key('7.2.6-alpine3.20'));
    expect(key('7.2.5-alpine')).not.toBe(key('7.2.5-alpine3.20'));
    expect(key('2.3.0')).toBe(key('2.3.0p13'));
    expect(key('1.2.3')).not.toBe(key('1.2.3-ls5'));
    expect(key('3')).not.toBe(key('20240807'));
    expect(key('1.2')).not.toBe(key('v1.2'));
    expect(key('noble-20240801')).toBe(key('noble-20240904.1'));
    expect(key('1.2.3')).not.toBe(key('1.2.3.4'));
  });

  it('survives garbage of every shape without throwing', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = '0123456789.-_+abcdefghlprsv';
    for (let i = 0; i < 5000; i++) {
      const length = Math.floor(random() * (MAX_TAG_LENGTH + 20));
      const tag = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(() => parseVersionTag(tag)).not.toThrow();
    }
  });
});
