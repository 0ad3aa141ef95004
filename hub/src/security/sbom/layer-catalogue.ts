/**
 * One layer, read on its own: the files the cataloguers want (each reduced to what it keeps) and
 * the whiteouts (`.wh.<name>` deletes `<name>`, `.wh..wh..opq` hides everything lower layers put
 * in its directory). Layers are read in whatever order the archive stores them, since only
 * `manifest.json` (possibly last) says their order; `mergeLayers` then applies them bottom-up.
 */
import type { ByteSource } from './byte-reader';
import { type Cataloguer, FileTooLargeError, type KeptFile } from './cataloguer';
import { layerTarChunks } from './layer-stream';
import { readTar } from './tar-reader';

export interface KeptValue {
  cataloguer: string;
  value: unknown;
}

export interface LayerFindings {
  /** By absolute path; null: the file was read and kept nothing, and still hides a lower layer's file. */
  files: Map<string, KeptValue | null>;
  /** Absolute paths deleted, with everything under them. */
  whiteouts: string[];
  /** Absolute directories whose lower-layer contents are hidden. */
  opaqueDirs: string[];
  warnings: string[];
}

const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

export async function catalogueLayer(source: ByteSource, cataloguers: readonly Cataloguer[]): Promise<LayerFindings> {
  const findings: LayerFindings = { files: new Map(), whiteouts: [], opaqueDirs: [], warnings: [] };
  for await (const entry of readTar(layerTarChunks(source))) {
    const path = `/${entry.path}`;
    const slash = path.lastIndexOf('/');
    const base = path.slice(slash + 1);
    const dir = path.slice(0, slash);
    if (base === OPAQUE) {
      findings.opaqueDirs.push(dir === '' ? '/' : dir);
      continue;
    }
    if (base.startsWith(WHITEOUT)) {
      findings.whiteouts.push(`${dir}/${base.slice(WHITEOUT.length)}`);
      continue;
    }
    if (entry.type === 'hardlink' && entry.linkPath !== undefined) {
      // The target came earlier in the same layer; what it kept is this path's too.
      const target = findings.files.get(`/${entry.linkPath.replace(/^\.?\/+/, '')}`);
      if (target !== undefined) findings.files.set(path, target);
      continue;
    }
    if (entry.type !== 'file') continue;
    const cataloguer = cataloguers.find((candidate) => candidate.selects(path, entry.mode, entry.size));
    if (!cataloguer) continue;
    try {
      const value = await cataloguer.read(entry.body(), entry.size, path);
      findings.files.set(path, value === undefined ? null : { cataloguer: cataloguer.name, value });
    } catch (error) {
      if (!(error instanceof FileTooLargeError)) throw error;
      findings.warnings.push(error.message);
      findings.files.set(path, null);
    }
  }
  return findings;
}

const within = (path: string, dir: string) => dir === '/' || path === dir || path.startsWith(`${dir}/`);

/** The kept files of the final filesystem, lowest layer first. */
export function mergeLayers(layers: LayerFindings[]): Map<string, KeptValue> {
  const merged = new Map<string, KeptValue>();
  for (const layer of layers) {
    for (const dir of layer.opaqueDirs) {
      for (const path of [...merged.keys()]) if (path !== dir && within(path, dir)) merged.delete(path);
    }
    for (const gone of layer.whiteouts) {
      for (const path of [...merged.keys()]) if (within(path, gone)) merged.delete(path);
    }
    for (const [path, kept] of layer.files) {
      if (kept === null) merged.delete(path);
      else merged.set(path, kept);
    }
  }
  return merged;
}

/** The merged files of one cataloguer, sorted by path (stable documents). */
export function keptFilesOf(merged: Map<string, KeptValue>, cataloguer: string): KeptFile<unknown>[] {
  return [...merged]
    .filter(([, kept]) => kept.cataloguer === cataloguer)
    .map(([path, kept]) => ({ path, value: kept.value }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
