/**
 * A vulnerability scan end to end, on real components: a dockerd, a registry the images are pushed
 * to with the docker CLI, and the hub as `npm start` runs it (DD_SECURITY_SCANNER=osv with the
 * fixture OSV database of test/support/fixtures/osv). The running image holds a vulnerable openssl;
 * its update candidate fixes it and brings a vulnerable libepoch. `POST …/scan` pulls the candidate
 * on the container's host, reads both images through `docker save` with the built-in SBOM generator,
 * and answers the candidate's findings with the update's delta; the security gate then refuses the
 * update (409) while the running image alone would not have been blocked for it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { expectJsonError } from '../support/hub-harness';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const FIXTURE = join(import.meta.dirname, '..', 'support', 'fixtures', 'osv', 'advisories.json');
const OS_RELEASE =
  'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n';

/** One dpkg status entry, as dpkg writes it. */
const deb = (name: string, version: string, source?: string) =>
  [
    `Package: ${name}`,
    'Status: install ok installed',
    'Architecture: amd64',
    ...(source ? [`Source: ${source}`] : []),
    `Version: ${version}`,
    `Description: ${name} for the scan test`,
    '',
  ].join('\n');

type Finding = { id: string; package: string; installedVersion: string; severity: string };
type Scanned = Container & {
  security: { status: string; target: string; image: string; delta?: { fixed: Finding[]; introduced: Finding[] } };
};

describe('a vulnerability scan on a real dockerd and registry', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let hub: HubOnDockerd;
  let id: string;
  const ref = (tag: string) => `${registry.host}/scan/app:${tag}`;

  /** An image of the busybox base with this dpkg status, built and pushed as `tag`. */
  async function publish(tag: string, status: string): Promise<void> {
    const context = mkdtempSync(join(tmpdir(), 'scan-context-'));
    try {
      const files: Record<string, string> = { 'etc/os-release': OS_RELEASE, 'var/lib/dpkg/status': status };
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(context, 'root', path)), { recursive: true });
        writeFileSync(join(context, 'root', path), content);
      }
      writeFileSync(join(context, 'Dockerfile'), `FROM scan/base:1\nCOPY root/ /\n`);
      for (const args of [
        ['build', '--network', 'none', '-t', ref(tag), context],
        ['push', ref(tag)],
      ]) {
        const result = await dockerd.cli(args);
        if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
      }
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  }

  beforeAll(async () => {
    registry = await startRegistry({ variant: 'plain' });
    dockerd = await startDockerd();
    await importBusyboxImage(dockerd.docker, { repository: 'scan/base', tag: '1', cmd: ['sleep', '3600'] });
    await publish('1.0.0', deb('libssl3', '3.0.11-1~deb12u1', 'openssl'));
    await publish('1.1.0', deb('libssl3', '3.0.11-1~deb12u2', 'openssl') + '\n' + deb('libepoch', '1:1.0-1'));
    // The candidate must come from the registry, as an update's would: only 1.0.0 stays on the host.
    const removed = await dockerd.cli(['rmi', ref('1.1.0')]);
    expect(removed.code).toBe(0);
    id = await runContainer(dockerd.docker, { name: 'scanned', image: ref('1.0.0') });
    hub = await startHubOnDockerd(dockerd, {
      DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'true',
      DD_SECURITY_SCANNER: 'osv',
      DD_SECURITY_OSV_FILE: FIXTURE,
      DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1',
    });
    // A full cycle: the registry says 1.1.0 is the candidate.
    const watched = await hub.api('/api/v1/containers/watch', { method: 'POST' });
    expect(watched.status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.stop();
    await registry?.stop();
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
    const images = await dockerd.docker.listImages();
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
    const inspected = await dockerd.docker.getContainer(id).inspect();
    expect(inspected.Config.Image).toBe(ref('1.0.0'));
  });
});
