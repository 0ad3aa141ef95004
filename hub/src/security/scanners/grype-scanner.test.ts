import { describe, expect, it } from 'vitest';
import type { ImageSbom } from '../sbom-model';
import { grypeDialect } from './grype-scanner';
import { ScannerReportError } from './scanner-dialect';

const SBOM: ImageSbom = {
  imageId: 'sha256:image',
  imageRef: 'app:1',
  distro: { id: 'debian', versionId: '12' },
  generatedAt: '2026-11-01T00:00:00Z',
  packages: [
    {
      type: 'deb',
      namespace: 'debian',
      name: 'libepoch',
      version: '1:1.0-1',
      purl: 'pkg:deb/debian/libepoch@1%3A1.0-1?arch=amd64&distro=debian-12',
      licenses: [],
      location: '/var/lib/dpkg/status',
    },
  ],
};

const nvd = (id: string, score: number, version = '3.1') => ({
  id,
  dataSource: `https://nvd.nist.gov/vuln/detail/${id}`,
  namespace: 'nvd:cpe',
  severity: 'High',
  urls: [],
  description: `${id} as NVD describes it`,
  cvss: [
    {
      source: 'nvd@nist.gov',
      type: 'Primary',
      version,
      vector: 'x',
      metrics: { baseScore: score },
      vendorMetadata: {},
    },
  ],
});

/** A report as `grype sbom:<file> -o json` writes it, trimmed to what differs between matches. */
const REPORT = {
  matches: [
    {
      vulnerability: {
        id: 'CVE-2099-0003',
        dataSource: 'https://security-tracker.debian.org/tracker/CVE-2099-0003',
        namespace: 'debian:distro:debian:12',
        severity: 'Negligible',
        urls: [],
        cvss: [],
        fix: { versions: [], state: 'wont-fix' },
        advisories: [],
      },
      relatedVulnerabilities: [nvd('CVE-2099-0003', 7.5)],
      matchDetails: [],
      artifact: {
        id: 'a',
        name: 'libepoch',
        version: '1:1.0-1',
        type: 'deb',
        purl: 'pkg:deb/debian/libepoch@1:1.0-1?distro=debian-12',
      },
    },
    {
      vulnerability: {
        id: 'GHSA-35jh-r3h4-6jhm',
        dataSource: 'https://github.com/advisories/GHSA-35jh-r3h4-6jhm',
        severity: 'High',
        urls: ['https://github.com/advisories/GHSA-35jh-r3h4-6jhm'],
        description: 'Command Injection in lodash',
        cvss: [{ version: '3.1', vector: 'y', metrics: { baseScore: 7.2 } }],
        fix: { versions: ['4.17.21'], state: 'fixed' },
      },
      relatedVulnerabilities: [nvd('CVE-2021-23337', 7.2), nvd('CVE-2021-23337', 7.2, '2.0')],
      artifact: { name: 'lodash', version: '4.17.20', type: 'npm', purl: 'pkg:npm/lodash@4.17.20' },
    },
    {
      // No rating at all: unknown, from neither label nor score.
      vulnerability: { id: 'CVE-2099-0009', severity: 'Unknown', fix: { versions: null, state: 'unknown' } },
      relatedVulnerabilities: null,
      artifact: { name: 'tool', version: '1.0', type: 'binary', purl: '' },
    },
  ],
  source: { type: 'sbom', target: '/tmp/sbom.cdx.json' },
  distro: { name: 'debian', version: '12', idLike: [] },
  descriptor: { name: 'grype', version: '0.84.0' },
};

describe('the Grype report reader', () => {
  it('reads every match, worst first, with the related records’ ids as aliases and their score', () => {
    expect(grypeDialect.parseReport(JSON.stringify(REPORT), SBOM)).toEqual([
      {
        id: 'GHSA-35jh-r3h4-6jhm',
        aliases: ['CVE-2021-23337'],
        package: { type: 'npm', name: 'lodash', purl: 'pkg:npm/lodash@4.17.20', ecosystem: 'npm' },
        installedVersion: '4.17.20',
        fixedVersions: ['4.17.21'],
        severity: 'high',
        score: 7.2,
        summary: 'Command Injection in lodash',
        url: 'https://github.com/advisories/GHSA-35jh-r3h4-6jhm',
      },
      {
        id: 'CVE-2099-0003',
        aliases: [],
        // The SBOM's own purl, though Grype wrote the epoch unescaped.
        package: {
          type: 'deb',
          name: 'libepoch',
          purl: 'pkg:deb/debian/libepoch@1%3A1.0-1?arch=amd64&distro=debian-12',
          ecosystem: 'deb',
        },
        installedVersion: '1:1.0-1',
        // `wont-fix` lists no fixed version.
        fixedVersions: [],
        // Grype's label stands (Negligible is the lowest here); the score is the related NVD record's.
        severity: 'low',
        score: 7.5,
        summary: 'CVE-2099-0003 as NVD describes it',
        url: 'https://security-tracker.debian.org/tracker/CVE-2099-0003',
      },
      {
        id: 'CVE-2099-0009',
        aliases: [],
        package: { type: 'binary', name: 'tool', purl: '', ecosystem: 'binary' },
        installedVersion: '1.0',
        fixedVersions: [],
        severity: 'unknown',
        summary: '',
        url: '',
      },
    ]);
  });

  it('answers no findings for a clean image', () => {
    expect(grypeDialect.parseReport('{"matches":[],"source":{"type":"sbom"}}', SBOM)).toEqual([]);
  });

  it.each([
    ['a table', 'NAME  INSTALLED  FIXED-IN  TYPE  VULNERABILITY  SEVERITY\n', /^the Grype report is not JSON/],
    [
      'a match without its package',
      '{"matches":[{"vulnerability":{"id":"CVE-1"}}]}',
      /unexpected shape: matches\.0\.artifact: /,
    ],
    ['matches that are not a list', '{"matches":{}}', /unexpected shape: matches: /],
  ])('refuses %s with a clear error', (_, text, message) => {
    const attempt = () => grypeDialect.parseReport(text, SBOM);
    expect(attempt).toThrow(ScannerReportError);
    expect(attempt).toThrow(message);
  });

  it('reads `grype version -o json`', () => {
    expect(grypeDialect.parseVersion('{"application":"grype","version":"0.84.0","supportedDbSchema":5}')).toEqual({
      version: '0.84.0',
    });
    expect(() => grypeDialect.parseVersion('{"application":"grype"}')).toThrow(/unexpected shape: version/);
  });

  it('turns off the update check always, and the database update and age check in internetlessMode', () => {
    expect(grypeDialect.scanArgs(false)).toEqual(['sbom:{input}', '-o', 'json']);
    expect(grypeDialect.scanEnv(false)).toEqual({ GRYPE_CHECK_FOR_APP_UPDATE: 'false' });
    expect(grypeDialect.scanEnv(true)).toEqual({
      GRYPE_CHECK_FOR_APP_UPDATE: 'false',
      GRYPE_DB_AUTO_UPDATE: 'false',
      GRYPE_DB_VALIDATE_AGE: 'false',
    });
  });
});
