/**
 * A vulnerability scan end to end, on real components: a dockerd, a registry the images are pushed
 * to with the docker CLI, and the hub as `npm start` runs it (DD_SECURITY_SCANNER=osv with the
 * fixture OSV database of test/support/fixtures/osv). The running image holds a vulnerable openssl;
 * its update candidate fixes it and brings a vulnerable libepoch. `POST …/scan` pulls the candidate
 * on the container's host, reads both images through `docker save` with the built-in SBOM generator,
 * and answers the candidate's findings with the update's delta; the security gate then refuses the
 * update (409) once the container asks for a medium severity limit. Without the limit the update
 * runs, and the re-created container keeps the result of the image it now runs (issue 28).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { expectJsonError } from '../support/hub-harness';
import { type ScanBed, startScanBed } from '../support/scan-bed';

type Finding = { id: string; package: string; installedVersion: string; severity: string };
type Scanned = Container & {
  security: { status: string; target: string; image: string; delta?: { fixed: Finding[]; introduced: Finding[] } };
};

describe('a vulnerability scan on a real dockerd and registry', () => {
  let bed: ScanBed;
  let hub: HubOnDockerd;
  let id: string;
  const ref = (tag: string) => bed.ref(tag);

  beforeAll(async () => {
    bed = await startScanBed();
    id = bed.containerId;
    hub = await startHubOnDockerd(bed.dockerd, bed.scannerEnv);
    // A full cycle: the registry says 1.1.0 is the candidate.
    const watched = await hub.api('/api/v1/containers/watch', { method: 'POST' });
    expect(watched.status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await bed?.stop();
  });

  it('knows the candidate and has the database imported', async () => {
    const container = await hub.json<Container>(`/api/v1/containers/${id}`);
    expect(container.updateAvailable).toBe(true);
    expect(container.result?.tag).toBe('1.1.0');
    await expect
      .poll(
        async () =>
          (await hub.json<{ database: { state: string } }>('/api/v1/containers/security/vulnerabilities')).database
            .state,
        {
          timeout: 30_000,
        },
      )
      .toBe('ready');
  });

  it('scans the pulled candidate and answers what the update fixes and what it introduces', async () => {
    const response = await hub.api(`/api/v1/containers/${id}/scan`, { method: 'POST' });
    expect(response.status, await response.clone().text()).toBe(200);
    const scanned = (await response.json()) as Scanned;
    expect(scanned.security).toMatchObject({ status: 'scanned', target: 'candidate', image: ref('1.1.0') });
    const findings = await hub.json<{
      vulnerabilities: { id: string; package: { name: string }; installedVersion: string }[];
    }>(`/api/v1/containers/${id}/vulnerabilities`);
    expect(findings.vulnerabilities.map((f) => [f.id, f.package.name, f.installedVersion])).toEqual([
      ['DSA-TEST-0003', 'libepoch', '1:1.0-1'],
    ]);
    expect(scanned.security.delta?.fixed.map((f) => [f.id, f.installedVersion])).toEqual([
      ['DSA-TEST-0001', '3.0.11-1~deb12u1'],
    ]);
    expect(scanned.security.delta?.introduced.map((f) => f.id)).toEqual(['DSA-TEST-0003']);
    // The candidate was pulled on the container's own host to be read.
    const images = await bed.dockerd.docker.listImages();
    expect(images.flatMap((image) => image.RepoTags ?? [])).toContain(ref('1.1.0'));
    // Both SBOMs are served from the cache afterwards: the running image's document names openssl's package.
    const sbom = await hub.json<{ packages: { name: string; versionInfo: string }[] }>(`/api/v1/containers/${id}/sbom`);
    expect(sbom.packages.map((p) => [p.name, p.versionInfo])).toContainEqual(['libssl3', '3.0.11-1~deb12u1']);
  });

  it('refuses the update over the security gate set on the container, with the findings', async () => {
    const set = await hub.api(`/api/v1/containers/${id}/label-overrides`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ set: { 'dd.security.block-severity': 'medium' } }),
    });
    expect(set.status).toBe(200);
    const refused = await expectJsonError(await hub.api(`/api/v1/containers/${id}/update`, { method: 'POST' }), 409);
    expect(JSON.stringify(refused.details)).toContain('DSA-TEST-0003');
    // Nothing was updated: the container still runs 1.0.0.
    const inspected = await bed.dockerd.docker.getContainer(id).inspect();
    expect(inspected.Config.Image).toBe(ref('1.0.0'));
  });

  it("serves the running image's own findings beside the candidate's, then keeps the candidate's result once the update runs it", async () => {
    type View = { target: string; image: string; running?: { image: string; vulnerabilities: { id: string }[] } };
    const before = await hub.json<View>(`/api/v1/containers/${id}/vulnerabilities`);
    expect(before.target).toBe('candidate');
    expect(before.running?.image).toBe(ref('1.0.0'));
    expect(before.running?.vulnerabilities.map((f) => f.id)).toEqual(['DSA-TEST-0001']);
    const aggregate = await hub.json<{ images: { image: string; vulnerabilities: { id: string }[] }[] }>(
      '/api/v1/containers/security/vulnerabilities',
    );
    expect(aggregate.images.find((entry) => entry.image === ref('1.0.0'))?.vulnerabilities.map((f) => f.id)).toEqual([
      'DSA-TEST-0001',
    ]);

    const cleared = await hub.api(`/api/v1/containers/${id}/label-overrides`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ unset: ['dd.security.block-severity'] }),
    });
    expect(cleared.status, await cleared.clone().text()).toBe(200);
    const requested = await hub.api(`/api/v1/containers/${id}/update`, { method: 'POST' });
    expect(requested.status, await requested.clone().text()).toBe(202);
    const { operationId } = (await requested.json()) as { operationId: string };
    await expect
      .poll(async () => (await hub.json<{ status: string }>(`/api/v1/update-operations/${operationId}`)).status, {
        timeout: 60_000,
        interval: 200,
      })
      .toBe('succeeded');
    let fresh: Scanned | undefined;
    await expect
      .poll(
        async () => {
          const list = await hub.json<{ data: Scanned[] }>('/api/v1/containers');
          fresh = list.data.find((c) => c.name === 'scanned' && c.id !== id);
          return fresh?.id;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBeDefined();
    if (!fresh) throw new Error('no re-created container');
    // No scan ran for the new container: the candidate's result is now its running image's.
    expect(fresh.security).toMatchObject({ status: 'scanned', target: 'current', image: ref('1.1.0') });
    const after = await hub.json<{ containerId: string; target: string; vulnerabilities: { id: string }[] }>(
      `/api/v1/containers/${fresh.id}/vulnerabilities`,
    );
    expect(after).toMatchObject({ containerId: fresh.id, target: 'current' });
    expect(after.vulnerabilities.map((f) => f.id)).toEqual(['DSA-TEST-0003']);
  });
});
