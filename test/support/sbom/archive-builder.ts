/**
 * `docker save` archives built in memory, in Docker's classic layout (manifest.json after the
 * layers, as Docker 20.10 writes it) and in the OCI layout (gzip layers as blobs, index.json →
 * manifest), from file trees turned into layer tars (whiteouts included).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'fflate';
import type { FileTree } from './image-fixture';
import { buildTar, type TarSpec } from './tar-builder';

export function layerTar(tree: FileTree, whiteouts: string[] = [], opaqueDirs: string[] = []): Uint8Array {
  const dirs = new Set<string>();
  for (const path of [...Object.keys(tree), ...whiteouts.map((gone) => gone)]) {
    const parts = path.split('/');
    for (let index = 1; index < parts.length; index++) dirs.add(parts.slice(0, index).join('/'));
  }
  const entries: TarSpec[] = [...dirs].sort().map((path) => ({ path, type: 'dir' }));
  for (const gone of whiteouts) {
    const slash = gone.lastIndexOf('/');
    entries.push({ path: `${gone.slice(0, slash + 1)}.wh.${gone.slice(slash + 1)}`, content: '' });
  }
  for (const dir of opaqueDirs) entries.push({ path: `${dir}/.wh..wh..opq`, content: '' });
  for (const [path, file] of Object.entries(tree)) {
    entries.push(
      file.symlink !== undefined
        ? { path, type: 'symlink', target: file.symlink }
        : { path, content: file.content ?? '', mode: file.mode ?? 0o644 },
    );
  }
  return buildTar(entries);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const encoder = new TextEncoder();

export interface Archive {
  bytes: Uint8Array;
  imageId: string;
}

export function classicArchive(layers: Uint8Array[]): Archive {
  const ids = layers.map((layer) => sha256(layer));
  const config = encoder.encode(
    JSON.stringify({ rootfs: { type: 'layers', diff_ids: ids.map((id) => `sha256:${id}`) } }),
  );
  const configHex = sha256(config);
  const manifest = [
    { Config: `${configHex}.json`, RepoTags: ['fixture:1'], Layers: ids.map((id) => `${id}/layer.tar`) },
  ];
  // Layers in reverse, so that order must come from the manifest, which comes last as in Docker 20.10.
  const entries: TarSpec[] = [];
  for (let index = layers.length - 1; index >= 0; index--) {
    entries.push({ path: ids[index] as string, type: 'dir' });
    entries.push({ path: `${ids[index]}/VERSION`, content: '1.0' });
    entries.push({ path: `${ids[index]}/layer.tar`, content: layers[index] as Uint8Array });
  }
  entries.push({ path: `${configHex}.json`, content: config });
  entries.push({ path: 'manifest.json', content: JSON.stringify(manifest) });
  return { bytes: buildTar(entries), imageId: `sha256:${configHex}` };
}

export function ociArchive(layers: Uint8Array[]): Archive {
  const blobs: TarSpec[] = [];
  const descriptors = layers.map((layer) => {
    const gz = gzipSync(layer);
    const hex = sha256(gz);
    blobs.push({ path: `blobs/sha256/${hex}`, content: gz });
    return { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: `sha256:${hex}`, size: gz.length };
  });
  const config = encoder.encode(JSON.stringify({ rootfs: { type: 'layers' } }));
  const configHex = sha256(config);
  blobs.push({ path: `blobs/sha256/${configHex}`, content: config });
  const manifest = encoder.encode(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: `sha256:${configHex}`,
        size: config.length,
      },
      layers: descriptors,
    }),
  );
  const manifestHex = sha256(manifest);
  blobs.push({ path: `blobs/sha256/${manifestHex}`, content: manifest });
  const index = {
    schemaVersion: 2,
    manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: `sha256:${manifestHex}` }],
  };
  return {
    bytes: buildTar([
      { path: 'oci-layout', content: '{"imageLayoutVersion":"1.0.0"}' },
      { path: 'index.json', content: JSON.stringify(index) },
      { path: 'blobs', type: 'dir' },
      { path: 'blobs/sha256', type: 'dir' },
      ...blobs.reverse(),
    ]),
    imageId: `sha256:${configHex}`,
  };
}
