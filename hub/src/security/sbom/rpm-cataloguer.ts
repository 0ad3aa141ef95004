/**
 * RPM packages from the rpm database, in the three formats current images carry: SQLite
 * (`rpmdb.sqlite`, rpm ≥ 4.16: Fedora ≥ 33, RHEL and its rebuilds ≥ 9), Berkeley DB (`Packages`,
 * RHEL/CentOS 7 and 8, Amazon Linux 2) and rpm's own NDB (`Packages.db`, openSUSE and SLES 15). Each
 * holds one rpm header blob per installed package.
 *
 * The database is read whole while its layer streams by (both formats need random access) and
 * reduced at once to the few header fields an SBOM needs, so a layer keeps kilobytes, not the file.
 * A database that cannot be read becomes a warning for that file; the other cataloguers' packages
 * are still reported.
 */

import { errorMessage } from '../../../../shared/error-message';
import type { ImageDistro, SbomPackage } from '../sbom-model';
import { bdbKeyNumber, readBdbHash } from './bdb-hash-reader';
import {
  type CatalogueContext,
  type CatalogueResult,
  type Cataloguer,
  type KeptFile,
  MiB,
  readCapped,
  skippedWarning,
} from './cataloguer';
import { readNdb } from './ndb-reader';
import { distroQualifier, formatPurl } from './purl';
import { parseRpmHeader, parseSourceRpm, type RpmHeader } from './rpm-header';
import { SqliteFile, tableRootPage } from './sqlite-reader';

const DB_DIRS = ['/var/lib/rpm/', '/usr/lib/sysimage/rpm/'];
const BACKENDS = { 'rpmdb.sqlite': 'sqlite', Packages: 'bdb', 'Packages.db': 'ndb' } as const;
export type Backend = (typeof BACKENDS)[keyof typeof BACKENDS];

/**
 * A container image's database is 5–30 MiB; a full server's (1,500 packages and their file lists)
 * around 100–200 MiB. The cap bounds memory like the other cataloguers' caps while leaving room for
 * large images; on Workers, whose isolates have 128 MB, a database near it cannot be read.
 */
export const RPM_DB_CAP = 256 * MiB;
/** rpm accepts headers up to 256 MiB of data; real ones (kernel-modules, texlive) stay under a few MiB. */
const HEADER_CAP = 32 * MiB;

export type RpmDatabase = { headers: RpmHeader[]; unreadable: number } | { error: string };
/** What is kept of a file: a database, or the size of SQLite's write-ahead log beside one (never read). */
export type RpmFile = RpmDatabase | { walBytes: number };
const WAL = 'rpmdb.sqlite-wal';

const isWal = (path: string) => DB_DIRS.some((dir) => path === `${dir}${WAL}`);

function backendOf(path: string): Backend | undefined {
  const dir = DB_DIRS.find((prefix) => path.startsWith(prefix));
  if (!dir) return undefined;
  const base = path.slice(dir.length);
  return Object.hasOwn(BACKENDS, base) ? BACKENDS[base as keyof typeof BACKENDS] : undefined;
}

/** The header blobs of a database: SQLite's `Packages` table, the BDB hash's values (key 0 holds a counter), NDB's blobs. */
function* headerBlobs(bytes: Uint8Array, backend: Backend): Generator<Uint8Array> {
  if (backend === 'ndb') {
    for (const { blob } of readNdb(bytes, HEADER_CAP)) yield blob;
    return;
  }
  if (backend === 'sqlite') {
    const file = new SqliteFile(bytes);
    for (const row of file.rows(tableRootPage(file, 'Packages'), HEADER_CAP)) {
      // `hnum INTEGER PRIMARY KEY` is the rowid, stored as NULL; the blob is the second column.
      const blob = row.values[1];
      yield blob instanceof Uint8Array ? blob : new Uint8Array(0);
    }
    return;
  }
  for (const entry of readBdbHash(bytes, HEADER_CAP)) {
    if (bdbKeyNumber(bytes, entry.key) !== 0) yield entry.value;
  }
}

/** Every header of the database; a header that does not parse is counted, a broken file is an error. */
export function readRpmDatabase(bytes: Uint8Array, backend: Backend): RpmDatabase {
  const headers: RpmHeader[] = [];
  let unreadable = 0;
  try {
    for (const blob of headerBlobs(bytes, backend)) {
      try {
        headers.push(parseRpmHeader(blob));
      } catch {
        unreadable++;
      }
    }
  } catch (error) {
    return { error: errorMessage(error) };
  }
  return { headers, unreadable };
}

/** The purl namespace of a distribution's packages, as the purl spec's examples name the vendors. */
export function rpmNamespace(distro: ImageDistro | undefined): string | undefined {
  const id = distro?.id;
  if (!id) return undefined;
  if (id === 'rhel') return 'redhat';
  if (id.startsWith('opensuse')) return 'opensuse';
  if (id === 'sles' || id === 'sled' || id === 'sle-micro') return 'suse';
  return id;
}

export function rpmPackage(header: RpmHeader, location: string, context: CatalogueContext): SbomPackage {
  const namespace = rpmNamespace(context.distro);
  const versionRelease = `${header.version}-${header.release}`;
  const source = header.sourceRpm ? parseSourceRpm(header.sourceRpm) : undefined;
  return {
    type: 'rpm',
    ...(namespace ? { namespace } : {}),
    name: header.name,
    version: header.epoch !== undefined ? `${header.epoch}:${versionRelease}` : versionRelease,
    purl: formatPurl({
      type: 'rpm',
      ...(namespace ? { namespace } : {}),
      name: header.name,
      version: versionRelease,
      qualifiers: {
        arch: header.arch,
        epoch: header.epoch?.toString(),
        distro: distroQualifier(context.distro),
      },
    }),
    ...(source ? { source } : {}),
    licenses: header.license ? [header.license] : [],
    location,
  };
}

const VALID_FIELD = /^[^\s/]+$/;

export function rpmPackages(database: RpmDatabase, location: string, context: CatalogueContext): CatalogueResult {
  if ('error' in database) return { packages: [], warnings: [`${location}: not read: ${database.error}`] };
  const packages: SbomPackage[] = [];
  let invalid = 0;
  for (const header of database.headers) {
    // Imported signing keys are recorded as packages named gpg-pubkey; they are not software.
    if (header.name === 'gpg-pubkey') continue;
    if (![header.name, header.version, header.release].every((field) => VALID_FIELD.test(field))) {
      invalid++;
      continue;
    }
    packages.push(rpmPackage(header, location, context));
  }
  return {
    packages,
    warnings: [
      ...skippedWarning(location, database.unreadable, 'unreadable headers'),
      ...skippedWarning(location, invalid, 'headers without a valid NAME, VERSION or RELEASE'),
    ],
  };
}

/** Newest first: rpm converts to SQLite (Fedora 33, RHEL 9) and to NDB (SUSE), and may leave the old file behind. */
const PREFERENCE: Backend[] = ['sqlite', 'ndb', 'bdb'];

/** One database per directory, the newest format present: the others are stale copies rpm no longer reads. */
function currentDatabases(files: KeptFile<RpmDatabase>[]) {
  const byDir = new Map<string, KeptFile<RpmDatabase>[]>();
  for (const file of files) {
    const dir = file.path.slice(0, file.path.lastIndexOf('/') + 1);
    byDir.set(dir, [...(byDir.get(dir) ?? []), file]);
  }
  const current: KeptFile<RpmDatabase>[] = [];
  const stale: string[] = [];
  for (const group of byDir.values()) {
    const rank = (file: KeptFile<RpmDatabase>) => PREFERENCE.indexOf(backendOf(file.path) ?? 'bdb');
    const [first, ...rest] = [...group].sort((a, b) => rank(a) - rank(b));
    if (first) current.push(first);
    stale.push(...rest.map((file) => file.path));
  }
  return { current, stale };
}

/**
 * rpm checkpoints SQLite's log into the database when it closes it, so an image's log is empty or
 * absent; a log with content holds transactions the database file does not have yet.
 */
function walWarnings(files: KeptFile<RpmFile>[]): string[] {
  return files.flatMap((file) =>
    'walBytes' in file.value && file.value.walBytes > 0
      ? [
          `${file.path}: ${file.value.walBytes} bytes of write-ahead log not read: the last packages installed may be missing`,
        ]
      : [],
  );
}

export const rpmCataloguer: Cataloguer<RpmFile> = {
  name: 'rpm',
  selects: (path) => backendOf(path) !== undefined || isWal(path),
  async read(body, size, path) {
    if (isWal(path)) return { walBytes: size };
    const backend = backendOf(path);
    if (backend === undefined) return undefined;
    return readRpmDatabase(await readCapped(body, size, RPM_DB_CAP, path), backend);
  },
  catalogue(files, context) {
    const databases = files.filter((file): file is KeptFile<RpmDatabase> => !('walBytes' in file.value));
    const { current, stale } = currentDatabases(databases);
    const results = current.map((file) => rpmPackages(file.value, file.path, context));
    return {
      packages: results.flatMap((result) => result.packages),
      warnings: [
        ...results.flatMap((result) => result.warnings),
        ...stale.map((path) => `${path}: not read: an older database format beside the one rpm uses`),
        ...walWarnings(files),
      ],
    };
  },
};
