/**
 * DD_SECURITY_SCANNER=trivy end to end on real components but the tool: the scan bed's dockerd and
 * registry (test/support/scan-bed.ts), the hub as `npm start` runs it, and the fixture `trivy` on
 * its PATH (test/support/fixtures/scanners/trivy.cjs: Trivy and its database cannot be had here).
 * The hub pulls the candidate, reads both images with its own SBOM generator, hands each SBOM to
 * `trivy sbom` as CycloneDX, and serves the tool's findings with the update's delta.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { type FakeScanner, installFakeScanner } from '../support/fake-scanners';
import { type ScanBed, startScanBed } from '../support/scan-bed';

type Brief = { id: string; package: string; installedVersion: string; severity: string };
type Scanned = Container & {
  security: {
    status: string;
    scanner: string;
    target: string;
    image: string;
    delta?: { fixed: Brief[]; introduced: Brief[] };
  };
};

describe('a Trivy scan on a real dockerd and registry, through the fixture trivy', () => {
  let bed: ScanBed;
  let trivy: FakeScanner;
  let hub: HubOnDockerd;
  let id: string;

  beforeAll(async () => {
    bed = await startScanBed();
    trivy = installFakeScanner('trivy');
    id = bed.containerId;
    hub = await startHubOnDockerd(bed.dockerd, {
      DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'true',
      DD_SECURITY_SCANNER: 'trivy',
      PATH: trivy.path,
    });
    const watched = await hub.api('/api/v1/containers/watch', { method: 'POST' });
    expect(watched.status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await bed?.stop();
    trivy?.remove();
  });

  it('says Trivy scans, with its version and its database’s date', async () => {
    const body = await hub.json<{ database: unknown }>('/api/v1/containers/security/vulnerabilities');
    expect(body.database).toEqual({
      state: 'external',
      scanner: 'trivy',
      version: '0.57.1',
      databaseUpdatedAt: '2026-11-20T06:11:52Z',
      offline: false,
    });
  });

  it('scans the pulled candidate with trivy, and the running image for the delta', async () => {
    const response = await hub.api(`/api/v1/containers/${id}/scan`, { method: 'POST' });
    expect(response.status, await response.clone().text()).toBe(200);
    const scanned = (await response.json()) as Scanned;
    expect(scanned.security).toMatchObject({
      status: 'scanned',
      scanner: 'trivy',
      target: 'candidate',
      image: bed.ref('1.1.0'),
    });
    const findings = await hub.json<{
      scanner: string;
      vulnerabilities: {
        id: string;
        package: { name: string; ecosystem: string };
        installedVersion: string;
        severity: string;
        url: string;
      }[];
    }>(`/api/v1/containers/${id}/vulnerabilities`);
    expect(findings.scanner).toBe('trivy');
    expect(
      findings.vulnerabilities.map((f) => [
        f.id,
        f.package.name,
        f.package.ecosystem,
        f.installedVersion,
        f.severity,
        f.url,
      ]),
    ).toEqual([
      ['CVE-2099-0003', 'libepoch', 'debian', '1:1.0-1', 'high', 'https://avd.aquasec.com/nvd/cve-2099-0003'],
    ]);
    expect(scanned.security.delta?.fixed.map((f) => [f.id, f.package, f.installedVersion])).toEqual([
      ['CVE-2023-5678', 'libssl3', '3.0.11-1~deb12u1'],
    ]);
    expect(scanned.security.delta?.introduced.map((f) => f.id)).toEqual(['CVE-2099-0003']);
    // The aggregate serves the running image's findings (the baseline scan) and the update's summary.
    const aggregate = await hub.json<{
      images: { image: string; vulnerabilities: { id: string }[]; update?: { summary: { high: number } } }[];
    }>('/api/v1/containers/security/vulnerabilities');
    expect(aggregate.images).toMatchObject([
      { image: bed.ref('1.0.0'), update: { image: bed.ref('1.1.0'), summary: { high: 1 } } },
    ]);
  });
});
