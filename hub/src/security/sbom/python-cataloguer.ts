/**
 * Python distributions: `*.dist-info/METADATA` (wheels, pip) and `*.egg-info/PKG-INFO` (or an
 * `.egg-info` file: setuptools' older layout), RFC 822 headers up to the first blank line.
 * Licences: `License-Expression` (PEP 639), else a short `License:` line, else the licence trove classifiers.
 */
import type { SbomPackage } from '../sbom-model';
import { type Cataloguer, MiB, readCappedText, skippedWarning } from './cataloguer';
import { formatPurl, normalizePypiName } from './purl';

const METADATA = /\.dist-info\/METADATA$|\.egg-info\/PKG-INFO$|\.egg-info$/;

export type PythonMetadata = { name: string; version: string; licenses: string[] } | { invalid: string };

export function parsePythonMetadata(text: string): PythonMetadata {
  const headers: Array<[string, string]> = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') break;
    if ((line[0] === ' ' || line[0] === '\t') && headers.length > 0) {
      const last = headers[headers.length - 1] as [string, string];
      last[1] += `\n${line.trim()}`;
      continue;
    }
    const match = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
    if (match) headers.push([(match[1] ?? '').toLowerCase(), (match[2] ?? '').trim()]);
  }
  const first = (key: string) => headers.find(([name]) => name === key)?.[1];
  const name = first('name');
  const version = first('version');
  if (!name || !version || /\s/.test(name) || /\s/.test(version)) return { invalid: 'no Name or Version' };
  const expression = first('license-expression');
  const license = first('license');
  const classifiers = headers
    .filter(([key, value]) => key === 'classifier' && value.startsWith('License ::'))
    .map(([, value]) => value.split('::').pop()?.trim() ?? '')
    .filter((value) => value !== '' && value !== 'OSI Approved');
  const licenses = expression
    ? [expression]
    : license && license !== 'UNKNOWN' && !license.includes('\n') && license.length <= 100
      ? [license]
      : classifiers;
  return { name, version, licenses };
}

export const pythonCataloguer: Cataloguer<PythonMetadata> = {
  name: 'python',
  selects: (path) => METADATA.test(path),
  read: async (body, size, path) => parsePythonMetadata(await readCappedText(body, size, 4 * MiB, path)),
  catalogue(files) {
    const packages: SbomPackage[] = [];
    let invalid = 0;
    for (const file of files) {
      if ('invalid' in file.value) {
        invalid++;
        continue;
      }
      const name = normalizePypiName(file.value.name);
      packages.push({
        type: 'pypi',
        name,
        version: file.value.version,
        purl: formatPurl({ type: 'pypi', name, version: file.value.version }),
        licenses: file.value.licenses,
        location: file.path,
      });
    }
    return { packages, warnings: skippedWarning('python metadata', invalid, 'files without a Name and Version') };
  },
};
