/**
 * What the SBOM generator finds in an image, and what the vulnerability matcher reads: the one
 * contract between `hub/src/security/sbom/` (reading layers) and `hub/src/security/osv/` (matching
 * against OSV data). Plain data, so it is cached by image digest and crosses the edge protocol.
 */

/** The package-URL type of each ecosystem the generator catalogues (https://github.com/package-url/purl-spec). */
export const PACKAGE_TYPES = ['deb', 'apk', 'rpm', 'npm', 'pypi', 'golang', 'maven'] as const;
export type PackageType = (typeof PACKAGE_TYPES)[number];

/** The operating system of the image, from `/etc/os-release` (or `/usr/lib/os-release`). */
export interface ImageDistro {
  /** `ID`: `debian`, `ubuntu`, `alpine`, `rhel`, `almalinux`, `rocky`, `fedora`, ... */
  id: string;
  /** `VERSION_ID`: `12`, `22.04`, `3.19.1`, `9.3`. */
  versionId?: string;
  /** `VERSION_CODENAME` when present: `bookworm`. */
  codename?: string;
  prettyName?: string;
}

export interface SbomPackage {
  type: PackageType;
  /** The purl namespace: the distro for OS packages (`debian`, `alpine`), the npm scope (`@babel`), the Maven group id, the Go module's host path. */
  namespace?: string;
  name: string;
  version: string;
  /** The full package URL, qualifiers included (`pkg:deb/debian/openssl@3.0.11-1~deb12u2?arch=amd64&distro=debian-12`). */
  purl: string;
  /**
   * The source package the binary package was built from, when the database says (dpkg `Source:`,
   * apk `o:`, rpm `SOURCERPM`): Debian and Alpine advisories are published per source package.
   */
  source?: { name: string; version?: string };
  /** Declared licences as the package states them (SPDX identifiers where it uses them). */
  licenses: string[];
  /** Where it was found: the package database or manifest path inside the image. */
  location: string;
}

export interface ImageSbom {
  /** The digest the SBOM is cached by: the image's config digest (its local id, `sha256:…`). */
  imageId: string;
  /** The reference it was read for (`nginx:1.27`), for the document's name. */
  imageRef: string;
  distro?: ImageDistro;
  packages: SbomPackage[];
  /** ISO 8601. */
  generatedAt: string;
  /** What the generator skipped and why (garbage lines in a database, a file over its size cap). */
  warnings?: string[];
}
