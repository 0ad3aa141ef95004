/**
 * The CVSS v4.0 parser and score (hub/src/security/cvss4.ts) on seeded random input: every well-formed
 * vector (any metric values, X included, any order) scores a one-decimal number in [0, 10]; every
 * mutation that breaks the grammar scores nothing, and no input throws. An advisory whose only
 * vector is broken gets no severity from it.
 */
import { describe, expect, it } from 'vitest';
import { cvss4Score } from '../../hub/src/security/cvss4';
import { severityOf } from '../../hub/src/security/osv/advisory';
import type { OsvAffected, OsvRecord } from '../../hub/src/security/osv/osv-record';
import { HOSTILE_STRINGS, type Rng, rngFor, seedFromEnv, seedHex } from './generators';

const seed = seedFromEnv(process.env.FUZZ_SEED);

const BASE: [string, string[]][] = [
  ['AV', ['N', 'A', 'L', 'P']],
  ['AC', ['L', 'H']],
  ['AT', ['N', 'P']],
  ['PR', ['N', 'L', 'H']],
  ['UI', ['N', 'P', 'A']],
  ['VC', ['H', 'L', 'N']],
  ['VI', ['H', 'L', 'N']],
  ['VA', ['H', 'L', 'N']],
  ['SC', ['H', 'L', 'N']],
  ['SI', ['H', 'L', 'N']],
  ['SA', ['H', 'L', 'N']],
];
const OPTIONAL: [string, string[]][] = [
  ['E', ['X', 'A', 'P', 'U']],
  ['CR', ['X', 'H', 'M', 'L']],
  ['IR', ['X', 'H', 'M', 'L']],
  ['AR', ['X', 'H', 'M', 'L']],
  ['MAV', ['X', 'N', 'A', 'L', 'P']],
  ['MAC', ['X', 'L', 'H']],
  ['MAT', ['X', 'N', 'P']],
  ['MPR', ['X', 'N', 'L', 'H']],
  ['MUI', ['X', 'N', 'P', 'A']],
  ['MVC', ['X', 'H', 'L', 'N']],
  ['MVI', ['X', 'H', 'L', 'N']],
  ['MVA', ['X', 'H', 'L', 'N']],
  ['MSC', ['X', 'H', 'L', 'N']],
  ['MSI', ['X', 'S', 'H', 'L', 'N']],
  ['MSA', ['X', 'S', 'H', 'L', 'N']],
  ['S', ['X', 'N', 'P']],
  ['AU', ['X', 'N', 'Y']],
  ['R', ['X', 'A', 'U', 'I']],
  ['V', ['X', 'D', 'C']],
  ['RE', ['X', 'L', 'M', 'H']],
  ['U', ['X', 'Clear', 'Green', 'Amber', 'Red']],
];

function validParts(rng: Rng): string[] {
  const parts = BASE.map(([name, values]) => `${name}:${rng.pick(values)}`);
  for (const [name, values] of OPTIONAL) if (rng.bool(0.3)) parts.push(`${name}:${rng.pick(values)}`);
  return rng.bool(0.2) ? rng.shuffle(parts) : parts;
}

const vectorOf = (parts: string[]) => ['CVSS:4.0', ...parts].join('/');
const isScore = (value: number | undefined) =>
  typeof value === 'number' && value >= 0 && value <= 10 && Math.round(value * 10) / 10 === value;

/** One change that breaks the grammar: a base metric gone, repeated, a value or name out of range, bad separators. */
function breakVector(rng: Rng, parts: string[]): string {
  const broken = [...parts];
  const at = rng.int(0, broken.length - 1);
  const base = broken.findIndex((part) => BASE.some(([name]) => part.startsWith(`${name}:`)));
  switch (rng.int(0, 8)) {
    case 0:
      broken.splice(base, 1);
      return vectorOf(broken);
    case 1:
      broken.push(broken[at] ?? '');
      return vectorOf(broken);
    case 2:
      broken[at] =
        `${(broken[at] ?? '').split(':')[0]}:${rng.pick(['', 'Z', 'h', 'XX', ...HOSTILE_STRINGS.filter((s) => s !== '' && !s.includes('/'))])}`;
      return vectorOf(broken);
    case 3:
      broken[at] =
        `${rng.pick(['', 'ZZ', 'av', 'M', 'MX', ...HOSTILE_STRINGS.filter((s) => !s.includes('/') && !s.includes(':'))])}:N`;
      return vectorOf(broken);
    case 4:
      broken[at] = `${broken[at]}:${rng.pick(['N', ''])}`;
      return vectorOf(broken);
    case 5:
      return `${vectorOf(broken)}/`;
    case 6:
      return vectorOf(broken).replace(/\//g, rng.pick(['|', '//', ',', ' / ']));
    case 7:
      return rng.pick(['CVSS:4', 'CVSS:4.1', 'CVSS:3.1', 'cvss:4.0', '']) + vectorOf(broken).slice('CVSS:4.0'.length);
    default:
      broken[at] = (broken[at] ?? '').replace(':', '');
      return vectorOf(broken);
  }
}

describe(`CVSS v4.0 vectors, fuzzed (seed ${seedHex(seed)})`, () => {
  it('every well-formed vector scores a one-decimal number in [0, 10]', () => {
    const rng = rngFor(seed, 'cvss4-valid');
    for (let i = 0; i < 5000; i++) {
      const vector = vectorOf(validParts(rng));
      expect(isScore(cvss4Score(vector)), vector).toBe(true);
    }
  });

  it('a vector broken anywhere scores nothing, and nothing throws', () => {
    const rng = rngFor(seed, 'cvss4-broken');
    for (let i = 0; i < 5000; i++) {
      const vector = breakVector(rng, validParts(rng));
      // A value replaced by one its metric also allows, or a broken optional metric that kept its
      // grammar, may still be a vector; anything else must be refused.
      const score = cvss4Score(vector);
      if (score !== undefined) expect(isScore(score), vector).toBe(true);
      if (!vector.startsWith('CVSS:4.0/') || vector.endsWith('/') || vector.includes('//')) {
        expect(score, vector).toBeUndefined();
      }
    }
  });

  it('random bytes and hostile strings never throw, never score', () => {
    const rng = rngFor(seed, 'cvss4-noise');
    const inputs = [...HOSTILE_STRINGS, ...HOSTILE_STRINGS.map((s) => `CVSS:4.0/${s}`)];
    for (let i = 0; i < 2000; i++) {
      const length = rng.int(0, 120);
      inputs.push(
        `CVSS:4.0/${Array.from({ length }, () => String.fromCharCode(rng.pick([rng.int(0, 0x7f), 47, 58, rng.int(0, 0xffff)]))).join('')}`,
      );
    }
    for (const input of inputs) expect(() => cvss4Score(input)).not.toThrow();
    expect(inputs.filter((input) => cvss4Score(input) !== undefined)).toEqual([]);
  });

  it('an advisory whose v4.0 vector is broken gets no severity from it', () => {
    const rng = rngFor(seed, 'cvss4-advisory');
    for (let i = 0; i < 500; i++) {
      const vector = breakVector(rng, validParts(rng));
      const record = { id: 'FUZZ-1', severity: [{ type: 'CVSS_V4', score: vector }] } as OsvRecord;
      const result = severityOf(record, {} as OsvAffected);
      const score = cvss4Score(vector);
      if (score === undefined) expect(result, vector).toEqual({ severity: 'unknown' });
      else expect(result.score, vector).toBe(score);
    }
  });
});
