import { describe, expect, it } from 'vitest';
import {
  applyTransform,
  MAX_USER_REGEX_LENGTH,
  NO_TAG_POLICY,
  passesFilters,
  policyParts,
  TagPolicyError,
} from './policy';
import { compileTagPolicy } from './policy-compile';

function errorOf(run: () => unknown): TagPolicyError {
  try {
    run();
  } catch (error) {
    if (error instanceof TagPolicyError) return error;
    throw error;
  }
  throw new Error('expected a TagPolicyError');
}

const transformOf = (transformTags: string) => {
  const transform = policyParts(compileTagPolicy({ transformTags }))?.transform;
  if (transform === undefined) throw new Error('test setup: no transform');
  return (tag: string) => applyTransform(transform, tag);
};

describe('compileTagPolicy', () => {
  it('treats missing, empty and blank fields as unset', () => {
    const parts = policyParts(compileTagPolicy({ includeTags: '', excludeTags: '  ', transformTags: undefined }));
    expect(parts).toEqual({ include: undefined, exclude: undefined, transform: undefined });
  });

  it('rejects a non-string field from an untyped caller with a TagPolicyError', () => {
    expect(errorOf(() => compileTagPolicy({ includeTags: 42 as unknown as string })).message).toMatch(
      /includeTags must be a string/,
    );
  });

  it('names the field of an invalid regex and keeps the cause', () => {
    const error = errorOf(() => compileTagPolicy({ excludeTags: '^(1\\.' }));
    expect(error.field).toBe('excludeTags');
    expect(error.message).toMatch(/^tags\.policy: excludeTags is not a valid regular expression/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('rejects backtracking-only syntax, which RE2 does not have', () => {
    expect(errorOf(() => compileTagPolicy({ includeTags: '^(?!.*beta)' })).field).toBe('includeTags');
    expect(errorOf(() => compileTagPolicy({ includeTags: '(a)\\1' })).field).toBe('includeTags');
  });

  it(`caps every field at ${MAX_USER_REGEX_LENGTH} characters`, () => {
    const long = `^${'a'.repeat(MAX_USER_REGEX_LENGTH)}$`;
    expect(errorOf(() => compileTagPolicy({ includeTags: long })).message).toMatch(/limit is 256/);
    expect(errorOf(() => compileTagPolicy({ transformTags: `${long} => $0` })).field).toBe('transformTags');
    expect(() => compileTagPolicy({ includeTags: 'a'.repeat(MAX_USER_REGEX_LENGTH) })).not.toThrow();
  });

  it.each(['^(\\d+)$', '=> $1', '^(\\d+)$ =>', '^(\\d+)$ -> $1', '^(\\d+)$ => $2', '^(\\d+$ => $1'])(
    'rejects the malformed transform %j',
    (transformTags) => {
      expect(errorOf(() => compileTagPolicy({ transformTags })).field).toBe('transformTags');
    },
  );
});

describe('transform', () => {
  it('builds the template from the groups of the first match', () => {
    const transform = transformOf('^(\\d+)\\.(\\d+)\\.(\\d+)-(\\d+)$ => $1.$2.$3');
    expect(transform('1.2.3-45')).toBe('1.2.3');
    expect(transform('latest')).toBe('latest');
  });

  it('reads $12 as group 12 only when it exists, and an unmatched group as empty', () => {
    expect(transformOf('^(\\d+)-(x)?(\\d+)$ => $12')('7-8')).toBe('72');
    const twelve = `^${'(\\d)'.repeat(12)}$ => $12`;
    expect(transformOf(twelve)('123456789012')).toBe('2');
    expect(transformOf('^(\\d+)(-rc)?$ => $1$2')('5')).toBe('5');
  });

  it('reorders parts (minio-style dates)', () => {
    const transform = transformOf('^RELEASE\\.(\\d+)-(\\d+)-(\\d+)T(\\d+)-(\\d+)-(\\d+)Z$ => $1.$2.$3.$4$5$6');
    expect(transform('RELEASE.2024-08-03T04-33-23Z')).toBe('2024.08.03.043323');
  });
});

describe('filters', () => {
  const parts = (includeTags?: string, excludeTags?: string) =>
    policyParts(compileTagPolicy({ includeTags, excludeTags }))!;

  it('matches anywhere in the tag (find, not full match)', () => {
    expect(passesFilters(parts('alpine'), '1.2.3-alpine3.20')).toBe(true);
    expect(passesFilters(parts('^\\d+\\.\\d+\\.\\d+$'), '1.2.3-alpine')).toBe(false);
    expect(passesFilters(parts(undefined, 'beta|rc'), '1.3.0-rc1')).toBe(false);
    expect(passesFilters(parts('^1\\.', '^1\\.2\\.'), '1.2.4')).toBe(false);
  });

  it('runs a catastrophic-backtracking pattern in linear time', () => {
    const evil = parts('^(a+)+$');
    const started = performance.now();
    expect(passesFilters(evil, `${'a'.repeat(120)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('NO_TAG_POLICY is what compiling an empty policy gives (it is written out so that it needs no regex engine)', () => {
    expect(policyParts(NO_TAG_POLICY)).toEqual(policyParts(compileTagPolicy({})));
  });
});
