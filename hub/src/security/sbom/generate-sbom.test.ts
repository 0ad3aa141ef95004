import { beforeAll, describe, expect, it } from 'vitest';
import { classicArchive, layerTar, ociArchive } from '../../../../test/support/sbom/archive-builder';
import { buildGoProgram, type GoProgram } from '../../../../test/support/sbom/go-program';
import {
  ALPINE_FILES,
  comparable,
  DEBIAN_DELETED,
  DEBIAN_LAYER_3,
  debianFiles,
  EXPECTED_ALPINE_PACKAGES,
  expectedDebianPackages,
} from '../../../../test/support/sbom/image-fixture';
import { inChunks } from '../../../../test/support/sbom/tar-builder';
import { generateSbom } from './generate-sbom';
import { ImageArchiveError } from './image-archive';

let go: GoProgram;
let debianLayers: Uint8Array[];

beforeAll(() => {
  go = buildGoProgram();
  debianLayers = [layerTar(debianFiles(go)), layerTar({}, [DEBIAN_DELETED]), layerTar(DEBIAN_LAYER_3)];
});

const now = () => new Date('2026-11-27T00:00:00Z');

describe('generateSbom', () => {
  it('catalogues every ecosystem of a classic docker save archive, layers merged in the manifest order', async () => {
    const archive = classicArchive(debianLayers);
    const sbom = await generateSbom(
      inChunks(archive.bytes, [65536, 3, 4096]),
      { imageId: archive.imageId, imageRef: 'fixture:1' },
      { now },
    );
    expect(sbom.distro).toEqual({
      id: 'debian',
      versionId: '12',
      codename: 'bookworm',
      prettyName: 'Debian GNU/Linux 12 (bookworm)',
    });
    expect(comparable(sbom, expectedDebianPackages(go.goVersion))).toEqual(expectedDebianPackages(go.goVersion));
    expect(sbom.warnings).toEqual(['/var/lib/dpkg/status: 1 garbage lines skipped']);
    expect(sbom.generatedAt).toBe('2026-11-27T00:00:00.000Z');
    expect(sbom.packages.find((pkg) => pkg.name === 'libssl3')).toEqual({
      type: 'deb',
      namespace: 'debian',
      name: 'libssl3',
      version: '3.0.11-1~deb12u2',
      purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
      source: { name: 'openssl', version: '3.0.11-1~deb12u2' },
      licenses: [],
      location: '/var/lib/dpkg/status',
    });
  });

  it('reads the OCI layout with gzip layers the same way', async () => {
    const archive = ociArchive(debianLayers);
    const sbom = await generateSbom(inChunks(archive.bytes, [10000]), {
      imageId: archive.imageId,
      imageRef: 'fixture:1',
    });
    expect(comparable(sbom, expectedDebianPackages(go.goVersion))).toEqual(expectedDebianPackages(go.goVersion));
  });

  it('applies whiteouts and opaque directories only to lower layers', async () => {
    const without = classicArchive([
      layerTar(debianFiles(go)),
      layerTar({}, [], ['app/node_modules', 'usr/local/bin']),
    ]);
    const sbom = await generateSbom(inChunks(without.bytes, [65536]), { imageId: without.imageId, imageRef: 'x' });
    expect(sbom.packages.some((pkg) => pkg.type === 'npm' || pkg.type === 'golang')).toBe(false);
    expect(sbom.packages.some((pkg) => pkg.type === 'pypi')).toBe(true);
    // The layer that deletes a folder may put a new file in it.
    const readded = classicArchive([
      layerTar(debianFiles(go)),
      layerTar(
        { 'app/node_modules/@babel/core/package.json': { content: '{"name":"@babel/core","version":"8.0.0"}' } },
        [DEBIAN_DELETED],
      ),
    ]);
    const again = await generateSbom(inChunks(readded.bytes, [65536]), { imageId: readded.imageId, imageRef: 'x' });
    expect(again.packages.filter((pkg) => pkg.namespace === '@babel').map((pkg) => pkg.purl)).toEqual([
      'pkg:npm/%40babel/core@8.0.0',
    ]);
  });

  it('catalogues an Alpine apk database, counting its garbage', async () => {
    const archive = classicArchive([layerTar(ALPINE_FILES)]);
    const sbom = await generateSbom(inChunks(archive.bytes), { imageId: archive.imageId, imageRef: 'alpine-like:1' });
    expect(sbom.distro?.id).toBe('alpine');
    expect(comparable(sbom, EXPECTED_ALPINE_PACKAGES)).toEqual(EXPECTED_ALPINE_PACKAGES);
    expect(sbom.warnings).toEqual([
      '/lib/apk/db/installed: 1 garbage lines skipped',
      '/lib/apk/db/installed: 1 records without a valid P: or V: skipped',
    ]);
  });

  it('fails the scan with a clear error for a corrupted layer, a missing layer or no manifest', async () => {
    const truncatedLayer = debianLayers[0]?.slice(0, 5000) as Uint8Array;
    const archive = classicArchive([truncatedLayer]);
    await expect(generateSbom(inChunks(archive.bytes), { imageId: archive.imageId, imageRef: 'x' })).rejects.toThrow(
      /^layer [0-9a-f]{64}\/layer\.tar: truncated/,
    );
    const badGzip = ociArchive([debianLayers[2] as Uint8Array]);
    const bytes = badGzip.bytes.slice();
    // The gzip blob is the last entry before the config and manifest (blobs are written reversed).
    const gzStart = bytes.findIndex(
      (_, index) => bytes[index] === 0x1f && bytes[index + 1] === 0x8b && index % 512 === 0,
    );
    bytes.fill(0xee, gzStart + 12, gzStart + 40);
    await expect(generateSbom(inChunks(bytes), { imageId: badGzip.imageId, imageRef: 'x' })).rejects.toThrow(
      /bad gzip data/,
    );
    await expect(generateSbom(inChunks(new Uint8Array(1024)), { imageId: 'sha256:00', imageRef: 'x' })).rejects.toThrow(
      ImageArchiveError,
    );
  });
});
