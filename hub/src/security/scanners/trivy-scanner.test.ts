import { describe, expect, it } from 'vitest';
import type { ImageSbom } from '../sbom-model';
import { ScannerReportError } from './scanner-dialect';
import { trivyDialect } from './trivy-scanner';

const SBOM: ImageSbom = {
  imageId: 'sha256:image',
  imageRef: 'app:1',
  distro: { id: 'debian', versionId: '12' },
  generatedAt: '2026-11-01T00:00:00Z',
  packages: [
    {
      type: 'deb',
      namespace: 'debian',
      name: 'libssl3',
      version: '3.0.11-1~deb12u1',
      purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12',
      licenses: [],
      location: '/var/lib/dpkg/status',
    },
    { type: 'npm', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20', licenses: [], location: '/app' },
  ],
};

/** A report as `trivy sbom --format json` writes it (SchemaVersion 2), trimmed to two results. */
const REPORT = {
  SchemaVersion: 2,
  CreatedAt: '2026-11-20T07:00:00Z',
  ArtifactName: '/tmp/sbom.cdx.json',
  ArtifactType: 'cyclonedx',
  Metadata: { OS: { Family: 'debian', Name: '12' } },
  Results: [
    {
      Target: '/tmp/sbom.cdx.json (debian 12)',
      Class: 'os-pkgs',
      Type: 'debian',
      Vulnerabilities: [
        {
          VulnerabilityID: 'CVE-2023-5678',
          VendorIDs: ['DSA-5532-1'],
          PkgID: 'libssl3@3.0.11-1~deb12u1',
          PkgName: 'libssl3',
          // Trivy re-encodes the purl: qualifiers in its own order, `~` escaped.
          PkgIdentifier: { PURL: 'pkg:deb/debian/libssl3@3.0.11-1%7Edeb12u1?distro=debian-12&arch=amd64', UID: 'x' },
          InstalledVersion: '3.0.11-1~deb12u1',
          FixedVersion: '3.0.11-1~deb12u2, 3.0.13-1',
          Status: 'fixed',
          SeveritySource: 'debian',
          PrimaryURL: 'https://avd.aquasec.com/nvd/cve-2023-5678',
          Title: 'openssl: Generating excessively long X9.42 DH keys may be very slow',
          Description: 'Issue summary: ...',
          Severity: 'MEDIUM',
          CVSS: {
            nvd: { V3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L', V3Score: 5.3 },
            redhat: { V3Score: 7.5 },
          },
        },
      ],
    },
    {
      Target: 'Node.js',
      Class: 'lang-pkgs',
      Type: 'node-pkg',
      Vulnerabilities: [
        {
          VulnerabilityID: 'CVE-2021-23337',
          PkgName: 'lodash',
          PkgIdentifier: { PURL: 'pkg:npm/lodash@4.17.20' },
          InstalledVersion: '4.17.20',
          FixedVersion: '4.17.21',
          // No severity Trivy could rate: the score decides.
          Severity: 'UNKNOWN',
          CVSS: { ghsa: { V3Score: 7.2 } },
          Description:
            'Lodash versions prior to 4.17.21 are vulnerable to Command Injection via the template function.\nMore.',
        },
        // The same finding twice (two targets naming one package): reported once.
        {
          VulnerabilityID: 'CVE-2021-23337',
          PkgName: 'lodash',
          PkgIdentifier: { PURL: 'pkg:npm/lodash@4.17.20' },
          InstalledVersion: '4.17.20',
        },
      ],
    },
    // A result without findings: Trivy leaves `Vulnerabilities` out.
    { Target: 'Python', Class: 'lang-pkgs', Type: 'python-pkg' },
  ],
};

describe('the Trivy report reader', () => {
  it('reads every finding, worst first, onto the SBOM package it names', () => {
    expect(trivyDialect.parseReport(JSON.stringify(REPORT), SBOM)).toEqual([
      {
        id: 'CVE-2021-23337',
        aliases: [],
        package: { type: 'npm', name: 'lodash', purl: 'pkg:npm/lodash@4.17.20', ecosystem: 'node-pkg' },
        installedVersion: '4.17.20',
        fixedVersions: ['4.17.21'],
        severity: 'high',
        score: 7.2,
        summary: 'Lodash versions prior to 4.17.21 are vulnerable to Command Injection via the template function.',
        url: '',
      },
      {
        id: 'CVE-2023-5678',
        aliases: ['DSA-5532-1'],
        package: {
          type: 'deb',
          name: 'libssl3',
          purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12',
          ecosystem: 'debian',
        },
        installedVersion: '3.0.11-1~deb12u1',
        fixedVersions: ['3.0.11-1~deb12u2', '3.0.13-1'],
        // Trivy's own rating stands; the score is NVD's (the severity source gave none).
        severity: 'medium',
        score: 5.3,
        summary: 'openssl: Generating excessively long X9.42 DH keys may be very slow',
        url: 'https://avd.aquasec.com/nvd/cve-2023-5678',
      },
    ]);
  });

  it('answers no findings for a clean image (no Results, or results without Vulnerabilities)', () => {
    expect(trivyDialect.parseReport('{"SchemaVersion":2,"ArtifactName":"x","ArtifactType":"cyclonedx"}', SBOM)).toEqual(
      [],
    );
    expect(
      trivyDialect.parseReport(
        '{"SchemaVersion":2,"Results":[{"Target":"x","Class":"os-pkgs","Type":"debian"}]}',
        SBOM,
      ),
    ).toEqual([]);
  });

  it.each([
    ['not JSON', 'INFO Vulnerability scanning is enabled\n', /^the Trivy report is not JSON/],
    ['a table', 'Total: 1 (UNKNOWN: 0, LOW: 0)', /^the Trivy report is not JSON/],
    ['another document', '{"matches":[]}', /^the Trivy report has an unexpected shape: SchemaVersion: /],
    [
      'a finding without its id',
      '{"SchemaVersion":2,"Results":[{"Vulnerabilities":[{"PkgName":"a","InstalledVersion":"1"}]}]}',
      /^the Trivy report has an unexpected shape: Results\.0\.Vulnerabilities\.0\.VulnerabilityID: /,
    ],
    [
      'a score that is text',
      '{"SchemaVersion":2,"Results":[{"Vulnerabilities":[{"VulnerabilityID":"C","PkgName":"a","CVSS":{"nvd":{"V3Score":"9"}}}]}]}',
      /CVSS\.nvd\.V3Score/,
    ],
  ])('refuses %s with a clear error', (_, text, message) => {
    const attempt = () => trivyDialect.parseReport(text, SBOM);
    expect(attempt).toThrow(ScannerReportError);
    expect(attempt).toThrow(message);
  });

  it('reads `trivy version --format json`, the database date with it', () => {
    expect(
      trivyDialect.parseVersion(
        '{"Version":"0.57.1","VulnerabilityDB":{"Version":2,"UpdatedAt":"2026-11-20T06:11:52Z"}}',
      ),
    ).toEqual({ version: '0.57.1', databaseUpdatedAt: '2026-11-20T06:11:52Z' });
    expect(trivyDialect.parseVersion('{"Version":"0.57.1"}')).toEqual({ version: '0.57.1' });
    expect(() => trivyDialect.parseVersion('Version: 0.57.1')).toThrow(/not JSON/);
  });

  it('tells Trivy to stay offline only in internetlessMode', () => {
    expect(trivyDialect.scanArgs(false)).toEqual(['sbom', '--format', 'json', '--quiet', '{input}']);
    expect(trivyDialect.scanArgs(true)).toEqual([
      'sbom',
      '--format',
      'json',
      '--quiet',
      '--skip-db-update',
      '--skip-java-db-update',
      '--offline-scan',
      '{input}',
    ]);
  });
});
