/**
 * The SBOM generator under workerd (Miniflare, the real runtime): an image archive streamed in as a
 * request body is catalogued exactly as on Node, and a corrupted one fails with the same error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageSbom } from '../../hub/src/security/sbom-model';
import { ROOT, WORKERD_BUILD_OPTIONS } from '../../scripts/build-workers.mjs';
import { classicArchive, layerTar, ociArchive } from '../support/sbom/archive-builder';
import { buildGoProgram, type GoProgram } from '../support/sbom/go-program';
import {
  comparable,
  DEBIAN_DELETED,
  DEBIAN_LAYER_3,
  debianFiles,
  expectedDebianPackages,
} from '../support/sbom/image-fixture';
import { removeRpmFixture, rpmFixture } from '../support/sbom/rpm-fixture';
import { COMPATIBILITY_DATE } from '../support/workers-hub';

describe('the SBOM generator under workerd', () => {
  let workDir: string;
  let mf: Miniflare;
  let go: GoProgram;
  let layers: Uint8Array[];

  beforeAll(async () => {
    go = buildGoProgram();
    layers = [layerTar(debianFiles(go)), layerTar({}, [DEBIAN_DELETED]), layerTar(DEBIAN_LAYER_3)];
    workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-sbom-'));
    const scriptPath = join(workDir, 'index.js');
    await build({
      ...WORKERD_BUILD_OPTIONS,
      entryPoints: [join(ROOT, 'test', 'support', 'sbom', 'workers-sbom-entry.ts')],
      outfile: scriptPath,
    });
    mf = new Miniflare({ modules: true, scriptPath, modulesRoot: workDir, compatibilityDate: COMPATIBILITY_DATE });
    await mf.ready;
  }, 120_000);

  afterAll(async () => {
    await mf?.dispose();
    removeRpmFixture();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  const post = (bytes: Uint8Array, imageId: string) =>
    mf.dispatchFetch('http://sbom.test/', { method: 'POST', body: bytes, headers: { 'x-image-id': imageId } });

  it('catalogues the classic and OCI layouts exactly as on Node', async () => {
    for (const archive of [classicArchive(layers), ociArchive(layers)]) {
      const response = await post(archive.bytes, archive.imageId);
      expect(response.status).toBe(200);
      const sbom = (await response.json()) as ImageSbom;
      expect(sbom.distro?.id).toBe('debian');
      expect(comparable(sbom, expectedDebianPackages(go.goVersion))).toEqual(expectedDebianPackages(go.goVersion));
    }
  });

  it('reads rpm databases (SQLite and Berkeley DB) as on Node: the portable readers, no native module', async () => {
    const { sqlite, bdb, expected } = rpmFixture();
    const archive = classicArchive([
      layerTar({
        'etc/os-release': { content: 'ID=rocky\nVERSION_ID=9.3\n' },
        'var/lib/rpm/rpmdb.sqlite': { content: sqlite },
      }),
      layerTar({ 'usr/lib/sysimage/rpm/Packages': { content: bdb } }),
    ]);
    const response = await post(archive.bytes, archive.imageId);
    expect(response.status).toBe(200);
    const sbom = (await response.json()) as ImageSbom;
    expect(sbom.warnings).toBeUndefined();
    for (const location of ['/var/lib/rpm/rpmdb.sqlite', '/usr/lib/sysimage/rpm/Packages']) {
      const names = sbom.packages.filter((pkg) => pkg.location === location).map((pkg) => pkg.name);
      expect(names.sort()).toEqual(expected.map((row) => row.name));
    }
    expect(sbom.packages.map((pkg) => pkg.purl)).toContain(
      'pkg:rpm/rocky/tinyepoch@1.0~rc1-3.fc39?arch=noarch&distro=rocky-9.3&epoch=2',
    );
  });

  it('fails a corrupted layer with the generator’s error', async () => {
    const archive = classicArchive([layers[0]?.slice(0, 4096) as Uint8Array]);
    const response = await post(archive.bytes, archive.imageId);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      name: 'ImageArchiveError',
      error: expect.stringMatching(/^layer [0-9a-f]{64}\/layer\.tar: truncated/),
    });
  });
});
