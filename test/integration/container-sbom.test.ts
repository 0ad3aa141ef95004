/**
 * GET /api/v1/containers/{id}/sbom on a real dockerd: images built with `docker build` holding a
 * dpkg status, an apk database, a node_modules tree, Python metadata, a jar and a Go binary with
 * build info, and a real rpm database (SQLite, written by rpm); the hub reads them through
 * `docker save` (the local watcher's DockerHost.exportImage).
 */
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerNotFoundError } from '../../shared/docker/docker-host';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { expectJsonError } from '../support/hub-harness';
import {
  ALPINE_IMAGE,
  buildFixtureImages,
  buildRpmImage,
  DEBIAN_IMAGE,
  RPM_IMAGE,
} from '../support/sbom/build-fixture-images';
import { cycloneDxErrors, spdxProblems } from '../support/sbom/document-validators';
import { buildGoProgram, type GoProgram } from '../support/sbom/go-program';
import { EXPECTED_ALPINE_PACKAGES, expectedDebianPackages } from '../support/sbom/image-fixture';
import { removeRpmFixture, rpmFixture } from '../support/sbom/rpm-fixture';

type Json = Record<string, unknown>;

describe('container SBOMs on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let docker: Docker;
  let hub: HubOnDockerd;
  let go: GoProgram;
  let debian: string;
  let alpine: string;
  let rocky: string;

  beforeAll(async () => {
    go = buildGoProgram();
    dockerd = await startDockerd();
    docker = dockerd.docker;
    await buildFixtureImages(dockerd, go);
    await buildRpmImage(dockerd);
    debian = await runContainer(docker, { name: 'debian-like', image: DEBIAN_IMAGE, cmd: ['sleep', '3600'] });
    alpine = await runContainer(docker, { name: 'alpine-like', image: ALPINE_IMAGE, cmd: ['sleep', '3600'] });
    rocky = await runContainer(docker, { name: 'rocky-like', image: RPM_IMAGE, cmd: ['sleep', '3600'] });
    hub = await startHubOnDockerd(dockerd, { DD_WATCHER_LOCAL_WATCHALL: 'true' });
    await hub.refresh();
    // Ajv compiles the CycloneDX schema in seconds: done now, not between two requests, where the
    // idle keep-alive socket could reach the server's 5 s timeout as fetch reuses it (ECONNRESET).
    cycloneDxErrors({});
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.stop();
    removeRpmFixture();
  });

  const document = async (id: string, format?: string) => {
    const response = await hub.api(`/api/v1/containers/${id}/sbom${format ? `?format=${format}` : ''}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return { type: response.headers.get('content-type'), body: (await response.json()) as Json };
  };
  const cycloneDxPurls = (body: Json) =>
    (body['components'] as Json[])
      .filter((component) => component['type'] === 'library')
      .map((component) => component['purl'])
      .sort();
  const spdxPurls = (body: Json) =>
    (body['packages'] as Json[])
      .flatMap((pkg) => (pkg['externalRefs'] as Json[] | undefined) ?? [])
      .map((ref) => ref['referenceLocator'])
      .sort();

  it('answers a CycloneDX 1.6 document valid against its schema, with exactly the packages of every layer merged', async () => {
    const { type, body } = await document(debian, 'cyclonedx-json');
    expect(type).toBe('application/vnd.cyclonedx+json; version=1.6');
    expect(cycloneDxErrors(body)).toEqual([]);
    expect(cycloneDxPurls(body)).toEqual(expectedDebianPackages(go.goVersion).map((pkg) => pkg.purl));
    const metadata = body['metadata'] as Json;
    expect(metadata['component']).toMatchObject({ type: 'container', name: DEBIAN_IMAGE });
    expect((body['components'] as Json[])[0]).toMatchObject({
      type: 'operating-system',
      name: 'debian',
      version: '12',
    });
    expect(metadata['properties']).toEqual([
      { name: 'dockwatch:sbom:warning', value: '/var/lib/dpkg/status: 1 garbage lines skipped' },
    ]);
  });

  it('answers SPDX 2.3 by default, with the same packages, and reads the image once', async () => {
    const readsBefore = hub.parts.sbom.reads;
    const { type, body } = await document(debian);
    expect(type).toBe('application/spdx+json');
    expect(spdxProblems(body)).toEqual([]);
    expect(spdxPurls(body)).toEqual(expectedDebianPackages(go.goVersion).map((pkg) => pkg.purl));
    expect(hub.parts.sbom.reads).toBe(readsBefore);
  });

  it('catalogues the Alpine-like image; concurrent requests and a second container of the image share one read', async () => {
    const second = await runContainer(docker, { name: 'alpine-like-2', image: ALPINE_IMAGE, cmd: ['sleep', '3600'] });
    await hub.refresh();
    const readsBefore = hub.parts.sbom.reads;
    const bodies = await Promise.all([
      document(alpine, 'cyclonedx-json'),
      document(alpine, 'spdx-json'),
      document(second, 'cyclonedx-json'),
      document(alpine, 'cyclonedx-json'),
    ]);
    expect(hub.parts.sbom.reads - readsBefore).toBe(1);
    const expected = EXPECTED_ALPINE_PACKAGES.map((pkg) => pkg.purl);
    expect(cycloneDxPurls(bodies[0]?.body as Json)).toEqual(expected);
    expect(spdxPurls(bodies[1]?.body as Json)).toEqual(expected);
    expect(cycloneDxPurls(bodies[2]?.body as Json)).toEqual(expected);
  });

  it('catalogues the rpm database of the Rocky-like image: every package rpm -qa lists, with epoch and distro', async () => {
    const { body } = await document(rocky, 'cyclonedx-json');
    expect(cycloneDxErrors(body)).toEqual([]);
    expect((body['metadata'] as Json)['properties']).toBeUndefined();
    const purls = cycloneDxPurls(body) as string[];
    expect(purls.map((purl) => /^pkg:rpm\/rocky\/([^@]+)@/.exec(purl)?.[1]).sort()).toEqual(
      rpmFixture().expected.map((row) => row.name),
    );
    expect(purls).toContain('pkg:rpm/rocky/tinyepoch@1.0~rc1-3.fc39?arch=noarch&distro=rocky-9.3&epoch=2');
    const spdx = await document(rocky);
    expect(spdxProblems(spdx.body)).toEqual([]);
    expect(spdxPurls(spdx.body)).toEqual(purls);
  });

  it('answers 404 once the image is gone from Docker; the host says DockerNotFoundError', async () => {
    await importBusyboxImage(docker, { repository: 'sbom/gone', tag: '1', extraFile: { path: '/gone', content: 'x' } });
    const gone = await docker.createContainer({ name: 'gone', Image: 'sbom/gone:1', Cmd: ['true'] });
    await hub.refresh();
    // Removed by force: the stopped container keeps its record and a dangling image id.
    const imageId = (await docker.getContainer(gone.id).inspect()).Image;
    const removed = await dockerd.cli(['rmi', '-f', imageId]);
    if (removed.code !== 0) throw new Error(`docker rmi failed: ${removed.stderr}`);
    const exported = dockerd.dockerHost.exportImage?.(imageId, new AbortController().signal);
    await expect(exported?.[Symbol.asyncIterator]().next()).rejects.toThrow(DockerNotFoundError);
    await expectJsonError(await hub.api(`/api/v1/containers/${gone.id}/sbom`), 404);
  });

  it('refuses an unknown format with 400 and an unknown container with 404', async () => {
    await expectJsonError(await hub.api(`/api/v1/containers/${debian}/sbom?format=spdx-xml`), 400);
    await expectJsonError(await hub.api('/api/v1/containers/nope/sbom'), 404);
  });
});
