/**
 * The rpm cataloguer on real databases (test/support/sbom/rpm-fixture.ts: built by Debian's rpm
 * and rpmbuild, the BDB one by Berkeley DB's db5.3_load), checked against what `rpm -qa` says of
 * the same files (the NDB one, which Debian's rpm cannot write, laid out after rpm's source, and a
 * committed one written by an rpm built with NDB, test/support/fixtures/rpm/README.md); then the
 * same files broken in the ways an untrusted image can break them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  ndbFixture,
  RPM_FIXTURE_PACKAGES,
  type RpmFixture,
  type RpmQueryRow,
  removeRpmFixture,
  rpmFixture,
} from '../../../../test/support/sbom/rpm-fixture';
import { inChunks } from '../../../../test/support/sbom/tar-builder';
import type { SbomPackage } from '../sbom-model';
import { BdbFormatError, readBdbHash } from './bdb-hash-reader';
import type { CatalogueContext } from './cataloguer';
import { NdbFormatError, readNdb } from './ndb-reader';
import { type RpmDatabase, type RpmFile, readRpmDatabase, rpmCataloguer, rpmPackages } from './rpm-cataloguer';
import { parseRpmHeader, parseSourceRpm, RpmHeaderError } from './rpm-header';
import { SqliteFile, SqliteFormatError } from './sqlite-reader';

afterAll(removeRpmFixture);

const fedora = { distro: { id: 'fedora', versionId: '39' } };

async function catalogue(path: string, bytes: Uint8Array, context: CatalogueContext = fedora) {
  const value = (await rpmCataloguer.read(inChunks(bytes, [65536, 7]), bytes.length, path)) as RpmDatabase;
  return rpmCataloguer.catalogue([{ path, value }], context);
}

/** The SBOM's packages in the shape of `rpm -qa`'s rows. */
function asQueryRows(packages: SbomPackage[]): RpmQueryRow[] {
  return packages
    .map((pkg) => {
      const purl = new URL(pkg.purl.replace(/^pkg:/, 'pkg://'));
      const epoch = purl.searchParams.get('epoch');
      const [version, release] = decodeURIComponent(purl.pathname.split('@')[1] ?? '').split('-');
      return {
        name: pkg.name,
        ...(epoch !== null ? { epoch: Number(epoch) } : {}),
        version: version ?? '',
        release: release ?? '',
        arch: purl.searchParams.get('arch') ?? '',
        sourceRpm: `${pkg.source?.name}-${pkg.source?.version}.src.rpm`,
        license: pkg.licenses.join(),
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const fixture = (): RpmFixture => rpmFixture();

describe('rpm databases written by rpm', () => {
  it('SQLite (rpmdb.sqlite): exactly the packages rpm -qa lists, with their fields', async () => {
    const { sqlite, expected, signingKeys } = fixture();
    expect(expected).toHaveLength(45);
    // rpm lists the imported key as a package; the SBOM leaves it out.
    expect(signingKeys).toEqual([expect.objectContaining({ name: 'gpg-pubkey', arch: '(none)' })]);
    for (const path of ['/var/lib/rpm/rpmdb.sqlite', '/usr/lib/sysimage/rpm/rpmdb.sqlite']) {
      const result = await catalogue(path, sqlite);
      expect(result.warnings).toEqual([]);
      expect(asQueryRows(result.packages)).toEqual(expected);
      expect(result.packages.every((pkg) => pkg.location === path)).toBe(true);
    }
  });

  it('Berkeley DB (Packages): exactly the packages rpm -qa lists through its bdb_ro backend', async () => {
    const { bdb, expectedBdb, expected } = fixture();
    expect(expectedBdb).toEqual(expected);
    const result = await catalogue('/var/lib/rpm/Packages', bdb);
    expect(result.warnings).toEqual([]);
    expect(asQueryRows(result.packages)).toEqual(expectedBdb);
  });

  it('names each package as its distribution does: epoch in the version and as a qualifier, the source rpm', async () => {
    const { packages } = await catalogue('/var/lib/rpm/rpmdb.sqlite', fixture().sqlite);
    expect(packages.find((pkg) => pkg.name === 'tinyepoch')).toEqual({
      type: 'rpm',
      namespace: 'fedora',
      name: 'tinyepoch',
      version: '2:1.0~rc1-3.fc39',
      purl: 'pkg:rpm/fedora/tinyepoch@1.0~rc1-3.fc39?arch=noarch&distro=fedora-39&epoch=2',
      source: { name: 'tinyepoch', version: '1.0~rc1-3.fc39' },
      licenses: ['MIT AND (Apache-2.0 OR BSD-3-Clause)'],
      location: '/var/lib/rpm/rpmdb.sqlite',
    });
    expect(packages.find((pkg) => pkg.name === 'caret')?.purl).toBe(
      'pkg:rpm/fedora/caret@2.0%5Egit1-1?arch=noarch&distro=fedora-39',
    );
    const rhel = await catalogue('/var/lib/rpm/Packages', fixture().bdb, { distro: { id: 'rhel', versionId: '7.9' } });
    expect(rhel.packages.find((pkg) => pkg.name === 'bigheader')?.purl).toBe(
      'pkg:rpm/redhat/bigheader@10-1.el9?arch=noarch&distro=rhel-7.9',
    );
    const none = await catalogue('/var/lib/rpm/Packages', fixture().bdb, {});
    expect(none.packages.find((pkg) => pkg.name === 'bigheader')?.purl).toBe('pkg:rpm/bigheader@10-1.el9?arch=noarch');
  });

  it('NDB (Packages.db, openSUSE and SLES 15): the same packages, from rpm’s layout of the same headers', async () => {
    const { ndb, expected } = fixture();
    const result = await catalogue('/usr/lib/sysimage/rpm/Packages.db', ndb, {
      distro: { id: 'opensuse-leap', versionId: '15.5' },
    });
    expect(result.warnings).toEqual([]);
    expect(asQueryRows(result.packages)).toEqual(expected);
    expect(result.packages.find((pkg) => pkg.name === 'tinyepoch')?.purl).toBe(
      'pkg:rpm/opensuse/tinyepoch@1.0~rc1-3.fc39?arch=noarch&distro=opensuse-leap-15.5&epoch=2',
    );
  });

  it('NDB written by rpm itself (rpm 4.18 built with NDB): what its rpm -qa listed, after erasures and a re-install', async () => {
    const { packagesDb, expected } = ndbFixture();
    // The erased filler-3 left a free slot and caret's re-install a blob in an earlier hole.
    expect(expected.map((row) => row.name)).not.toContain('filler-3');
    expect(expected).toHaveLength(RPM_FIXTURE_PACKAGES - 1);
    const indexes = [...readNdb(packagesDb, 1 << 24)].map((blob) => blob.pkgidx);
    expect(indexes).not.toEqual([...indexes].sort((a, b) => a - b));
    const result = await catalogue('/usr/lib/sysimage/rpm/Packages.db', packagesDb, {
      distro: { id: 'sles', versionId: '15.6' },
    });
    expect(result.warnings).toEqual([]);
    expect(asQueryRows(result.packages)).toEqual(expected);
    // A changed byte in any blob is that blob's checksum error, in rpm's file as in the laid-out one.
    const changed = packagesDb.slice();
    changed[changed.length - 200] = (changed[changed.length - 200] ?? 0) ^ 0x01;
    expect(readRpmDatabase(changed, 'ndb')).toEqual({
      error: expect.stringMatching(/^ndb: package \d+: checksum mismatch$/),
    });
  });

  it('selects the databases of both rpm locations, and nothing else there', async () => {
    for (const path of [
      '/var/lib/rpm/rpmdb.sqlite',
      '/usr/lib/sysimage/rpm/rpmdb.sqlite',
      '/var/lib/rpm/Packages',
      '/usr/lib/sysimage/rpm/Packages.db',
    ]) {
      expect(rpmCataloguer.selects(path, 0o644, 1), path).toBe(true);
    }
    for (const path of ['/var/lib/rpm/rpmdb.sqlite-shm', '/var/lib/rpm/Name', '/opt/var/lib/rpm/Packages']) {
      expect(rpmCataloguer.selects(path, 0o644, 1), path).toBe(false);
    }
    const ndb = await catalogue('/usr/lib/sysimage/rpm/Packages.db', new Uint8Array(4096));
    expect(ndb).toEqual({
      packages: [],
      warnings: ['/usr/lib/sysimage/rpm/Packages.db: not read: ndb: not an rpm NDB database (no magic)'],
    });
  });

  it('reads one database per directory, the newest format: a BDB file left behind by a conversion is not read', async () => {
    const { sqlite, bdb } = fixture();
    const read = async (path: string, bytes: Uint8Array) => ({
      path,
      value: (await rpmCataloguer.read(inChunks(bytes), bytes.length, path)) as RpmDatabase,
    });
    const result = rpmCataloguer.catalogue(
      [await read('/var/lib/rpm/Packages', bdb), await read('/var/lib/rpm/rpmdb.sqlite', sqlite)],
      fedora,
    );
    expect(result.packages).toHaveLength(45);
    expect(new Set(result.packages.map((pkg) => pkg.location))).toEqual(new Set(['/var/lib/rpm/rpmdb.sqlite']));
    expect(result.warnings).toEqual([
      '/var/lib/rpm/Packages: not read: an older database format beside the one rpm uses',
    ]);
  });

  it('warns about a write-ahead log with content beside the database, which is not read; an empty one is normal', async () => {
    const { sqlite } = fixture();
    const read = async (path: string, bytes: Uint8Array) => ({
      path,
      value: (await rpmCataloguer.read(inChunks(bytes), bytes.length, path)) as RpmFile,
    });
    const files = [
      await read('/var/lib/rpm/rpmdb.sqlite', sqlite),
      await read('/var/lib/rpm/rpmdb.sqlite-wal', new Uint8Array(0)),
    ];
    expect(rpmCataloguer.catalogue(files, fedora).warnings).toEqual([]);
    files[1] = await read('/var/lib/rpm/rpmdb.sqlite-wal', new Uint8Array(4128));
    const result = rpmCataloguer.catalogue(files, fedora);
    expect(result.packages).toHaveLength(45);
    expect(result.warnings).toEqual([
      '/var/lib/rpm/rpmdb.sqlite-wal: 4128 bytes of write-ahead log not read: the last packages installed may be missing',
    ]);
  });

  it('leaves out imported signing keys (gpg-pubkey) and counts headers without a valid name', () => {
    const header = { version: '1', release: '1' };
    const result = rpmPackages(
      {
        headers: [
          { ...header, name: 'gpg-pubkey' },
          { ...header, name: 'a b' },
          { ...header, name: 'ok' },
        ],
        unreadable: 2,
      },
      '/var/lib/rpm/rpmdb.sqlite',
      {},
    );
    expect(result.packages.map((pkg) => pkg.purl)).toEqual(['pkg:rpm/ok@1-1']);
    expect(result.warnings).toEqual([
      '/var/lib/rpm/rpmdb.sqlite: 2 unreadable headers skipped',
      '/var/lib/rpm/rpmdb.sqlite: 1 headers without a valid NAME, VERSION or RELEASE skipped',
    ]);
    expect(parseSourceRpm('openssl-3.0.7-16.el9_2.src.rpm')).toEqual({ name: 'openssl', version: '3.0.7-16.el9_2' });
    expect(parseSourceRpm('not-a-source')).toBeUndefined();
  });
});

const PAGE = 4096;
const u32 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(at);
const setU32 = (bytes: Uint8Array, at: number, value: number, little = false) =>
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(at, value, little);

/** Where `needle` starts on a table leaf page (a split leaves stale copies in the unused space of other pages). */
function leafOffsetOf(file: Uint8Array, needle: Uint8Array): number {
  outer: for (let at = 0; at <= file.length - needle.length; at++) {
    for (let index = 0; index < needle.length; index++) if (file[at + index] !== needle[index]) continue outer;
    if (file[Math.floor(at / PAGE) * PAGE] === 13) return at;
  }
  return -1;
}

describe('broken SQLite databases', () => {
  const broken = (mutate: (bytes: Uint8Array) => void) => {
    const bytes = fixture().sqlite.slice();
    mutate(bytes);
    return readRpmDatabase(bytes, 'sqlite');
  };

  it('a truncated file, a page pointer cycle, huge counts and sizes: a clear error, no loop', () => {
    const { sqlite } = fixture();
    expect(readRpmDatabase(sqlite.slice(0, 50), 'sqlite')).toEqual({
      error: 'sqlite: not an SQLite 3 database (no header)',
    });
    expect(readRpmDatabase(sqlite.slice(0, 20 * PAGE), 'sqlite')).toEqual({
      error: expect.stringMatching(/^sqlite: .*page \d+ outside the file's 20 pages$/),
    });
    const root = new SqliteFile(sqlite);
    expect(root.pageSize).toBe(PAGE);
    // The Packages table's root is an interior page: its right-most child pointed back at itself.
    const rootPage = 2;
    expect(sqlite[(rootPage - 1) * PAGE]).toBe(5);
    expect(broken((bytes) => setU32(bytes, (rootPage - 1) * PAGE + 8, rootPage))).toEqual({
      error: 'sqlite: page 2 reached twice (a cycle)',
    });
    expect(broken((bytes) => setU32(bytes, (rootPage - 1) * PAGE + 8, 0x7fffffff))).toEqual({
      error: expect.stringMatching(/page 2147483647 outside the file's \d+ pages/),
    });
    // 65,535 cells cannot fit in a page.
    expect(broken((bytes) => bytes.set([0xff, 0xff], (rootPage - 1) * PAGE + 3))).toEqual({
      error: 'sqlite: page 2: 65535 cells',
    });
    expect(broken((bytes) => bytes.set([0x03, 0x00], 16))).toEqual({ error: 'sqlite: page size 768' });
  });

  it('a row claiming a payload larger than the file is refused before it is allocated', () => {
    const { sqlite, headers } = fixture();
    // The leaf cell of a small header: its payload-size varint rewritten to 9 bytes of 0xff.
    const blob = headers.find((header) => header.length < 1500) as Uint8Array;
    const at = leafOffsetOf(sqlite, blob.subarray(0, 64));
    expect(at).toBeGreaterThan(0);
    const cellStart = findCellStart(sqlite, at);
    const bytes = sqlite.slice();
    bytes.fill(0xff, cellStart, cellStart + 2);
    expect(readRpmDatabase(bytes, 'sqlite')).toEqual({ error: expect.stringMatching(/^sqlite: page \d+: /) });
  });

  it('a header blob with out-of-range offsets is counted, the other packages still read', () => {
    const { sqlite, headers } = fixture();
    const blob = headers.find((header) => header.length < 1500) as Uint8Array;
    const at = leafOffsetOf(sqlite, blob.subarray(0, 64));
    const bytes = sqlite.slice();
    // Every entry's offset (third word of each 16-byte entry) pointed past the data store.
    const entries = u32(blob, 0);
    for (let index = 0; index < Math.min(entries, 3); index++) setU32(bytes, at + 8 + index * 16 + 8, 0x7ffffff0);
    const result = readRpmDatabase(bytes, 'sqlite');
    expect(result).toMatchObject({ unreadable: 1 });
    // 45 packages and the signing key, less the broken one.
    expect('headers' in result && result.headers).toHaveLength(45);
  });
});

/** The start of the leaf cell whose record begins shortly before `payloadAt`: the cell pointer that is closest below it. */
function findCellStart(bytes: Uint8Array, payloadAt: number): number {
  const page = Math.floor(payloadAt / PAGE);
  const start = page * PAGE;
  const header = start + (page === 0 ? 100 : 0);
  const cells = (bytes[header + 3] ?? 0) * 256 + (bytes[header + 4] ?? 0);
  let best = -1;
  for (let index = 0; index < cells; index++) {
    const offset = start + (bytes[header + 8 + index * 2] ?? 0) * 256 + (bytes[header + 9 + index * 2] ?? 0);
    if (offset <= payloadAt && offset > best) best = offset;
  }
  return best;
}

describe('broken Berkeley DB databases', () => {
  it('an overflow chain pointing back at itself, a cut file, a wrong magic: a clear error', () => {
    const { bdb } = fixture();
    const bytes = bdb.slice();
    // The first overflow page that continues on another: its next page number set to itself (host order, little here).
    const little = new DataView(bytes.buffer).getUint32(12, true) === 0x061561;
    let page = -1;
    for (let number = 1; number < bytes.length / PAGE; number++) {
      const next = new DataView(bytes.buffer).getUint32(number * PAGE + 16, little);
      if (bytes[number * PAGE + 25] === 7 && next !== 0) {
        page = number;
        break;
      }
    }
    expect(page).toBeGreaterThan(0);
    setU32(bytes, page * PAGE + 16, page, little);
    expect(readRpmDatabase(bytes, 'bdb')).toEqual({
      error: `berkeley db: overflow page ${page} reached twice (a cycle)`,
    });
    expect(readRpmDatabase(bdb.slice(0, 3 * PAGE), 'bdb')).toEqual({
      error: expect.stringMatching(/^berkeley db: overflow page \d+ outside the file$/),
    });
    expect(() => [...readBdbHash(new Uint8Array(4096), 1024)]).toThrow(BdbFormatError);
    expect(readRpmDatabase(fixture().sqlite, 'bdb')).toEqual({ error: 'berkeley db: not a hash database (no magic)' });
  });
});

describe('broken NDB databases', () => {
  const slotAt = 32;
  const broken = (mutate: (view: DataView, bytes: Uint8Array) => void) => {
    const bytes = fixture().ndb.slice();
    mutate(new DataView(bytes.buffer), bytes);
    return readRpmDatabase(bytes, 'ndb');
  };

  it('overlapping blobs, slots past the end, a changed byte, a cut file, huge page counts: a clear error', () => {
    const second = slotAt + 16;
    expect(broken((view) => view.setUint32(second + 8, view.getUint32(slotAt + 8, true) + 1, true))).toEqual({
      error: 'ndb: the blobs of packages 1 and 2 overlap',
    });
    expect(broken((view) => view.setUint32(slotAt + 12, 0x7fffffff, true))).toEqual({
      error: "ndb: slot at 32: blocks past the file's end",
    });
    expect(
      broken((view, bytes) => {
        const start = view.getUint32(slotAt + 8, true) * 16;
        bytes[start + 100] = (bytes[start + 100] ?? 0) ^ 0xff;
      }),
    ).toEqual({ error: 'ndb: package 1: checksum mismatch' });
    expect(broken((view) => view.setUint32(12, 0xffffffff, true))).toEqual({
      error: expect.stringMatching(/^ndb: 4294967295 slot pages in a file of \d+ bytes$/),
    });
    expect(broken((view) => view.setUint32(slotAt + 16 * 5, 0, true))).toEqual({ error: 'ndb: slot at 112: no magic' });
    const { ndb } = fixture();
    expect(readRpmDatabase(ndb.slice(0, ndb.length - 16), 'ndb')).toEqual({
      error: expect.stringMatching(/^ndb: slot at \d+: blocks past the file's end$/),
    });
    expect(() => [...readNdb(fixture().sqlite, 1 << 20)]).toThrow(NdbFormatError);
  });
});

describe('rpm headers', () => {
  const big = () => fixture().headers.find((header) => header.length > 20000) as Uint8Array;

  it('reads the tags an SBOM needs', () => {
    expect(parseRpmHeader(big())).toEqual({
      name: 'bigheader',
      version: '10',
      release: '1.el9',
      arch: 'noarch',
      license: 'BSD-3-Clause',
      sourceRpm: 'bigheader-10-1.el9.src.rpm',
      vendor: 'dockwatch fixtures',
    });
  });

  it('refuses huge counts, blobs shorter than they claim, offsets outside the data and unterminated strings', () => {
    const mutated = (mutate: (bytes: Uint8Array) => void) => {
      const bytes = big().slice();
      mutate(bytes);
      return () => parseRpmHeader(bytes);
    };
    expect(mutated((bytes) => setU32(bytes, 0, 0xffffffff))).toThrow('rpm header: 4294967295 index entries');
    expect(mutated((bytes) => setU32(bytes, 4, 0x7fffffff))).toThrow('rpm header: 2147483647 data bytes');
    expect(mutated((bytes) => setU32(bytes, 4, u32(bytes, 4) + 1))).toThrow(/do not fit in/);
    expect(() => parseRpmHeader(big().subarray(0, 5))).toThrow(RpmHeaderError);
    const blob = big();
    const entries = u32(blob, 0);
    const dl = u32(blob, 4);
    const nameEntry = Array.from({ length: entries }, (_, index) => 8 + index * 16).find(
      (at) => u32(blob, at) === 1000,
    );
    expect(nameEntry).toBeDefined();
    expect(mutated((bytes) => setU32(bytes, (nameEntry as number) + 8, dl))).toThrow(`outside ${dl} data bytes`);
    // The NAME string's terminating NUL overwritten, and everything up to the end of the store with it.
    expect(
      mutated((bytes) => {
        const start = 8 + entries * 16 + u32(bytes, (nameEntry as number) + 8);
        bytes.fill(0x41, start, 8 + entries * 16 + dl);
      }),
    ).toThrow(/string not terminated/);
  });

  it('bounds the SQLite reader: errors name the format', () => {
    expect(() => new SqliteFile(new Uint8Array(100))).toThrow(SqliteFormatError);
  });
});
