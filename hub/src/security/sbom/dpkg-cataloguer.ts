/**
 * Debian packages: `/var/lib/dpkg/status` (one stanza per package) and the `status.d/` files
 * distroless images write instead (one stanza per file; `*.md5sums` beside them are not stanzas).
 * Only packages whose `Status` ends in `installed` count (removed-but-configured and half-installed
 * ones are not in the image); the `Source:` field, with its version when it differs, names the
 * source package Debian's advisories are published for. dpkg keeps no licence here.
 */
import type { SbomPackage } from '../sbom-model';
import {
  type CatalogueContext,
  type CatalogueResult,
  type Cataloguer,
  type KeptFile,
  MiB,
  readCappedText,
  skippedWarning,
} from './cataloguer';
import { distroQualifier, formatPurl } from './purl';

const STATUS = '/var/lib/dpkg/status';
const STATUS_DIR = '/var/lib/dpkg/status.d/';

export interface Stanzas {
  stanzas: Map<string, string>[];
  /** Lines that are neither a field nor a continuation. */
  garbage: number;
}

/** RFC 822-like stanzas separated by blank lines; a field's continuation lines start with a space or tab. */
export function parseControlStanzas(text: string): Stanzas {
  const stanzas: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let lastKey: string | undefined;
  let garbage = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current.size > 0) stanzas.push(current);
      current = new Map();
      lastKey = undefined;
      continue;
    }
    if ((line[0] === ' ' || line[0] === '\t') && lastKey !== undefined) {
      current.set(lastKey, `${current.get(lastKey)}\n${line.trim()}`);
      continue;
    }
    const match = /^([A-Za-z0-9][A-Za-z0-9-]*):[ \t]*(.*)$/.exec(line);
    if (!match) {
      garbage++;
      lastKey = undefined;
      continue;
    }
    lastKey = match[1] ?? '';
    current.set(lastKey, (match[2] ?? '').trimEnd());
  }
  if (current.size > 0) stanzas.push(current);
  return { stanzas, garbage };
}

const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]*$/;

export function dpkgPackages(text: string, location: string, context: CatalogueContext): CatalogueResult {
  const { stanzas, garbage } = parseControlStanzas(text);
  const packages: SbomPackage[] = [];
  let invalid = 0;
  for (const stanza of stanzas) {
    const status = stanza.get('Status');
    if (status !== undefined && status.trim().split(/\s+/)[2] !== 'installed') continue;
    const name = stanza.get('Package');
    const version = stanza.get('Version');
    if (!name || !version || !PACKAGE_NAME.test(name) || /\s/.test(version)) {
      invalid++;
      continue;
    }
    const architecture = stanza.get('Architecture');
    const sourceField = /^(\S+)(?:\s+\(([^)\s]+)\))?$/.exec(stanza.get('Source') ?? '');
    const namespace = context.distro?.id ?? 'debian';
    const pkg: SbomPackage = {
      type: 'deb',
      namespace,
      name,
      version,
      purl: formatPurl({
        type: 'deb',
        namespace,
        name,
        version,
        qualifiers: { arch: architecture, distro: distroQualifier(context.distro) },
      }),
      source: sourceField ? { name: sourceField[1] ?? name, version: sourceField[2] ?? version } : { name, version },
      licenses: [],
      location,
    };
    packages.push(pkg);
  }
  return {
    packages,
    warnings: [
      ...skippedWarning(location, garbage, 'garbage lines'),
      ...skippedWarning(location, invalid, 'records without a valid Package or Version'),
    ],
  };
}

export const dpkgCataloguer: Cataloguer<string> = {
  name: 'dpkg',
  selects: (path) =>
    path === STATUS ||
    (path.startsWith(STATUS_DIR) && !path.slice(STATUS_DIR.length).includes('/') && !path.endsWith('.md5sums')),
  read: (body, size, path) => readCappedText(body, size, 64 * MiB, path),
  catalogue(files: KeptFile<string>[], context) {
    const results = files.map((file) => dpkgPackages(file.value, file.path, context));
    return {
      packages: results.flatMap((result) => result.packages),
      warnings: results.flatMap((result) => result.warnings),
    };
  },
};
