import { describe, expect, it } from 'vitest';
import { findTagCandidate, isVersionTag, semverDiff } from './candidate';
import { type CompiledTagPolicy, NO_TAG_POLICY } from './policy';
import { compileTagPolicy } from './policy-compile';

const find = (current: string, tags: readonly string[], skip?: readonly string[]) =>
  findTagCandidate(current, tags, NO_TAG_POLICY, skip);

describe('isVersionTag', () => {
  it('separates versions from rolling tags', () => {
    for (const tag of ['1', '16-alpine', 'v3.1.2', '2024.10.1', '1.2.3-ls123'])
      expect(isVersionTag(tag), tag).toBe(true);
    for (const tag of ['latest', 'stable', 'edge', 'alpine', 'sha-1a2b3c4']) expect(isVersionTag(tag), tag).toBe(false);
  });

  it('judges the transformed tag, and ignores include/exclude', () => {
    const policy = compileTagPolicy({ transformTags: '^build-(\\d+)$ => $1', includeTags: '^nothing$' });
    expect(isVersionTag('build-42', policy)).toBe(true);
    expect(isVersionTag('build-42')).toBe(true);
    expect(isVersionTag('RELEASE.2024-08-03T04-33-23Z')).toBe(false);
  });

  it('rejects tags longer than the OCI limit of 128 characters', () => {
    expect(isVersionTag(`1.2.3-${'a'.repeat(122)}`)).toBe(true);
    expect(isVersionTag(`1.2.3-${'a'.repeat(123)}`)).toBe(false);
  });
});

describe('findTagCandidate', () => {
  it('returns the highest newer tag of the family with its diff', () => {
    expect(find('1.2.3', ['1.2.3', '1.2.4', '1.3.0', '2.0.0-alpine', 'latest'])).toEqual({
      tag: '1.3.0',
      semverDiff: 'minor',
    });
  });

  it('returns undefined when nothing newer exists or the current tag is not a version', () => {
    expect(find('1.3.0', ['1.2.0', '1.3.0'])).toBeUndefined();
    expect(find('latest', ['1.3.0', 'latest'])).toBeUndefined();
  });

  it('skips skipped tags and falls back to the next best', () => {
    expect(find('1.2.3', ['1.2.4', '1.3.0'], ['1.3.0'])).toEqual({ tag: '1.2.4', semverDiff: 'patch' });
  });

  it('returns the original tag when a transform rewrote it', () => {
    const policy = compileTagPolicy({ transformTags: '^(\\d+)\\.(\\d+)\\.(\\d+)-(\\d+)$ => $1.$2.$3' });
    expect(findTagCandidate('1.2.3-4', ['1.2.3-9', '1.2.4-1', '1.2.5-2'], policy)).toEqual({
      tag: '1.2.5-2',
      semverDiff: 'patch',
    });
  });

  it('applies include to candidates only, then exclude', () => {
    const policy = compileTagPolicy({ includeTags: '^1\\.', excludeTags: '^1\\.9\\.' });
    expect(findTagCandidate('1.2.3', ['1.4.0', '1.9.0', '2.0.0'], policy)).toEqual({
      tag: '1.4.0',
      semverDiff: 'minor',
    });
  });

  it('breaks ties deterministically, whatever the order of the list', () => {
    const tags = ['1.40.2.8395-c67dce28e', '1.40.2.8395-0a1b2c3d4', '1.40.1.8227-c0dd5a73e'];
    const forward = find('1.40.1.8227-c0dd5a73e', tags);
    expect(find('1.40.1.8227-c0dd5a73e', [...tags].reverse())).toEqual(forward);
    expect(forward).toEqual({ tag: '1.40.2.8395-c67dce28e', semverDiff: 'patch' });
  });

  it('never throws on garbage input', () => {
    const garbage = [
      null,
      42,
      {},
      '',
      ' ',
      '-',
      '.',
      '+',
      'x'.repeat(10_000),
      '1'.repeat(200),
      '..1..',
      '1.2.3',
    ] as unknown as string[];
    expect(find('1.2.2', garbage)).toEqual({ tag: '1.2.3', semverDiff: 'patch' });
    expect(findTagCandidate(null as unknown as string, garbage, NO_TAG_POLICY)).toBeUndefined();
    expect(findTagCandidate('1.2.2', null as unknown as string[], NO_TAG_POLICY)).toBeUndefined();
    expect(findTagCandidate('1.2.2', ['1.2.3'], undefined as unknown as CompiledTagPolicy)).toEqual({
      tag: '1.2.3',
      semverDiff: 'patch',
    });
    expect(findTagCandidate('1.2.2', ['1.2.3'], NO_TAG_POLICY, null as unknown as string[])).toEqual({
      tag: '1.2.3',
      semverDiff: 'patch',
    });
  });
});

describe('semverDiff', () => {
  it('compares after the transform and is undefined for non-versions', () => {
    expect(semverDiff('1.2.3', '2.0.0')).toBe('major');
    expect(semverDiff('latest', '2.0.0')).toBeUndefined();
    const policy = compileTagPolicy({ transformTags: '^build-(\\d+)$ => 1.$1' });
    expect(semverDiff('build-1', 'build-2', policy)).toBe('minor');
  });
});

describe('scale', () => {
  // 100,000 tags of one repository: the target is < 200 ms; the bound is loose for slow CI.
  const tags = Array.from({ length: 100_000 }, (_, i) => {
    const version = `${i % 50}.${(i >> 3) % 40}.${i % 97}`;
    return (
      [version, `${version}-alpine`, `v${version}`, `${version}-ls${i}`, `garbage-${i}-${'z'.repeat(i % 100)}`][
        i % 5
      ] ?? version
    );
  });

  // Best of a few runs after a warm-up: the machine is shared, the minimum is what the code costs.
  const timed = (run: () => unknown, rounds = 5): number => {
    run();
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      run();
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };

  it('scans 100,000 tags quickly without a policy', () => {
    let result: unknown;
    const elapsed = timed(() => {
      result = find('1.2.3', tags);
    });
    expect(result).toEqual({ tag: '45.39.91', semverDiff: 'major' });
    console.info(`tags: 100k tags, no policy: ${elapsed.toFixed(1)} ms`);
    expect(elapsed).toBeLessThan(2000);
  });

  it('scans 100,000 tags quickly with include, exclude and transform', () => {
    const policy = compileTagPolicy({
      includeTags: '^\\d',
      excludeTags: '^4[5-9]\\.',
      transformTags: '^(\\d+\\.\\d+\\.\\d+)-ls\\d+$ => $1',
    });
    let result: unknown;
    const elapsed = timed(() => {
      result = findTagCandidate('1.2.3', tags, policy);
    });
    // 45+ is excluded; the transform folds `-lsN` tags into the plain family, so 43.x-lsN beats plain 40.x.
    expect(result).toEqual({ tag: '43.39.89-ls3193', semverDiff: 'major' });
    console.info(`tags: 100k tags, include+exclude+transform: ${elapsed.toFixed(1)} ms`);
    expect(elapsed).toBeLessThan(5000);
  });

  it('stays linear on 100,000 tags of the maximum length, all in the family', () => {
    const longTags = Array.from({ length: 100_000 }, (_, i) => {
      let tag = `${i % 100}.${i % 37}.${i % 11}`;
      while (tag.length < 120) tag += `-alpine${(i + tag.length) % 10}.${(i + tag.length) % 7}`;
      return tag.slice(0, 128);
    });
    let result: { tag: string } | undefined;
    const elapsed = timed(() => {
      result = find(longTags[5] ?? '', longTags);
    }, 2);
    expect(result?.tag).toMatch(/^99\.36\.10-alpine/);
    console.info(`tags: 100k tags of 128 characters, one family: ${elapsed.toFixed(1)} ms`);
    expect(elapsed).toBeLessThan(10_000);
  });
});
