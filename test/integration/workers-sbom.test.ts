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
