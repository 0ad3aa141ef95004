/**
 * Real rpm databases for the rpm cataloguer's tests, made by Debian's `rpm` 4.18 (the test bed's
 * `rpm` package) from tiny packages `rpmbuild` builds out of the spec files below: epochs, `~` and
 * `^` versions, SPDX licence expressions, subpackages sharing a source rpm, one header of ~40 KiB
 * (SQLite overflow pages) and enough packages for an interior b-tree page; and a signing key
 * imported with `rpm --import` (a `gpg-pubkey` entry, test/support/fixtures/rpm/signing-key.asc).
 *
 * - SQLite (`rpmdb.sqlite`): `rpm --initdb` and `rpm -i --justdb`, rpm's default backend here.
 * - Berkeley DB (`Packages`): Debian's rpm reads BDB (`bdb_ro`) but cannot write it, so the headers
 *   are exported with `rpmdb --exportdb` and loaded into a hash database by Berkeley DB's own
 *   `db5.3_load` (the test bed's `db5.3-util`), keyed as rpm keys them (header numbers in host
 *   order, key 0 holding the next number); rpm's `bdb_ro` then reads that file back as the oracle.
 * - NDB (`Packages.db`): Debian's rpm has no NDB backend at all, so `ndbDatabase` lays the same
 *   headers out as rpm's lib/backend/ndb/rpmpkg.c writes them (slot pages, blob head, padding,
 *   Adler-32 tail). Unlike the two others, this file is not written by rpm: it checks the reader
 *   against rpm's source, not against rpm.
 *
 * The expected packages come from `rpm -qa` on each database, not from the specs. Built once per
 * test file into a temporary directory; `removeRpmFixture()` in its afterAll deletes it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RpmFixture {
  sqlite: Uint8Array;
  bdb: Uint8Array;
  /** The same headers in rpm's NDB layout (`ndbDatabase`). */
  ndb: Uint8Array;
  /** `rpm -qa` of the SQLite database, sorted, without the signing key: `QUERY_FORMAT`'s fields. */
  expected: RpmQueryRow[];
  /** `rpm -qa` of the BDB database through rpm's own `bdb_ro` backend, without the signing key. */
  expectedBdb: RpmQueryRow[];
  /** The `gpg-pubkey` rows rpm lists, which are not packages. */
  signingKeys: RpmQueryRow[];
  /** Every header as rpm stores it (from `--exportdb`, without the 8-byte magic), in database order. */
  headers: Uint8Array[];
}

export interface RpmQueryRow {
  name: string;
  epoch?: number;
  version: string;
  release: string;
  arch: string;
  sourceRpm: string;
  license: string;
}

const FILLERS = 40;
const SIGNING_KEY = fileURLToPath(new URL('../fixtures/rpm/signing-key.asc', import.meta.url));

function spec(fields: {
  name: string;
  version: string;
  release: string;
  license: string;
  epoch?: number;
  description?: string;
  extra?: string;
}): string {
  return [
    `Name: ${fields.name}`,
    ...(fields.epoch !== undefined ? [`Epoch: ${fields.epoch}`] : []),
    `Version: ${fields.version}`,
    `Release: ${fields.release}`,
    'Summary: dockwatch rpm fixture',
    `License: ${fields.license}`,
    'Vendor: dockwatch fixtures',
    'BuildArch: noarch',
    '%description',
    fields.description ?? 'A package of the rpm cataloguer tests.',
    fields.extra ?? '',
    '%files',
    '',
  ].join('\n');
}

const SPECS: Record<string, string> = {
  'tinyepoch.spec': spec({
    name: 'tinyepoch',
    epoch: 2,
    version: '1.0~rc1',
    release: '3.fc39',
    license: 'MIT AND (Apache-2.0 OR BSD-3-Clause)',
    extra: '%package libs\nSummary: libs\nLicense: MIT\n%description libs\nlibs\n%files libs\n',
  }),
  'caret.spec': spec({ name: 'caret', version: '2.0^git1', release: '1', license: 'GPL-2.0-or-later' }),
  'bigheader.spec': spec({
    name: 'bigheader',
    version: '10',
    release: '1.el9',
    license: 'BSD-3-Clause',
    description: Array.from({ length: 600 }, (_, line) => `line ${line} of a description long enough to overflow`).join(
      '\n',
    ),
  }),
  'filler.spec': spec({
    name: 'filler',
    version: '1.0',
    release: '1',
    license: 'MIT',
    extra: Array.from(
      { length: FILLERS },
      (_, index) =>
        `%package -n filler-${index}\nSummary: filler\n%description -n filler-${index}\nfiller\n%files -n filler-${index}\n`,
    ).join(''),
  }),
};

const QUERY_FORMAT = '%{NAME}\\t%{EPOCH}\\t%{VERSION}\\t%{RELEASE}\\t%{ARCH}\\t%{SOURCERPM}\\t%{LICENSE}\\n';

function query(root: string, backend: string[], rpm = 'rpm'): RpmQueryRow[] {
  const out = execFileSync(rpm, [...backend, '--root', root, '--dbpath', '/var/lib/rpm', '-qa', '--qf', QUERY_FORMAT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name, epoch, version, release, arch, sourceRpm, license] = line.split('\t') as string[];
      return {
        name: name ?? '',
        ...(epoch === '(none)' ? {} : { epoch: Number(epoch) }),
        version: version ?? '',
        release: release ?? '',
        arch: arch ?? '',
        sourceRpm: sourceRpm ?? '',
        license: license ?? '',
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The header blobs of an `--exportdb` stream: each is the 8-byte header magic, then il, dl, entries and data. */
export function exportedHeaders(stream: Uint8Array): Uint8Array[] {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const headers: Uint8Array[] = [];
  for (let at = 0; at < stream.length; ) {
    if (view.getUint32(at) !== 0x8eade801) throw new Error(`exportdb: no header magic at ${at}`);
    const size = 8 + view.getUint32(at + 8) * 16 + view.getUint32(at + 12);
    headers.push(stream.slice(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return headers;
}

const hostKey = (value: number) => {
  const key = new Uint8Array(4);
  new DataView(key.buffer).setUint32(0, value, new Uint8Array(new Uint16Array([1]).buffer)[0] === 1);
  return Buffer.from(key).toString('hex');
};

/** A Berkeley DB hash database of the headers, written by db5.3_load from its `bytevalue` dump format. */
function loadBdb(headers: Uint8Array[], file: string, dir: string): void {
  const lines = ['VERSION=3', 'format=bytevalue', 'type=hash', 'db_pagesize=4096', 'HEADER=END'];
  lines.push(` ${hostKey(0)}`, ` ${hostKey(headers.length + 1)}`);
  for (const [index, header] of headers.entries()) {
    lines.push(` ${hostKey(index + 1)}`, ` ${Buffer.from(header).toString('hex')}`);
  }
  lines.push('DATA=END', '');
  const dump = join(dir, 'packages.dump');
  writeFileSync(dump, lines.join('\n'));
  execFileSync('db5.3_load', ['-f', dump, file], { stdio: 'pipe' });
}

/** RFC 1950's Adler-32 (rpmpkg.c's update_adler32). */
function adler32(bytes: Uint8Array): number {
  let s1 = 1;
  let s2 = 0;
  for (const byte of bytes) {
    s1 = (s1 + byte) % 65521;
    s2 = (s2 + s1) % 65521;
  }
  return (s2 * 65536 + s1) >>> 0;
}

const fourCC = (text: string) => new DataView(new TextEncoder().encode(text).buffer).getUint32(0, true);

/**
 * rpm's NDB `Packages.db` of these headers, laid out as rpmpkg.c writes it: the 32-byte header in
 * the first of the slot pages (as many 4 KiB pages as the slots need), the blobs after them in
 * 16-byte blocks, each a head, the header, zero padding and a tail. Package indexes start at 1.
 */
export function ndbDatabase(headers: Uint8Array[], timestamp = 1_790_000_000): Uint8Array {
  const slotPages = Math.ceil((2 + headers.length) / 256);
  const blocks = headers.map((header) => Math.ceil((16 + header.length + 12) / 16));
  const total = slotPages * 4096 + blocks.reduce((sum, count) => sum + count * 16, 0);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  for (let at = 0; at < slotPages * 4096; at += 16) view.setUint32(at, fourCC('Slot'), true);
  view.setUint32(0, fourCC('RpmP'), true);
  view.setUint32(4, 0, true);
  view.setUint32(8, 1 + headers.length, true);
  view.setUint32(12, slotPages, true);
  view.setUint32(16, headers.length + 1, true);
  view.setUint32(20, 0, true);
  view.setUint32(24, 0, true);
  view.setUint32(28, 0, true);
  let block = (slotPages * 4096) / 16;
  headers.forEach((header, index) => {
    const pkgidx = index + 1;
    const slot = 32 + index * 16;
    view.setUint32(slot + 4, pkgidx, true);
    view.setUint32(slot + 8, block, true);
    view.setUint32(slot + 12, blocks[index] as number, true);
    const start = block * 16;
    view.setUint32(start, fourCC('BlbS'), true);
    view.setUint32(start + 4, pkgidx, true);
    view.setUint32(start + 8, timestamp, true);
    view.setUint32(start + 12, header.length, true);
    bytes.set(header, start + 16);
    const tail = start + (blocks[index] as number) * 16 - 12;
    view.setUint32(tail, adler32(bytes.subarray(start, tail)), true);
    view.setUint32(tail + 4, header.length, true);
    view.setUint32(tail + 8, fourCC('BlbE'), true);
    block += blocks[index] as number;
  });
  return bytes;
}

let cached: (RpmFixture & { dir: string }) | undefined;

export function removeRpmFixture(): void {
  if (cached) rmSync(cached.dir, { recursive: true, force: true });
  cached = undefined;
}

export function rpmFixture(): RpmFixture {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'sbom-rpm-'));
  try {
    cached = { dir, ...buildDatabases(dir) };
    return cached;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The fixture's packages, built by rpmbuild into `dir`: the .rpm files' paths. */
function buildPackages(dir: string): string[] {
  const top = join(dir, 'top');
  for (const [name, text] of Object.entries(SPECS)) writeFileSync(join(dir, name), text);
  execFileSync(
    'rpmbuild',
    ['-bb', '--quiet', '--define', `_topdir ${top}`, ...Object.keys(SPECS).map((name) => join(dir, name))],
    { stdio: 'pipe' },
  );
  const rpmsDir = join(top, 'RPMS', 'noarch');
  return readdirSync(rpmsDir)
    .sort()
    .map((name) => join(rpmsDir, name));
}

/** Where the NDB database written by rpm itself is kept (test/support/fixtures/rpm/README.md says how it was made). */
export const NDB_FIXTURE_DIR = fileURLToPath(new URL('../fixtures/rpm/ndb/', import.meta.url));

/**
 * Writes `Packages.db` and `expected.json` (its `rpm -qa`, signing key left out) into `outDir`,
 * made by `rpm`, an rpm built with `--enable-ndb` (Debian's has no NDB backend). Installed in two
 * transactions, then one package erased and one re-installed, so the file holds what rpm's own
 * writes leave: free slots, a hole where a blob was, blobs in rpm's order rather than one pass.
 */
export function writeNdbFixture(rpm: string, outDir: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'sbom-ndb-'));
  try {
    const rpms = buildPackages(dir);
    const root = join(dir, 'root');
    const ndb = ['--define', '_db_backend ndb'];
    const db = [...ndb, '--root', root, '--dbpath', '/var/lib/rpm'];
    const install = (files: string[]) =>
      execFileSync(rpm, [...db, '-i', '--justdb', '--nodeps', '--noscripts', '--notriggers', ...files], {
        stdio: 'pipe',
      });
    execFileSync(rpm, [...db, '--initdb'], { stdio: 'pipe' });
    const caret = rpms.filter((file) => file.includes('/caret-'));
    install(rpms.filter((file) => !caret.includes(file)).slice(0, 20));
    install(caret);
    install(rpms.filter((file) => !caret.includes(file)).slice(20));
    execFileSync(rpm, [...db, '--import', SIGNING_KEY], { stdio: 'pipe' });
    execFileSync(rpm, [...db, '-e', '--justdb', '--nodeps', '--noscripts', 'caret'], { stdio: 'pipe' });
    execFileSync(rpm, [...db, '-e', '--justdb', '--nodeps', '--noscripts', 'filler-3'], { stdio: 'pipe' });
    install(caret);
    const expected = query(root, ndb, rpm).filter((row) => row.name !== 'gpg-pubkey');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'Packages.db'), readFileSync(join(root, 'var', 'lib', 'rpm', 'Packages.db')));
    writeFileSync(join(outDir, 'expected.json'), `${JSON.stringify(expected, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The committed NDB database rpm wrote, and what `rpm -qa` listed of it. */
export function ndbFixture(): { packagesDb: Uint8Array; expected: RpmQueryRow[] } {
  return {
    packagesDb: new Uint8Array(readFileSync(join(NDB_FIXTURE_DIR, 'Packages.db'))),
    expected: JSON.parse(readFileSync(join(NDB_FIXTURE_DIR, 'expected.json'), 'utf8')) as RpmQueryRow[],
  };
}

function buildDatabases(dir: string): RpmFixture {
  const rpms = buildPackages(dir);
  const root = join(dir, 'sqlite-root');
  const db = ['--root', root, '--dbpath', '/var/lib/rpm'];
  execFileSync('rpm', [...db, '--initdb'], { stdio: 'pipe' });
  execFileSync('rpm', [...db, '-i', '--justdb', '--nodeps', '--noscripts', '--notriggers', ...rpms], { stdio: 'pipe' });
  execFileSync('rpm', [...db, '--import', SIGNING_KEY], { stdio: 'pipe' });
  const exported = new Uint8Array(execFileSync('rpmdb', [...db, '--exportdb'], { maxBuffer: 64 * 1024 * 1024 }));
  const headers = exportedHeaders(exported);
  const bdbRoot = join(dir, 'bdb-root');
  mkdirSync(join(bdbRoot, 'var', 'lib', 'rpm'), { recursive: true });
  loadBdb(headers, join(bdbRoot, 'var', 'lib', 'rpm', 'Packages'), dir);
  const all = query(root, []);
  const isKey = (row: RpmQueryRow) => row.name === 'gpg-pubkey';
  return {
    sqlite: new Uint8Array(readFileSync(join(root, 'var', 'lib', 'rpm', 'rpmdb.sqlite'))),
    bdb: new Uint8Array(readFileSync(join(bdbRoot, 'var', 'lib', 'rpm', 'Packages'))),
    ndb: ndbDatabase(headers),
    expected: all.filter((row) => !isKey(row)),
    expectedBdb: query(bdbRoot, ['--define', '_db_backend bdb_ro']).filter((row) => !isKey(row)),
    signingKeys: all.filter(isKey),
    headers,
  };
}

/** tinyepoch, tinyepoch-libs, caret, bigheader, filler and its subpackages. */
export const RPM_FIXTURE_PACKAGES = 5 + FILLERS;
