/**
 * Alpine packages: `/lib/apk/db/installed`, stanzas of one-letter fields (`P:` name, `V:` version,
 * `A:` arch, `L:` licence, `o:` origin, the source package Alpine's advisories name). Every stanza
 * of that file is an installed package.
 */
import type { SbomPackage } from '../sbom-model';
import {
  type CatalogueContext,
  type CatalogueResult,
  type Cataloguer,
  MiB,
  readCappedText,
  skippedWarning,
} from './cataloguer';
import { distroQualifier, formatPurl } from './purl';

const INSTALLED = '/lib/apk/db/installed';

/** Alpine's `L:` is an SPDX-like expression (`MIT AND BSD-2-Clause`, `GPL-2.0-only`); kept whole. */
export function apkPackages(text: string, location: string, context: CatalogueContext): CatalogueResult {
  const packages: SbomPackage[] = [];
  let garbage = 0;
  let invalid = 0;
  let fields = new Map<string, string>();
  const finish = () => {
    if (fields.size === 0) return;
    const name = fields.get('P');
    const version = fields.get('V');
    if (!name || !version || /\s/.test(name) || /\s/.test(version)) {
      invalid++;
    } else {
      const namespace = context.distro?.id ?? 'alpine';
      const origin = fields.get('o');
      const license = fields.get('L');
      packages.push({
        type: 'apk',
        namespace,
        name,
        version,
        purl: formatPurl({
          type: 'apk',
          namespace,
          name,
          version,
          qualifiers: { arch: fields.get('A'), distro: distroQualifier(context.distro) },
        }),
        ...(origin ? { source: { name: origin, version } } : {}),
        licenses: license ? [license] : [],
        location,
      });
    }
    fields = new Map();
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      finish();
      continue;
    }
    const match = /^([A-Za-z]):(.*)$/.exec(line);
    if (!match) {
      garbage++;
      continue;
    }
    // A package lists many files (F:/R:); only the first of each header field matters.
    if (!fields.has(match[1] ?? '')) fields.set(match[1] ?? '', (match[2] ?? '').trim());
  }
  finish();
  return {
    packages,
    warnings: [
      ...skippedWarning(location, garbage, 'garbage lines'),
      ...skippedWarning(location, invalid, 'records without a valid P: or V:'),
    ],
  };
}

export const apkCataloguer: Cataloguer<string> = {
  name: 'apk',
  selects: (path) => path === INSTALLED,
  read: (body, size, path) => readCappedText(body, size, 64 * MiB, path),
  catalogue(files, context) {
    const results = files.map((file) => apkPackages(file.value, file.path, context));
    return {
      packages: results.flatMap((result) => result.packages),
      warnings: results.flatMap((result) => result.warnings),
    };
  },
};
