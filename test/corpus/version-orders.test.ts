/**
 * The PyPI and Alpine version orders of the vulnerability matcher against the reference
 * implementations' own answers (version-orders/README.md): every pair of pep440.tsv (python's
 * `packaging`) and of apk.tsv (apk-tools 3.0; where apk-tools 2.14 answers otherwise, the row is one
 * of the differences docs/security-scanning.md names). Issue 33, items 11 and 12: local versions
 * compared as text, leading zeros and `~hash` read as apk 2 reads them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareAlpine, isAlpineVersion } from '../../hub/src/security/osv/versions/alpine-order';
import { comparePypi } from '../../hub/src/security/osv/versions/pypi-order';

type Compare = (a: string, b: string) => number;

const DOCS = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'security-scanning.md'), 'utf8');

/** The rows of a reference file, comments left out: each a list of its tab-separated fields. */
function readRows(file: string): string[][] {
  return readFileSync(join(import.meta.dirname, 'version-orders', file), 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split('\t'));
}

/**
 * Rows a comparator is allowed to answer otherwise, as `a<TAB>b`: each must be named in
 * docs/security-scanning.md. None today; a row goes here only with its entry in the docs.
 */
const DEVIATIONS: Record<string, ReadonlySet<string>> = { pep440: new Set(), apk: new Set() };

/** The rows where compare(a, b) or compare(b, a) is not the reference's answer, as readable lines. */
function disagreements(
  compare: Compare,
  rows: readonly (readonly [string, string, number])[],
  deviations: ReadonlySet<string>,
) {
  const wrong: string[] = [];
  for (const [a, b, expected] of rows) {
    if (deviations.has(`${a}\t${b}`)) continue;
    const forward = Math.sign(compare(a, b));
    const backward = Math.sign(compare(b, a));
    if (forward !== expected || backward !== (-expected || 0)) {
      wrong.push(`${a} vs ${b}: expected ${expected}, got ${forward} (reversed ${backward})`);
    }
  }
  return wrong;
}

describe('PEP 440 against python packaging 26.2 (pep440.tsv)', () => {
  const rows = readRows('pep440.tsv').map(([a = '', b = '', answer = '']) => [a, b, Number(answer)] as const);

  it('holds every row of the reference', () => {
    expect(rows).toHaveLength(3196);
    expect(disagreements(comparePypi, rows, DEVIATIONS.pep440 ?? new Set())).toEqual([]);
  });

  it('compares local segments as PEP 440 does: numbers as numbers, above text (issue 33, item 11)', () => {
    expect(comparePypi('1.0+10', '1.0+9')).toBe(1);
    expect(comparePypi('1.0+1', '1.0+abc')).toBe(1);
    expect(comparePypi('1.0+abc.1', '1.0+abc')).toBe(1);
    expect(comparePypi('1.0+01', '1.0+1')).toBe(0);
    expect(comparePypi('1.0+ABC-1', '1.0+abc.1')).toBe(0);
  });

  it('compares numbers past 2^53 by value, as Python integers', () => {
    expect(comparePypi('1.9007199254740993', '1.9007199254740992')).toBe(1);
    expect(comparePypi('1.0+9007199254740993', '1.0+9007199254740992')).toBe(1);
    expect(comparePypi('1.0.post18446744073709551617', '1.0.post18446744073709551616')).toBe(1);
    expect(comparePypi('18446744073709551616!1.0', '18446744073709551615!2.0')).toBe(1);
    expect(comparePypi('1.00000000000000000000000000001', '1.1')).toBe(0);
  });
});

/**
 * Where apk-tools 2.14 and 3 answer differently, and why; each named in docs/security-scanning.md.
 * `~hash`: apk 3's commit hash suffix, which 2.14 refuses. Leading zeros: 2.14 reads a dotted
 * component with leading zeros as a fraction, 3 compares it as text.
 */
const APK_DIFFERENCES: Record<string, (a: string, b: string) => boolean> = {
  '`~<hash>`': (a, b) => a.includes('~') || b.includes('~'),
  'leading zeros': (a, b) => /\.0\d/.test(a) || /\.0\d/.test(b),
};

describe('apk against apk-tools 3.0 and 2.14 (apk.tsv)', () => {
  const rows = readRows('apk.tsv').map(([a = '', b = '', v2 = '', v3 = '']) => ({ a, b, v2, v3 }));

  it('holds every answer of apk-tools 3', () => {
    expect(rows).toHaveLength(3732);
    const answered = rows.filter((row) => row.v3 !== 'invalid').map(({ a, b, v3 }) => [a, b, Number(v3)] as const);
    expect(disagreements(compareAlpine, answered, DEVIATIONS.apk ?? new Set())).toEqual([]);
  });

  it('refuses what apk-tools 3 refuses, and only that', () => {
    const wrong = rows.filter(({ a, b, v3 }) => (v3 === 'invalid') !== (!isAlpineVersion(a) || !isAlpineVersion(b)));
    expect(wrong.map(({ a, b, v3 }) => `${a} vs ${b}: apk 3 ${v3}`)).toEqual([]);
  });

  it('differs from apk-tools 2.14 only where the docs say it does', () => {
    const unexplained = rows.filter(
      ({ a, b, v2, v3 }) => v2 !== v3 && !Object.values(APK_DIFFERENCES).some((explains) => explains(a, b)),
    );
    expect(unexplained.map(({ a, b, v2, v3 }) => `${a} vs ${b}: 2.14 ${v2}, 3 ${v3}`)).toEqual([]);
    for (const name of Object.keys(APK_DIFFERENCES)) expect(DOCS, name).toContain(name);
  });

  it('reads apk 3 versions 2.14 could not (issue 33, item 12)', () => {
    expect(compareAlpine('1.2.3~abc123-r0', '1.2.3-r0')).toBe(1);
    expect(compareAlpine('1.2.3~abc123-r1', '1.2.3~abd-r0')).toBe(-1);
    expect(compareAlpine('1.0_rc1', '1.0')).toBe(-1);
    expect(compareAlpine('1.010', '1.09')).toBe(-1);
    expect(compareAlpine('1.01', '1.001')).toBe(1);
    expect(isAlpineVersion('1.0a1')).toBe(false);
    expect(isAlpineVersion('1.0-r')).toBe(false);
    expect(isAlpineVersion('1.123456789012345678901')).toBe(true);
  });

  it('compares numbers past 2^53 by value; past 2^64 too, where apk-tools wraps (a named deviation)', () => {
    expect(compareAlpine('1.9007199254740993', '1.9007199254740992')).toBe(1);
    expect(compareAlpine('1.0-r9007199254740993', '1.0-r9007199254740992')).toBe(1);
    expect(compareAlpine('18446744073709551616', '1')).toBe(1);
    expect(DOCS).toContain('2^64');
  });
});

describe('the named deviations', () => {
  it('are each in docs/security-scanning.md', () => {
    for (const rows of Object.values(DEVIATIONS))
      for (const row of rows) for (const version of row.split('\t')) expect(DOCS, row).toContain(`\`${version}\``);
  });
});
