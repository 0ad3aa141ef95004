/**
 * Package URLs (https://github.com/package-url/purl-spec): `pkg:type/namespace/name@version?qualifiers`.
 * Each namespace segment, the name and the version are percent-encoded (`@` → `%40`, `+` → `%2B`;
 * `:` stays, as the spec's examples write Debian epochs), qualifiers sorted by key, empty ones left out.
 * `%2B` is the spec's canonical form (ECMA-427: `+` is not a permitted character; its test suite
 * builds `pkg:deb/debian/attr@1:2.4.47-2%2Bb1`), though packageurl-js and packageurl-go keep `+`:
 * purls from other tools are compared decoded (scanners/scanner-dialect.ts).
 */
import type { ImageDistro, PackageType } from '../sbom-model';

export function encodePurlSegment(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ':');
}

export interface PurlParts {
  type: PackageType;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string | undefined>;
  subpath?: string;
}

export function formatPurl(parts: PurlParts): string {
  let purl = `pkg:${parts.type}/`;
  if (parts.namespace) {
    purl += `${parts.namespace
      .split('/')
      .filter((segment) => segment !== '')
      .map(encodePurlSegment)
      .join('/')}/`;
  }
  purl += encodePurlSegment(parts.name);
  if (parts.version) purl += `@${encodePurlSegment(parts.version)}`;
  const qualifiers = Object.entries(parts.qualifiers ?? {})
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (qualifiers.length > 0) {
    purl += `?${qualifiers.map(([key, value]) => `${key.toLowerCase()}=${encodePurlSegment(value)}`).join('&')}`;
  }
  if (parts.subpath) purl += `#${parts.subpath.split('/').map(encodePurlSegment).join('/')}`;
  return purl;
}

/** The `distro` qualifier of OS packages: `debian-12`, `alpine-3.19.1`; the id alone without a version. */
export function distroQualifier(distro: ImageDistro | undefined): string | undefined {
  if (!distro) return undefined;
  return distro.versionId ? `${distro.id}-${distro.versionId}` : distro.id;
}

/** PEP 503 normalisation, which the purl spec asks of pypi names: lower case, runs of `-_.` as one `-`. */
export function normalizePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}
