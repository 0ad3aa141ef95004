/**
 * The version orders of the vulnerability matcher (hub/src/security/osv/versions/) against tables of
 * known orderings (written here from dpkg's, apk-tools', rpm's, semver.org's and PEP 440's documented
 * cases), then fuzzed: on seeded random versions each order must be a total preorder (antisymmetric,
 * transitive, reflexive), never throw, and agree with the tables' sorted chains.
 */
import { describe, expect, it } from 'vitest';
import { compareAlpine } from '../../hub/src/security/osv/versions/alpine-order';
import { compareDebian } from '../../hub/src/security/osv/versions/debian-order';
import { compareMaven } from '../../hub/src/security/osv/versions/maven-order';
import { comparePypi } from '../../hub/src/security/osv/versions/pypi-order';
import { compareRpm } from '../../hub/src/security/osv/versions/rpm-order';
import { compareGo, compareSemver } from '../../hub/src/security/osv/versions/semver-order';
import { Rng, seedFromEnv, seedHex } from './generators';

type Compare = (a: string, b: string) => number;
const sign = (n: number) => Math.sign(n);

/** [a, b, expected sign of compare(a, b)]. */
const TABLES: Record<string, { compare: Compare; cases: [string, string, number][]; chain: string[] }> = {
  semver: {
    compare: compareSemver,
    cases: [
      ['1.0.0', '1.0.0', 0],
      ['1.0.0-alpha', '1.0.0', -1],
      ['1.0.0-alpha', '1.0.0-alpha.1', -1],
      ['1.0.0-alpha.1', '1.0.0-alpha.beta', -1],
      ['1.0.0-beta.2', '1.0.0-beta.11', -1],
      ['1.0.0-rc.1', '1.0.0', -1],
      ['1.0.0+build.1', '1.0.0', 0],
      ['2.0.0', '10.0.0', -1],
      ['1.2', '1.2.0', 0],
    ],
    // semver.org §11's chain.
    chain: [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ],
  },
  go: {
    compare: compareGo,
    cases: [
      ['v1.2.3', '1.2.3', 0],
      ['v0.0.0-20210101000000-abcdef', 'v0.0.1', -1],
      ['v2.0.0+incompatible', 'v2.0.0', 0],
    ],
    chain: ['v0.0.0-20200101000000-aaaaaaaaaaaa', 'v0.1.0', 'v1.0.0-rc1', 'v1.0.0', 'v1.10.0'],
  },
  debian: {
    compare: compareDebian,
    cases: [
      ['1.0', '1.0', 0],
      ['1.0~rc1', '1.0', -1],
      ['1.0~~', '1.0~', -1],
      ['1.0~', '1.0', -1],
      ['1.0', '1.0+b1', -1],
      ['1.0', '1.0a', -1],
      ['1.0a', '1.0+', -1],
      ['1:0.1', '2.0', 1],
      ['0:1.0', '1.0', 0],
      ['1.0-1', '1.0-1ubuntu1', -1],
      ['2.30-1', '2.30', 1],
      ['1.0-1', '1.0-10', -1],
      ['1.01', '1.1', 0],
      ['3.0.11-1~deb12u2', '3.0.11-1', -1],
      ['3.0.11-1~deb12u2', '3.0.11-1~deb12u1', 1],
      ['7.88.1-10+deb12u5', '7.88.1-10+deb12u12', -1],
    ],
    // dpkg's manual: ~~ < ~~a < ~ < (empty) < a.
    chain: ['1.0~~', '1.0~~a', '1.0~', '1.0', '1.0a', '1.0+dfsg', '1.0.1', '1.1', '2:0.1'],
  },
  alpine: {
    compare: compareAlpine,
    cases: [
      ['1.0', '1.0', 0],
      ['1.0_rc1', '1.0', -1],
      ['1.0_alpha', '1.0_beta', -1],
      ['1.0_beta2', '1.0_pre1', -1],
      ['1.0_pre1', '1.0_rc1', -1],
      ['1.0', '1.0_p1', -1],
      ['1.0_p1', '1.0.1', -1],
      ['1.0-r0', '1.0-r1', -1],
      ['1.0-r9', '1.0-r10', -1],
      ['1.0', '1.0-r1', -1],
      ['1.0a', '1.0b', -1],
      ['1.0', '1.0a', -1],
      ['1.0', '1.0.0', -1],
      ['1.01', '1.1', -1],
      ['3.1.4-r5', '3.1.4-r6', -1],
      ['1.2.3_rc1-r0', '1.2.3-r0', -1],
      ['1.2.3_git20230101', '1.2.3', 1],
    ],
    chain: [
      '1.0_alpha',
      '1.0_alpha2',
      '1.0_beta',
      '1.0_pre',
      '1.0_rc1',
      '1.0_rc2',
      '1.0',
      '1.0-r1',
      '1.0_p1',
      '1.0a',
      '1.0.1',
      '1.1',
      '2.0',
    ],
  },
  rpm: {
    compare: compareRpm,
    cases: [
      ['1.0', '1.0', 0],
      ['1.0', '2.0', -1],
      ['2.0.1', '2.0', 1],
      ['2.0.1a', '2.0.1', 1],
      ['5.5p1', '5.5p2', -1],
      ['5.5p10', '5.5p2', 1],
      ['10xyz', '10.1xyz', -1],
      ['xyz10', 'xyz10.1', -1],
      ['1.0~rc1', '1.0', -1],
      ['1.0~rc1', '1.0~rc2', -1],
      ['1.0^', '1.0', 1],
      ['1.0^git1', '1.0.1', -1],
      ['1.0^git1', '1.0^git2', -1],
      ['1.0~rc1^git1', '1.0~rc1', 1],
      ['1:1.0-1', '2.0-1', 1],
      ['1.0-1.el9', '1.0-2.el9', -1],
      ['1.0a', '1.0.a', 0],
      ['001', '1', 0],
    ],
    chain: ['1.0~rc1', '1.0~rc1^git1', '1.0', '1.0^git1', '1.0.1', '1.1', '1:0.1'],
  },
  pypi: {
    compare: comparePypi,
    cases: [
      ['1.0', '1.0.0', 0],
      ['1.0.dev1', '1.0a1', -1],
      ['1.0a1', '1.0b1', -1],
      ['1.0rc1', '1.0', -1],
      ['1.0c1', '1.0rc1', 0],
      ['1.0', '1.0.post1', -1],
      ['1.0.post1.dev1', '1.0.post1', -1],
      ['1.0a1.dev1', '1.0a1', -1],
      ['1!0.1', '2.0', 1],
      ['1.0-1', '1.0.post1', 0],
      ['1.0', '1.0+local', -1],
    ],
    // PEP 440's example ordering.
    chain: [
      '1.0.dev456',
      '1.0a1',
      '1.0a2.dev456',
      '1.0a12.dev456',
      '1.0a12',
      '1.0b1.dev456',
      '1.0b2',
      '1.0b2.post345.dev456',
      '1.0b2.post345',
      '1.0rc1.dev456',
      '1.0rc1',
      '1.0',
      '1.0+abc.5',
      '1.0.post456.dev34',
      '1.0.post456',
      '1.1.dev1',
    ],
  },
  maven: {
    compare: compareMaven,
    cases: [
      ['1', '1.0', 0],
      ['1.0.0', '1-ga', 0],
      ['1.0-alpha1', '1.0-beta1', -1],
      ['1.0-rc1', '1.0-cr1', 0],
      ['1.0-SNAPSHOT', '1.0', -1],
      ['1.0', '1.0-sp1', -1],
      ['1.0', '1.0.1', -1],
      ['2.12.7.1', '2.13.0', -1],
    ],
    chain: ['1.0-alpha1', '1.0-beta2', '1.0-milestone1', '1.0-rc1', '1.0-SNAPSHOT', '1.0', '1.0-sp1', '1.0.1', '1.1'],
  },
};

describe('version orders: known orderings', () => {
  for (const [name, { compare, cases, chain }] of Object.entries(TABLES)) {
    it(`${name}: each pair`, () => {
      for (const [a, b, expected] of cases) {
        expect(sign(compare(a, b)), `${a} vs ${b}`).toBe(expected);
        expect(sign(compare(b, a)), `${b} vs ${a}`).toBe(-expected || 0);
      }
    });
    it(`${name}: the chain is strictly increasing, every pair`, () => {
      for (let i = 0; i < chain.length; i++)
        for (let j = 0; j < chain.length; j++)
          expect(sign(compare(chain[i] ?? '', chain[j] ?? '')), `${chain[i]} vs ${chain[j]}`).toBe(sign(i - j));
    });
  }
});

const seed = seedFromEnv(process.env.FUZZ_SEED);

/** Versions made of the pieces each syntax gives meaning to, and some it does not. */
function randomVersion(rng: Rng): string {
  const pieces = [
    '0',
    '1',
    '2',
    '10',
    '01',
    '.',
    '.',
    '-',
    '~',
    '^',
    '+',
    ':',
    '_',
    'a',
    'rc',
    '_rc',
    '_p',
    '-r',
    'alpha',
    'beta',
    'dev',
    'post',
    'SNAPSHOT',
    'v',
    'z',
    ' ',
    'é',
    '99999999999999999999',
  ];
  const length = rng.int(0, 8);
  let text = '';
  for (let i = 0; i < length; i++) text += rng.pick(pieces);
  return text;
}

describe(`version orders: fuzzed (seed ${seedHex(seed)})`, () => {
  for (const [name, { compare, chain }] of Object.entries(TABLES)) {
    it(`${name}: a total preorder on random versions, and never a throw`, () => {
      const rng = new Rng(seed ^ name.length);
      const versions = [...chain, ...Array.from({ length: 160 }, () => randomVersion(rng))];
      const order = new Map<string, number>();
      for (const a of versions)
        for (const b of versions) {
          const ab = sign(compare(a, b));
          order.set(`${a}\u0000${b}`, ab);
          expect(ab, `antisymmetry: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(-sign(compare(b, a)) || 0);
        }
      // Transitivity, checked through sorting: a sorted list is non-decreasing for every pair.
      const sorted = [...versions].sort(compare);
      for (let i = 0; i < sorted.length; i++)
        for (let j = i + 1; j < sorted.length; j++)
          expect(
            order.get(`${sorted[i]}\u0000${sorted[j]}`),
            `${JSON.stringify(sorted[i])} ≤ ${JSON.stringify(sorted[j])}`,
          ).not.toBe(1);
    });
  }
});
