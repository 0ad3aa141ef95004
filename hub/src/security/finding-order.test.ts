import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../shared/security/severities';
import { orderedFindings } from './finding-order';

const finding = (id: string, severity: Severity, purl: string, note = '') => ({
  id,
  severity,
  package: { purl },
  note,
});

describe('orderedFindings: the one order of every scanner', () => {
  it('puts the worst first, then orders by advisory id, then by package purl', () => {
    const ordered = orderedFindings([
      finding('CVE-2', 'low', 'pkg:deb/debian/b@1'),
      finding('CVE-9', 'unknown', 'pkg:deb/debian/a@1'),
      finding('CVE-1', 'critical', 'pkg:deb/debian/b@1'),
      finding('CVE-2', 'low', 'pkg:deb/debian/a@1'),
      finding('CVE-1', 'high', 'pkg:deb/debian/a@1'),
    ]);
    expect(ordered.map((f) => `${f.severity} ${f.id} ${f.package.purl}`)).toEqual([
      'critical CVE-1 pkg:deb/debian/b@1',
      'high CVE-1 pkg:deb/debian/a@1',
      'low CVE-2 pkg:deb/debian/a@1',
      'low CVE-2 pkg:deb/debian/b@1',
      'unknown CVE-9 pkg:deb/debian/a@1',
    ]);
  });

  it('keeps one finding per advisory and package, the first seen', () => {
    const ordered = orderedFindings([
      finding('GHSA-x', 'medium', 'pkg:npm/lodash@4.17.20', 'first'),
      finding('GHSA-x', 'high', 'pkg:npm/lodash@4.17.20', 'repeat'),
      finding('GHSA-x', 'medium', 'pkg:npm/other@1.0.0'),
    ]);
    expect(ordered.map((f) => [f.package.purl, f.note])).toEqual([
      ['pkg:npm/lodash@4.17.20', 'first'],
      ['pkg:npm/other@1.0.0', ''],
    ]);
  });

  it('does not change what it was given', () => {
    const given = [finding('B', 'low', 'p'), finding('A', 'low', 'p')];
    orderedFindings(given);
    expect(given.map((f) => f.id)).toEqual(['B', 'A']);
  });
});
