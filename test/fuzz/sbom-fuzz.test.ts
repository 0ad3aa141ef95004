/**
 * Fuzz of the SBOM generator (docs/security.md): mutated image archives (flipped bytes, cut
 * streams, spliced blocks, any chunking) through the tar reader, the gzip layers and the archive
 * layouts, and random or hostile input to each package-database parser.
 *
 * Invariants: a scan either succeeds with well-formed packages (a name, a version, a `pkg:` purl of
 * its type without whitespace) or fails with one of the generator's own errors, never a TypeError
 * or a RangeError, and never hangs; a database parser never throws, whatever it is given, and
 * counts what it skipped. The rpm database readers (SQLite, Berkeley DB, NDB) and the rpm header parser,
 * given mutated real databases and headers, answer their rows or throw their own format error,
 * never another one, and never loop. FUZZ_SEED=<seed> replays a run.
 */
import { gzipSync, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { apkPackages } from '../../hub/src/security/sbom/apk-cataloguer';
import { BdbFormatError, readBdbHash } from '../../hub/src/security/sbom/bdb-hash-reader';
import { TruncatedStreamError } from '../../hub/src/security/sbom/byte-reader';
import { FileTooLargeError } from '../../hub/src/security/sbom/cataloguer';
import { dpkgPackages } from '../../hub/src/security/sbom/dpkg-cataloguer';
import { generateSbom } from '../../hub/src/security/sbom/generate-sbom';
import { parseBuildInfoAt, parseModInfo, scanGoBuildInfo } from '../../hub/src/security/sbom/go-cataloguer';
import { ImageArchiveError } from '../../hub/src/security/sbom/image-archive';
import { parsePomProperties, readJavaArchive } from '../../hub/src/security/sbom/java-cataloguer';
import { LayerFormatError } from '../../hub/src/security/sbom/layer-stream';
import { NdbFormatError, readNdb } from '../../hub/src/security/sbom/ndb-reader';
import { parseNpmManifest } from '../../hub/src/security/sbom/npm-cataloguer';
import { parseOsRelease } from '../../hub/src/security/sbom/os-release';
import { parsePythonMetadata } from '../../hub/src/security/sbom/python-cataloguer';
import { readRpmDatabase, rpmPackages } from '../../hub/src/security/sbom/rpm-cataloguer';
import { parseRpmHeader, RpmHeaderError } from '../../hub/src/security/sbom/rpm-header';
import { SqliteFile, SqliteFormatError, tableRootPage } from '../../hub/src/security/sbom/sqlite-reader';
import { TarFormatError } from '../../hub/src/security/sbom/tar-reader';
import type { SbomPackage } from '../../hub/src/security/sbom-model';
import { classicArchive, layerTar, ociArchive } from '../support/sbom/archive-builder';
import { ALPINE_FILES, DEBIAN_LAYER_3, type FileTree, fixtureJar } from '../support/sbom/image-fixture';
import { removeRpmFixture, rpmFixture } from '../support/sbom/rpm-fixture';
import { inChunks } from '../support/sbom/tar-builder';
import { HOSTILE_STRINGS, type Rng, rngFor, seedFromEnv, seedHex } from './generators';

const SEED = seedFromEnv(process.env['FUZZ_SEED']);
const SEED_TAG = `seed ${seedHex(SEED)}`;
const KNOWN_ERRORS = [TarFormatError, TruncatedStreamError, LayerFormatError, ImageArchiveError, FileTooLargeError];
const encoder = new TextEncoder();

/** A Go ≥ 1.18 build info blob as the linker lays it out: magic, pointer size, flags, varint strings. */
function goBuildInfoBlob(version: string, modinfo: string): Uint8Array {
  const varint = (value: number) => {
    const out: number[] = [];
    let rest = value;
    while (rest >= 0x80) {
      out.push((rest & 0x7f) | 0x80);
      rest = Math.floor(rest / 128);
    }
    out.push(rest);
    return out;
  };
  const header = new Uint8Array(32);
  header[0] = 0xff;
  header.set(encoder.encode(' Go buildinf:'), 1);
  header[14] = 8;
  header[15] = 2;
  const sentinelled = `${'0'.repeat(16)}${modinfo}\n${'1'.repeat(16)}`;
  const v = encoder.encode(version);
  const m = encoder.encode(sentinelled);
  return new Uint8Array([...header, ...varint(v.length), ...v, ...varint(m.length), ...m]);
}

const MODINFO =
  'path\texample.com/app\nmod\texample.com/app\t(devel)\t\ndep\tgithub.com/a/b\tv1.2.3\th1:x=\n=>\tgithub.com/c/b\tv1.2.4\th1:y=';

function fakeGoBinary(rng: Rng): Uint8Array {
  const prefix = new Uint8Array(rng.int(4, 3000));
  prefix.set([0x7f, 0x45, 0x4c, 0x46]);
  const blob = goBuildInfoBlob('go1.21.5', MODINFO);
  return new Uint8Array([...prefix, ...blob, ...new Uint8Array(rng.int(0, 2000))]);
}

function fixtureTree(rng: Rng): FileTree {
  return {
    'etc/os-release': { content: 'ID=debian\nVERSION_ID="12"\n' },
    'var/lib/dpkg/status': DEBIAN_LAYER_3['var/lib/dpkg/status'] ?? {},
    'lib/apk/db/installed': ALPINE_FILES['lib/apk/db/installed'] ?? {},
    'app/node_modules/left-pad/package.json': { content: '{"name":"left-pad","version":"1.3.0","license":"WTFPL"}' },
    'usr/lib/python3/dist-packages/six-1.16.0.dist-info/METADATA': { content: 'Name: six\nVersion: 1.16.0\n' },
    'opt/app.jar': { content: fixtureJar() },
    'usr/bin/app': { content: fakeGoBinary(rng), mode: 0o755 },
  };
}

function mutate(rng: Rng, bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  switch (rng.int(0, 4)) {
    case 0: // flip a few bytes anywhere
      for (let count = rng.int(1, 8); count > 0; count--) out[rng.int(0, out.length - 1)] = rng.int(0, 255);
      return out;
    case 1: // cut the stream
      return out.slice(0, rng.int(0, out.length - 1));
    case 2: {
      // a header field rewritten with text from the hostile list
      const block = rng.int(0, Math.max(0, Math.floor(out.length / 512) - 1)) * 512;
      const at = Math.min(out.length, block + rng.pick([0, 100, 124, 148, 156, 257, 345]));
      const text = encoder.encode(rng.pick(HOSTILE_STRINGS)).slice(0, Math.min(100, out.length - at));
      out.set(text, at);
      return out;
    }
    case 3: {
      // a block duplicated somewhere else
      const from = rng.int(0, Math.max(0, Math.floor(out.length / 512) - 1)) * 512;
      const to = rng.int(0, Math.max(0, Math.floor(out.length / 512) - 1)) * 512;
      out.copyWithin(to, from, from + 512);
      return out;
    }
    default:
      return out;
  }
}

function checkPackages(packages: SbomPackage[]): void {
  for (const pkg of packages) {
    expect(pkg.name).not.toBe('');
    expect(pkg.version).not.toBe('');
    expect(pkg.purl.startsWith(`pkg:${pkg.type}/`), pkg.purl).toBe(true);
    expect(pkg.purl).not.toMatch(/\s/);
  }
}

describe(`SBOM generator fuzz (${SEED_TAG})`, () => {
  it('scans of mutated archives succeed with well-formed packages or fail with the generator’s own errors', async () => {
    const rng = rngFor(SEED, 'sbom-archives');
    const outcomes = { ok: 0, failed: 0 };
    for (let round = 0; round < 150; round++) {
      const layers = [layerTar(fixtureTree(rng)), layerTar({}, ['app/node_modules/left-pad'])];
      const archive = rng.bool() ? classicArchive(layers) : ociArchive(layers);
      const bytes = mutate(rng, archive.bytes);
      const sizes = [rng.int(1, 70000), rng.int(1, 600)];
      try {
        const sbom = await generateSbom(inChunks(bytes, sizes), { imageId: archive.imageId, imageRef: 'fuzz' });
        checkPackages(sbom.packages);
        outcomes.ok++;
      } catch (error) {
        const known = KNOWN_ERRORS.some((kind) => error instanceof kind);
        expect(known, `round ${round}: ${(error as Error)?.stack}`).toBe(true);
        outcomes.failed++;
      }
    }
    // Both kinds happen: mutations that land in bodies pass, those in headers fail.
    expect(outcomes.ok).toBeGreaterThan(10);
    expect(outcomes.failed).toBeGreaterThan(10);
  }, 120_000);

  it('gzip layers cut or garbled fail as LayerFormatError or a tar error, never otherwise', async () => {
    const rng = rngFor(SEED, 'sbom-gzip');
    for (let round = 0; round < 40; round++) {
      const gz = gzipSync(layerTar({ 'a/b': { content: 'x'.repeat(rng.int(0, 5000)) } }));
      const bytes = mutate(rng, gz);
      const archive = classicArchive([bytes]);
      await generateSbom(inChunks(archive.bytes, [rng.int(1, 9000)]), {
        imageId: archive.imageId,
        imageRef: 'fuzz',
      }).then(
        (sbom) => checkPackages(sbom.packages),
        (error) =>
          expect(
            KNOWN_ERRORS.some((kind) => error instanceof kind),
            String(error),
          ).toBe(true),
      );
    }
  });
});

const FIELD_LINES = [
  'Package: curl',
  'Package: ',
  'Package: Bad Name',
  'Version: 7.88.1-10+deb12u5',
  'Version: 1:2.0~rc1',
  'Version:',
  'Status: install ok installed',
  'Status: deinstall ok config-files',
  'Status:',
  'Architecture: amd64',
  'Source: curl (7.88.1-10)',
  'Source: (broken',
  ' continuation line',
  '\tcontinuation tab',
  'P:musl',
  'V:1.2.4-r2',
  'A:x86_64',
  'L:MIT AND BSD-2-Clause',
  'o:musl',
  'P:',
  'V:with space',
  'F:usr/lib',
  'garbage without a colon',
  ':no key',
  '',
  '',
  '\r',
  'Package: \u0000nul',
  `Package: ${'a'.repeat(5000)}`,
];

function randomDatabase(rng: Rng): string {
  const lines: string[] = [];
  for (let count = rng.int(0, 60); count > 0; count--) {
    lines.push(rng.bool(0.85) ? rng.pick(FIELD_LINES) : rng.pick(HOSTILE_STRINGS));
  }
  return lines.join(rng.pick(['\n', '\r\n', '\n\n']));
}

describe(`SBOM database parsers fuzz (${SEED_TAG})`, () => {
  it('never throw, and every package they answer is well formed', () => {
    const rng = rngFor(SEED, 'sbom-parsers');
    const context = { distro: { id: 'debian', versionId: '12' } };
    for (let round = 0; round < 2000; round++) {
      const text = randomDatabase(rng);
      const dpkg = dpkgPackages(text, '/var/lib/dpkg/status', context);
      const apk = apkPackages(text, '/lib/apk/db/installed', { distro: { id: 'alpine' } });
      checkPackages([...dpkg.packages, ...apk.packages]);
      for (const warning of [...dpkg.warnings, ...apk.warnings]) expect(warning).toMatch(/: \d+ .* skipped$/);
      parseOsRelease(text);
      parsePomProperties(text);
      parseModInfo(text);
      const python = parsePythonMetadata(text);
      if (!('invalid' in python)) expect(python.name).not.toMatch(/\s/);
      const npm = parseNpmManifest(
        rng.bool()
          ? text
          : JSON.stringify({ name: rng.pick(HOSTILE_STRINGS), version: rng.pick(FIELD_LINES), license: { type: 1 } }),
      );
      if (!('invalid' in npm)) expect(typeof npm.version).toBe('string');
    }
  });

  it('Go build info and Java archives: mutated input never throws', async () => {
    const rng = rngFor(SEED, 'sbom-binaries');
    const jar = zipSync({
      'META-INF/maven/g/a/pom.properties': encoder.encode('groupId=g\nartifactId=a\nversion=1\n'),
    });
    for (let round = 0; round < 400; round++) {
      const blob = mutate(
        rng,
        goBuildInfoBlob(rng.pick(['go1.22.0', 'devel', '']), rng.bool() ? MODINFO : randomDatabase(rng)),
      );
      parseBuildInfoAt(blob, 0);
      const binary = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, ...blob]);
      const found = await scanGoBuildInfo(inChunks(binary, [rng.int(1, 64)]));
      if (found && !('unsupported' in found)) for (const dep of found.deps) expect(typeof dep.path).toBe('string');
      const archive = readJavaArchive(mutate(rng, jar));
      if ('artifacts' in archive) for (const artifact of archive.artifacts) expect(artifact.groupId).not.toBe('');
    }
  });

  it('finds the build info of a well-formed blob whatever the chunking', async () => {
    const rng = rngFor(SEED, 'sbom-go-chunks');
    for (let round = 0; round < 50; round++) {
      const binary = fakeGoBinary(rng);
      const found = await scanGoBuildInfo(inChunks(binary, [rng.int(1, 4096), rng.int(1, 17)]));
      expect(found).toEqual({
        goVersion: 'go1.21.5',
        main: { path: 'example.com/app', version: '(devel)' },
        deps: [{ path: 'github.com/c/b', version: 'v1.2.4' }],
      });
    }
  });
});

const INTERESTING_U32 = [0, 1, 2, 3, 0x7f, 0xff, 0xffff, 0x10000, 0x7fffffff, 0xffffffff];

/** Mutations aimed at a paged database: page headers, cell and item pointers, chain links, whole pages. */
function mutateDatabase(rng: Rng, bytes: Uint8Array, pageSize: number): Uint8Array {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  const pages = Math.floor(out.length / pageSize);
  const pageStart = () => rng.int(0, pages - 1) * pageSize;
  for (let count = rng.int(1, 4); count > 0; count--) {
    switch (rng.int(0, 4)) {
      case 0:
        out[rng.int(0, out.length - 1)] = rng.int(0, 255);
        break;
      case 1: {
        const at = pageStart() + rng.int(0, 40);
        view.setUint32(at, rng.bool() ? rng.pick(INTERESTING_U32) : rng.int(0, pages + 2), rng.bool());
        break;
      }
      case 2: {
        const at = pageStart() + rng.int(0, 60);
        view.setUint16(at, rng.bool() ? rng.pick([0, 1, 0xffff, pageSize - 1, pageSize]) : rng.int(0, pageSize));
        break;
      }
      case 3:
        out.copyWithin(pageStart(), pageStart(), pageStart() + pageSize);
        break;
      default:
        return out.slice(0, rng.int(0, out.length - 1));
    }
  }
  return out;
}

describe(`rpm database readers fuzz (${SEED_TAG})`, () => {
  afterAll(removeRpmFixture);

  const expectOwnError = (
    error: unknown,
    kind: typeof SqliteFormatError | typeof BdbFormatError | typeof NdbFormatError,
    round: number,
  ) => expect(error instanceof kind, `round ${round}: ${(error as Error)?.stack}`).toBe(true);

  it('SQLite: mutated real databases answer rows or a SqliteFormatError; each row a header or a RpmHeaderError', () => {
    const { sqlite } = rpmFixture();
    const rng = rngFor(SEED, 'rpm-sqlite');
    const outcomes = { ok: 0, failed: 0 };
    for (let round = 0; round < 300; round++) {
      const bytes = mutateDatabase(rng, sqlite, 4096);
      try {
        const file = new SqliteFile(bytes);
        for (const row of file.rows(tableRootPage(file, 'Packages'), 32 * 1024 * 1024)) {
          const blob = row.values[1];
          if (!(blob instanceof Uint8Array)) continue;
          try {
            expect(typeof parseRpmHeader(blob).name).toBe('string');
          } catch (error) {
            expect(error instanceof RpmHeaderError, `round ${round}: ${(error as Error)?.stack}`).toBe(true);
          }
        }
        outcomes.ok++;
      } catch (error) {
        expectOwnError(error, SqliteFormatError, round);
        outcomes.failed++;
      }
      const database = readRpmDatabase(bytes, 'sqlite');
      checkPackages(rpmPackages(database, '/var/lib/rpm/rpmdb.sqlite', { distro: { id: 'fedora' } }).packages);
    }
    expect(outcomes.ok).toBeGreaterThan(10);
    expect(outcomes.failed).toBeGreaterThan(10);
  }, 120_000);

  it('Berkeley DB: mutated real databases answer entries or a BdbFormatError', () => {
    const { bdb } = rpmFixture();
    const rng = rngFor(SEED, 'rpm-bdb');
    const outcomes = { ok: 0, failed: 0 };
    for (let round = 0; round < 300; round++) {
      const bytes = mutateDatabase(rng, bdb, 4096);
      try {
        for (const entry of readBdbHash(bytes, 32 * 1024 * 1024)) expect(entry.value.length).toBeGreaterThanOrEqual(0);
        outcomes.ok++;
      } catch (error) {
        expectOwnError(error, BdbFormatError, round);
        outcomes.failed++;
      }
      checkPackages(rpmPackages(readRpmDatabase(bytes, 'bdb'), '/var/lib/rpm/Packages', {}).packages);
    }
    expect(outcomes.ok).toBeGreaterThan(10);
    expect(outcomes.failed).toBeGreaterThan(10);
  }, 120_000);

  it('NDB: mutated databases answer blobs or an NdbFormatError', () => {
    const { ndb } = rpmFixture();
    const rng = rngFor(SEED, 'rpm-ndb');
    const outcomes = { ok: 0, failed: 0 };
    for (let round = 0; round < 300; round++) {
      // Mostly the slot page (the file's first 4 KiB), where a byte changes where the blobs are.
      const bytes = mutateDatabase(rng, ndb, rng.bool() ? 4096 : 256);
      try {
        for (const entry of readNdb(bytes, 32 * 1024 * 1024)) expect(entry.pkgidx).toBeGreaterThan(0);
        outcomes.ok++;
      } catch (error) {
        expectOwnError(error, NdbFormatError, round);
        outcomes.failed++;
      }
      checkPackages(rpmPackages(readRpmDatabase(bytes, 'ndb'), '/usr/lib/sysimage/rpm/Packages.db', {}).packages);
    }
    // Every slot carries a magic and every blob a checksum: nearly every mutation is caught.
    expect(outcomes.failed).toBeGreaterThan(outcomes.ok);
  }, 120_000);

  it('rpm headers: mutated counts, entries and data parse or throw a RpmHeaderError', () => {
    const { headers } = rpmFixture();
    const rng = rngFor(SEED, 'rpm-headers');
    for (let round = 0; round < 3000; round++) {
      const blob = rng.pick(headers).slice();
      const view = new DataView(blob.buffer);
      for (let count = rng.int(1, 3); count > 0; count--) {
        const entries = Math.max(1, view.getUint32(0));
        // Mostly the counts and the index (tag, type, offset, count), sometimes the data store.
        const at = rng.bool(0.8)
          ? rng.int(0, Math.min(blob.length - 4, 8 + entries * 16))
          : rng.int(0, blob.length - 4);
        if (rng.bool()) view.setUint32(at, rng.pick(INTERESTING_U32));
        else blob[at] = rng.int(0, 255);
      }
      const cut = rng.bool(0.1) ? blob.subarray(0, rng.int(0, blob.length)) : blob;
      try {
        const header = parseRpmHeader(cut);
        expect(header.name).not.toBe('');
      } catch (error) {
        expect(error instanceof RpmHeaderError, `round ${round}: ${(error as Error)?.stack}`).toBe(true);
      }
    }
  });
});
