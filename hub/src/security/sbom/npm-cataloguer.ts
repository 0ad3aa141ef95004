/**
 * npm packages: the `package.json` of each package directory under a `node_modules` folder
 * (`…/node_modules/name/package.json`, `…/node_modules/@scope/name/package.json`); the files
 * deeper inside a package (`lib/package.json`) and the application's own manifest outside any
 * `node_modules` are not installed packages. A manifest without a name or version is skipped and counted.
 */
import type { SbomPackage } from '../sbom-model';
import { type Cataloguer, MiB, readCappedText, skippedWarning } from './cataloguer';
import { formatPurl } from './purl';

const MANIFEST = /\/node_modules\/(?:(@[^/]+)\/)?([^/@.][^/]*)\/package\.json$/;

export type NpmManifest = { name: string; version: string; licenses: string[] } | { invalid: string };

function licensesOf(json: Record<string, unknown>): string[] {
  const one = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string') {
      return (value as { type: string }).type;
    }
    return undefined;
  };
  const license = one(json['license']);
  if (license) return [license];
  // The old `licenses: [{type, url}]` form.
  const list = json['licenses'];
  return Array.isArray(list) ? list.map(one).filter((value): value is string => value !== undefined) : [];
}

export function parseNpmManifest(text: string): NpmManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { invalid: 'not JSON' };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { invalid: 'not an object' };
  const record = json as Record<string, unknown>;
  const name = record['name'];
  const version = record['version'];
  if (typeof name !== 'string' || name === '' || typeof version !== 'string' || version === '') {
    return { invalid: 'no name or version' };
  }
  return { name, version, licenses: licensesOf(record) };
}

export function npmPackage(
  manifest: { name: string; version: string; licenses: string[] },
  location: string,
): SbomPackage {
  const scoped = /^(@[^/]+)\/(.+)$/.exec(manifest.name);
  const namespace = scoped?.[1];
  const name = scoped?.[2] ?? manifest.name;
  return {
    type: 'npm',
    ...(namespace ? { namespace } : {}),
    name,
    version: manifest.version,
    purl: formatPurl({ type: 'npm', ...(namespace ? { namespace } : {}), name, version: manifest.version }),
    licenses: manifest.licenses,
    location,
  };
}

export const npmCataloguer: Cataloguer<NpmManifest> = {
  name: 'npm',
  selects: (path) => MANIFEST.test(path),
  read: async (body, size, path) => parseNpmManifest(await readCappedText(body, size, MiB, path)),
  catalogue(files) {
    const packages: SbomPackage[] = [];
    let invalid = 0;
    for (const file of files) {
      if ('invalid' in file.value) invalid++;
      else packages.push(npmPackage(file.value, file.path));
    }
    return {
      packages,
      warnings: skippedWarning('node_modules', invalid, 'package.json files without a name and version, or not JSON,'),
    };
  },
};
