/**
 * The SBOM of an image from its `docker save` stream: every layer catalogued as it streams by,
 * merged in the manifest's order, the distro read from os-release, then each cataloguer's packages.
 * Nothing here depends on where the stream comes from (a local Engine, an edge agent's chunks).
 */
import type { ImageSbom, SbomPackage } from '../sbom-model';
import type { ByteSource } from './byte-reader';
import type { Cataloguer } from './cataloguer';
import { CATALOGUERS } from './cataloguers';
import { readImageArchive } from './image-archive';
import { keptFilesOf, mergeLayers } from './layer-catalogue';
import { parseOsRelease } from './os-release';

export interface SbomTarget {
  imageId: string;
  imageRef: string;
}

export async function generateSbom(
  archive: ByteSource,
  target: SbomTarget,
  options: { now?: () => Date; cataloguers?: readonly Cataloguer[] } = {},
): Promise<ImageSbom> {
  const cataloguers = options.cataloguers ?? CATALOGUERS;
  const { layers } = await readImageArchive(archive, cataloguers, target.imageId);
  const merged = mergeLayers(layers);
  const osRelease = merged.get('/etc/os-release') ?? merged.get('/usr/lib/os-release');
  const distro = typeof osRelease?.value === 'string' ? parseOsRelease(osRelease.value) : undefined;
  const context = distro ? { distro } : {};
  const packages: SbomPackage[] = [];
  const warnings = layers.flatMap((layer) => layer.warnings);
  for (const cataloguer of cataloguers) {
    const result = cataloguer.catalogue(keptFilesOf(merged, cataloguer.name), context);
    packages.push(...result.packages);
    warnings.push(...result.warnings);
  }
  const sbom: ImageSbom = {
    imageId: target.imageId,
    imageRef: target.imageRef,
    ...(distro ? { distro } : {}),
    packages: dedupe(packages),
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
  };
  if (warnings.length > 0) sbom.warnings = warnings;
  return sbom;
}

/** The same package at the same place once (a hard link, a status file listing a package twice). */
function dedupe(packages: SbomPackage[]): SbomPackage[] {
  const seen = new Set<string>();
  return packages.filter((pkg) => {
    const key = `${pkg.purl} ${pkg.location}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
