/**
 * DD_SECURITY_SCANNER=trivy|grype on Node: the binary found at start-up, and each scan run through
 * the fixture executables (test/support/fixtures/scanners/), which check their command line and
 * print the tools' JSON for the SBOM they are handed. Neither real tool can be run here.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../shared/config/config-error';
import { type FakeScanner, installFakeScanner } from '../../../../test/support/fake-scanners';
import type { ImageSbom } from '../../security/sbom-model';
import { EXTERNAL_DIALECTS } from '../../security/scanners/external-dialects';
import { createExternalScanner } from '../../security/scanners/external-scanner';
import { createNodeScannerProcess, resolveScannerBinary } from './scanner-process';

const SBOM: ImageSbom = {
  imageId: 'sha256:image',
  imageRef: 'app:1.1.0',
  distro: { id: 'debian', versionId: '12', prettyName: 'Debian GNU/Linux 12 (bookworm)' },
  generatedAt: '2026-11-01T00:00:00Z',
  packages: [
    {
      type: 'deb',
      namespace: 'debian',
      name: 'libssl3',
      version: '3.0.11-1~deb12u1',
      purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12',
      source: { name: 'openssl' },
      licenses: [],
      location: '/var/lib/dpkg/status',
    },
    {
      type: 'deb',
      namespace: 'debian',
      name: 'zlib1g',
      version: '1:1.2.13.dfsg-1',
      purl: 'pkg:deb/debian/zlib1g@1%3A1.2.13.dfsg-1?arch=amd64&distro=debian-12',
      licenses: [],
      location: '/var/lib/dpkg/status',
    },
    { type: 'npm', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20', licenses: [], location: '/app' },
  ],
};

let trivy: FakeScanner;
let grype: FakeScanner;
beforeAll(() => {
  trivy = installFakeScanner('trivy');
  grype = installFakeScanner('grype');
});
afterAll(() => {
  trivy.remove();
  grype.remove();
});

function scannerOf(
  name: 'trivy' | 'grype',
  env: Record<string, string> = {},
  options: { internetless?: boolean; timeoutMs?: number; maxReportBytes?: number } = {},
) {
  const binary = name === 'trivy' ? trivy.binary : grype.binary;
  return createExternalScanner({
    dialect: EXTERNAL_DIALECTS[name],
    process: createNodeScannerProcess(name, binary, { PATH: process.env.PATH, ...env }),
    internetless: () => options.internetless ?? false,
    now: Date.now,
    toolVersion: '0.0.0-test',
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.maxReportBytes !== undefined && { maxReportBytes: options.maxReportBytes }),
  });
}

const brief = (findings: Awaited<ReturnType<ReturnType<typeof scannerOf>['scan']>>) =>
  findings.map((f) => [f.id, f.package.name, f.installedVersion, f.severity, f.score, f.fixedVersions]);

describe('the scanner binary at start-up', () => {
  it('is found on PATH, or at DD_SECURITY_SCANNER_PATH', () => {
    expect(resolveScannerBinary('trivy', undefined, { PATH: `/nonexistent:${trivy.directory}` })).toBe(trivy.binary);
    expect(resolveScannerBinary('grype', grype.binary, { PATH: '' })).toBe(grype.binary);
  });

  it('refuses start-up naming the variable when it is missing or not executable', () => {
    expect(() => resolveScannerBinary('trivy', undefined, { PATH: grype.directory })).toThrow(
      new ConfigError(
        'DD_SECURITY_SCANNER',
        'trivy was not found on PATH; install it, set DD_SECURITY_SCANNER_PATH to it, or use osv (docs/security-scanning.md)',
      ),
    );
    expect(() => resolveScannerBinary('grype', '/nonexistent/grype', {})).toThrow(
      /^DD_SECURITY_SCANNER_PATH: \/nonexistent\/grype is not an executable file$/,
    );
    expect(() => resolveScannerBinary('grype', 'grype', {})).toThrow(
      /^DD_SECURITY_SCANNER_PATH: must be an absolute path/,
    );
    const directory = mkdtempSync(join(tmpdir(), 'not-executable-'));
    try {
      writeFileSync(join(directory, 'trivy'), '#!/bin/sh\n');
      chmodSync(join(directory, 'trivy'), 0o644);
      expect(() => resolveScannerBinary('trivy', undefined, { PATH: directory })).toThrow(
        /^DD_SECURITY_SCANNER: trivy was not found/,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe.each(['trivy', 'grype'] as const)('%s through its fixture executable', (name) => {
  it('reads the findings of the SBOM it is handed, and reports its version', async () => {
    const scanner = scannerOf(name);
    const findings = await scanner.scan(SBOM);
    expect(brief(findings)).toEqual([
      ['CVE-2021-23337', 'lodash', '4.17.20', 'high', 7.2, ['4.17.21']],
      ['CVE-2023-5678', 'libssl3', '3.0.11-1~deb12u1', 'medium', 5.3, ['3.0.11-1~deb12u2']],
    ]);
    // Onto the SBOM's own packages.
    expect(findings.map((f) => f.package.purl)).toEqual([SBOM.packages[2]?.purl, SBOM.packages[0]?.purl]);
    const status = await scanner.status();
    expect(status).toEqual(
      name === 'trivy'
        ? {
            state: 'external',
            scanner: 'trivy',
            version: '0.57.1',
            databaseUpdatedAt: '2026-11-20T06:11:52Z',
            offline: false,
          }
        : { state: 'external', scanner: 'grype', version: '0.84.0', offline: false },
    );
    expect((await scanner.database())?.source).toBe(`${name} ${name === 'trivy' ? '0.57.1' : '0.84.0'}`);
  });

  it('is told to stay offline in internetlessMode (the fixture fails as the tool would without it)', async () => {
    const offline = { [`${name.toUpperCase()}_FIXTURE_OFFLINE`]: '1' };
    await expect(scannerOf(name, offline).scan(SBOM)).rejects.toThrow(
      new RegExp(
        `^${name} exited with 1: .*(failed to download vulnerability DB|unable to update vulnerability database)`,
      ),
    );
    expect(brief(await scannerOf(name, offline, { internetless: true }).scan(SBOM))).toHaveLength(2);
    expect(await scannerOf(name, offline, { internetless: true }).status()).toMatchObject({ offline: true });
  });

  it('fails the scan with a clear error when the tool exits non-zero, keeping only the start of stderr', async () => {
    const error = await scannerOf(name, { [`${name.toUpperCase()}_FIXTURE_MODE`]: 'fail' })
      .scan(SBOM)
      .catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(new RegExp(`^${name} exited with 1: .*the fixture was told to fail$`));
    expect((error as Error).message.length).toBeLessThan(400);
  });

  it('fails the scan when the output is not the tool’s JSON', async () => {
    await expect(scannerOf(name, { [`${name.toUpperCase()}_FIXTURE_MODE`]: 'garbage' }).scan(SBOM)).rejects.toThrow(
      new RegExp(`^${name}: the ${name === 'trivy' ? 'Trivy' : 'Grype'} report is not JSON`),
    );
  });
});

describe('the bounds of a run', () => {
  it('kills a tool that passes its deadline', async () => {
    const started = Date.now();
    await expect(scannerOf('trivy', { TRIVY_FIXTURE_MODE: 'slow' }, { timeoutMs: 1_000 }).scan(SBOM)).rejects.toThrow(
      'trivy: did not finish within 1000 ms (killed)',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('kills a tool whose report passes the size bound, without holding it', async () => {
    await expect(
      scannerOf('trivy', { TRIVY_FIXTURE_MODE: 'huge' }, { maxReportBytes: 1024 * 1024 }).scan(SBOM),
    ).rejects.toThrow('trivy: wrote more than 1048576 bytes (killed)');
  });

  it('fails when the report has the wrong shape, naming the field', async () => {
    await expect(scannerOf('trivy', { TRIVY_FIXTURE_MODE: 'wrong-shape' }).scan(SBOM)).rejects.toThrow(
      /^trivy: the Trivy report has an unexpected shape: Results\.0\.Vulnerabilities\.0\.VulnerabilityID: /,
    );
  });

  it('hands the tool its own variables and the offline switches, never the hub’s DD_* ones, and removes the SBOM file', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'env-probe-'));
    try {
      const probe = join(directory, 'trivy');
      const seen = join(directory, 'seen.json');
      writeFileSync(
        probe,
        `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ env: process.env, args: process.argv.slice(2), input: require('node:fs').readFileSync(process.argv.at(-1), 'utf8').slice(0, 60) }));\nprocess.stdout.write('{"SchemaVersion":2}');\n`,
      );
      chmodSync(probe, 0o755);
      const scanner = createExternalScanner({
        dialect: EXTERNAL_DIALECTS.trivy,
        process: createNodeScannerProcess('trivy', probe, {
          PATH: '/usr/bin',
          HOME: '/home/hub',
          TRIVY_CACHE_DIR: '/cache',
          DD_AUTH_BASIC_ADMIN_HASH: 's3cret',
          DD_SECURITY_SCANNER: 'trivy',
        }),
        internetless: () => true,
        now: Date.now,
        toolVersion: '0.0.0-test',
      });
      expect(await scanner.scan(SBOM)).toEqual([]);
      const { env, args, input } = JSON.parse(readFileSync(seen, 'utf8'));
      expect(
        Object.keys(env)
          .filter((key) => !['PWD', 'SHLVL', '_'].includes(key))
          .sort(),
      ).toEqual(['HOME', 'PATH', 'TRIVY_CACHE_DIR', 'TRIVY_DISABLE_TELEMETRY']);
      expect(args.slice(0, -1)).toEqual([
        'sbom',
        '--format',
        'json',
        '--quiet',
        '--skip-db-update',
        '--skip-java-db-update',
        '--offline-scan',
      ]);
      expect(input).toContain('bom-1.6.schema.json');
      // The temporary SBOM and its private directory are gone after the run.
      expect(dirname(args.at(-1))).toMatch(/dockwatch-trivy-/);
      expect(existsSync(dirname(args.at(-1)))).toBe(false);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
