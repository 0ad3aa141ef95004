/**
 * The matcher against the fixture database (test/support/fixtures/osv/advisories.json): imported
 * through the real import (as JSON, and as a zip like OSV's all.zip), stored in a real unstorage,
 * then matched against SBOMs built by hand from the SBOM model (the generator is tested on its own;
 * these name exactly the packages each fixture entry is about).
 */
import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../../shared/logging/logger';
import type { ImageSbom, SbomPackage } from '../sbom-model';
import { importOsvExport } from './osv-import';
import { OsvStore } from './osv-store';
import { scanSbom } from './scan-sbom';

const FIXTURE = new URL('../../../../test/support/fixtures/osv/advisories.json', import.meta.url);
const RPM_FIXTURE = new URL('../../../../test/support/fixtures/osv/rpm-advisories.json', import.meta.url);
const REDHAT_FIXTURE = new URL('../../../../test/support/fixtures/osv/redhat-advisories.json', import.meta.url);
const NOW = Date.parse('2026-06-01T00:00:00Z');

function logger() {
  return createLogger({ level: 'error', ring: createLogRing(10), sink: silentSink });
}

function pkg(type: SbomPackage['type'], name: string, version: string, extra: Partial<SbomPackage> = {}): SbomPackage {
  return { type, name, version, purl: `pkg:${type}/${name}@${version}`, licenses: [], location: '/fixture', ...extra };
}

const debianImage: ImageSbom = {
  imageId: 'sha256:debian',
  imageRef: 'fixture/debian:12',
  distro: { id: 'debian', versionId: '12', codename: 'bookworm' },
  generatedAt: '2026-06-01T00:00:00Z',
  packages: [
    // A binary package: advisories name its source package and version.
    pkg('deb', 'libssl3', '3.0.11-1~deb12u1', {
      namespace: 'debian',
      source: { name: 'openssl', version: '3.0.11-1~deb12u1' },
    }),
    pkg('deb', 'libepoch', '1:1.0-1', { namespace: 'debian' }),
    pkg('npm', 'express', '4.17.3-rc.1'),
    pkg('npm', 'pkg', '2.0.0-beta.11', { namespace: '@scope', purl: 'pkg:npm/%40scope/pkg@2.0.0-beta.11' }),
    pkg('npm', 'gitonly', '1.0.0'),
    pkg('pypi', 'requests', '2.31.0'),
    pkg('golang', 'mod', 'v1.4.0', { namespace: 'github.com/example' }),
    pkg('golang', 'other', 'v1.6.0', { namespace: 'github.com/example' }),
    pkg('maven', 'lib', '1.2.3', { namespace: 'org.example' }),
  ],
};

const alpineImage: ImageSbom = {
  imageId: 'sha256:alpine',
  imageRef: 'fixture/alpine:3.19',
  distro: { id: 'alpine', versionId: '3.19.1' },
  generatedAt: '2026-06-01T00:00:00Z',
  packages: [
    pkg('apk', 'musl', '1.2.4_rc1-r0', { namespace: 'alpine', source: { name: 'musl' } }),
    pkg('apk', 'busybox-binsh', '1.36.1-r15', { namespace: 'alpine', source: { name: 'busybox' } }),
  ],
};

async function fixtureStore(bytes: Uint8Array) {
  const store = new OsvStore(createStorage(), logger());
  const meta = await importOsvExport(store, bytes, 'file:advisories.json', NOW);
  return { store, meta };
}

const summaryOf = (findings: Awaited<ReturnType<typeof scanSbom>>) =>
  findings.map((f) => [f.id, f.package.name, f.installedVersion, f.severity, f.score ?? null, f.fixedVersions]);

describe('OSV matching against the fixture database', () => {
  it('imports the fixture: the good entries indexed, the withdrawn one left out, each hostile one skipped and counted', async () => {
    const { meta } = await fixtureStore(readFileSync(FIXTURE));
    expect(meta.counts).toMatchObject({ imported: 12, withdrawn: 1, skipped: 7, indexed: 13 });
    expect(meta.counts.problems.join('\n')).toMatch(/HOSTILE-TEST-0005: a range without an introduced event/);
    expect(meta.counts.problems.join('\n')).toMatch(/HOSTILE-TEST-0003: a SEMVER range/);
    expect(meta).toMatchObject({ source: 'file:advisories.json', importedAt: '2026-06-01T00:00:00.000Z' });
  });

  it('finds exactly the expected vulnerabilities of a Debian image with language packages', async () => {
    const { store } = await fixtureStore(readFileSync(FIXTURE));
    expect(summaryOf(await scanSbom(debianImage, store))).toEqual([
      ['DSA-TEST-0001', 'openssl', '3.0.11-1~deb12u1', 'critical', 9.8, ['3.0.11-1~deb12u2']],
      ['GHSA-test-0003', 'org.example:lib', '1.2.3', 'critical', 9.3, []],
      ['GHSA-test-0001', 'express', '4.17.3-rc.1', 'high', 7.5, ['4.17.3']],
      ['DSA-TEST-0003', 'libepoch', '1:1.0-1', 'medium', 5.4, ['1:1.0-2']],
      ['GO-TEST-0001', 'github.com/example/mod', 'v1.4.0', 'medium', 6.1, []],
      ['PYSEC-TEST-0001', 'requests', '2.31.0', 'medium', null, []],
    ]);
  });

  it('finds exactly the expected vulnerabilities of an Alpine image (by origin, _rc before the release, -r15 after -r7)', async () => {
    const { store } = await fixtureStore(readFileSync(FIXTURE));
    const findings = await scanSbom(alpineImage, store);
    expect(summaryOf(findings)).toEqual([['ALPINE-TEST-0001', 'musl', '1.2.4_rc1-r0', 'high', null, ['1.2.4-r0']]]);
    expect(findings[0]).toMatchObject({ aliases: [], url: 'https://osv.dev/vulnerability/ALPINE-TEST-0001' });
  });

  it('keeps the aliases, the summary and the advisory URL of a finding', async () => {
    const { store } = await fixtureStore(readFileSync(FIXTURE));
    const [first] = await scanSbom(debianImage, store);
    expect(first).toMatchObject({
      aliases: ['CVE-2099-0001'],
      summary: 'openssl: remote code execution in the test fixture',
      url: 'https://security-tracker.debian.org/tracker/CVE-2099-0001',
      package: { ecosystem: 'Debian:12', purl: debianImage.packages[0]?.purl },
    });
  });

  it('reads the same entries from a zip of one JSON per advisory (all.zip), skipping a file that is not JSON', async () => {
    const entries = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[];
    const files: Record<string, Uint8Array> = { 'broken.json': strToU8('{ not json') };
    entries.forEach((entry, index) => {
      files[`${index}.json`] = strToU8(JSON.stringify(entry));
    });
    const { store, meta } = await fixtureStore(zipSync(files));
    expect(meta.counts).toMatchObject({ imported: 12, withdrawn: 1, skipped: 8 });
    expect((await scanSbom(debianImage, store)).map((f) => f.id)).toEqual([
      'DSA-TEST-0001',
      'GHSA-test-0003',
      'GHSA-test-0001',
      'DSA-TEST-0003',
      'GO-TEST-0001',
      'PYSEC-TEST-0001',
    ]);
  });

  it('skips an entry with a huge versions array and keeps the rest; JSON Lines with a broken line', async () => {
    const huge = {
      id: 'HUGE-1',
      affected: [{ package: { ecosystem: 'npm', name: 'express' }, versions: Array(30_000).fill('4.17.3-rc.1') }],
    };
    const good = {
      id: 'GOOD-1',
      affected: [{ package: { ecosystem: 'npm', name: 'express' }, versions: ['4.17.3-rc.1'] }],
    };
    const lines = [JSON.stringify(huge), '{"id": broken', JSON.stringify(good)].join('\n');
    const { store, meta } = await fixtureStore(strToU8(lines));
    expect(meta.counts).toMatchObject({ imported: 1, skipped: 2 });
    expect((await scanSbom(debianImage, store)).map((f) => f.id)).toEqual(['GOOD-1']);
  });

  it('reads a tampered bucket as empty: its packages find nothing, the rest still match', async () => {
    const storage = createStorage();
    await importOsvExport(new OsvStore(storage, logger()), readFileSync(FIXTURE), 'fixture', NOW);
    const buckets = (await storage.getKeys('security:osv')).filter((key) => key !== 'security:osv:meta');
    for (const key of buckets) await storage.setItem(key, { 'npm\u0000express': [{ id: 42 }] });
    expect(await scanSbom(debianImage, new OsvStore(storage, logger()))).toEqual([]);
  });

  it('a re-import replaces the database and removes the previous generation from storage', async () => {
    const storage = createStorage();
    const store = new OsvStore(storage, logger());
    await importOsvExport(store, readFileSync(FIXTURE), 'first', NOW);
    const firstKeys = await storage.getKeys('security:osv');
    await importOsvExport(store, strToU8('[]'), 'second', NOW + 1000);
    const keys = await storage.getKeys('security:osv');
    expect(keys.some((key) => firstKeys.includes(key) && key !== 'security:osv:meta')).toBe(false);
    expect(await scanSbom(debianImage, store)).toEqual([]);
    // A fresh reader of the same storage sees the same database.
    expect((await new OsvStore(storage, logger()).status())?.source).toBe('second');
  });
});

describe('OSV matching of rpm packages', () => {
  const rpmImage = (distro: ImageSbom['distro'], packages: SbomPackage[]): ImageSbom => ({
    imageId: `sha256:${distro?.id}`,
    imageRef: `fixture/${distro?.id}`,
    ...(distro ? { distro } : {}),
    generatedAt: '2026-06-01T00:00:00Z',
    packages,
  });
  // As the rpm cataloguer names them: the epoch in the version, the source rpm's name.
  const tinyepoch = pkg('rpm', 'tinyepoch-libs', '2:1.0~rc1-3.el9', {
    source: { name: 'tinyepoch', version: '1.0~rc1-3.el9' },
  });
  const caret = pkg('rpm', 'caret', '2.0^git1-1.el9', { source: { name: 'caret', version: '2.0^git1-1.el9' } });

  it('orders epochs, ~ and ^ as rpm does: a Rocky Linux 9 and an AlmaLinux 9 image', async () => {
    const { store } = await fixtureStore(readFileSync(RPM_FIXTURE));
    const rocky = await scanSbom(rpmImage({ id: 'rocky', versionId: '9.3' }, [tinyepoch, caret]), store);
    expect(summaryOf(rocky)).toEqual([
      ['RLSA-TEST-0001', 'tinyepoch', '2:1.0~rc1-3.el9', 'critical', 9.8, ['2:1.0-1.el9']],
    ]);
    expect(rocky[0]?.package).toMatchObject({ type: 'rpm', ecosystem: 'Rocky Linux:9' });
    const alma = await scanSbom(rpmImage({ id: 'almalinux', versionId: '9.4' }, [tinyepoch, caret]), store);
    expect(summaryOf(alma)).toEqual([
      ['ALSA-TEST-0001', 'caret', '2.0^git1-1.el9', 'unknown', null, ['2.0^git2-1.el9']],
    ]);
  });

  it('looks openSUSE Leap and SLES images up in their product ecosystems; CentOS and unknown distros in none', async () => {
    const { store } = await fixtureStore(readFileSync(RPM_FIXTURE));
    const ids = async (distro: ImageSbom['distro']) =>
      (await scanSbom(rpmImage(distro, [tinyepoch, caret]), store)).map((f) => [f.id, f.package.ecosystem]);
    expect(await ids({ id: 'opensuse-leap', versionId: '15.5' })).toEqual([
      ['openSUSE-TEST-0001', 'openSUSE:Leap 15.5'],
    ]);
    expect(await ids({ id: 'sles', versionId: '15.5' })).toEqual([
      ['SUSE-TEST-0001', 'SUSE:Linux Enterprise Server 15 SP5'],
    ]);
    expect(await ids({ id: 'sles', versionId: '15' })).toEqual([]);
    expect(await ids({ id: 'centos', versionId: '9' })).toEqual([]);
    expect(await ids(undefined)).toEqual([]);
  });
});

/**
 * RHEL and UBI images (os-release ID=rhel) against test/support/fixtures/osv/redhat-advisories.json,
 * entries shaped as Red Hat's CSAF-to-OSV converter writes them (ossf/osv-schema tools/redhat): RHSA
 * ids, CVEs in `upstream`, one affected entry per (stream, binary rpm), fixes as `epoch:version-release`
 * with an explicit `0:`, a CVSS v3 vector of the advisory's worst CVE.
 */
describe('OSV matching of RHEL images against the Red Hat streams', () => {
  const rhel = (versionId: string, packages: SbomPackage[]): ImageSbom => ({
    imageId: `sha256:rhel-${versionId}`,
    imageRef: `registry.access.redhat.com/ubi${versionId.split('.')[0]}`,
    distro: { id: 'rhel', versionId },
    generatedAt: '2026-06-01T00:00:00Z',
    packages,
  });
  // As the rpm cataloguer names them: the epoch in the version when the header has one, the source rpm.
  const rpm = (name: string, version: string, source: string, distro: string) => {
    const [epoch, versionRelease] = version.includes(':') ? version.split(':') : [undefined, version];
    return pkg('rpm', name, version, {
      namespace: 'redhat',
      purl: `pkg:rpm/redhat/${name}@${versionRelease}?arch=x86_64&distro=${distro}${epoch ? `&epoch=${epoch}` : ''}`,
      source: { name: source, version: versionRelease ?? version },
    });
  };
  const ubi9 = rhel('9.4', [
    // Fixed in 1:3.0.7-27.el9: the release before it, same epoch, is affected.
    rpm('openssl-libs', '1:3.0.7-24.el9', 'openssl', 'rhel-9.4'),
    // No epoch in the rpm database, `0:` in the fix: both epoch 0. Listed in appstream and baseos.
    rpm('sudo', '1.9.5p2-9.el9', 'sudo', 'rhel-9.4'),
    // Fixed in a build below the installed one, and in exactly the installed one.
    rpm('libxml2', '2.9.13-6.el9_4', 'libxml2', 'rhel-9.4'),
    rpm('curl', '7.76.1-29.el9_4', 'curl', 'rhel-9.4'),
    rpm('libcurl', '7.76.1-29.el9_4', 'curl', 'rhel-9.4'),
    // Fixed above the installed build only for RHEL 8, and for 9.2 extended update support.
    rpm('bash', '5.1.8-9.el9', 'bash', 'rhel-9.4'),
    rpm('glibc', '2.34-100.el9', 'glibc', 'rhel-9.4'),
  ]);

  it('imports the Red Hat entries: a fix listed for two streams of a release is stored once', async () => {
    const { store, meta } = await fixtureStore(readFileSync(REDHAT_FIXTURE));
    expect(meta.counts).toMatchObject({ imported: 8, withdrawn: 0, skipped: 0, indexed: 17 });
    const sudo = await store.lookup('Red Hat:enterprise_linux:9', 'sudo');
    expect(sudo.map((advisory) => [advisory.id, advisory.ecosystem])).toEqual([
      ['RHSA-2099:0102', 'Red Hat:enterprise_linux:9::appstream'],
    ]);
    // The extended-support stream keeps its own key.
    expect(await store.lookup('Red Hat:enterprise_linux:9', 'glibc')).toEqual([]);
    expect((await store.lookup('Red Hat:rhel_eus:9.2::baseos', 'glibc')).map((advisory) => advisory.id)).toEqual([
      'RHSA-2099:0106',
    ]);
  });

  it('finds exactly the expected vulnerabilities of a UBI 9 image, by binary rpm name, each once', async () => {
    const { store } = await fixtureStore(readFileSync(REDHAT_FIXTURE));
    const findings = await scanSbom(ubi9, store);
    expect(summaryOf(findings)).toEqual([
      ['RHSA-2099:0102', 'sudo', '1.9.5p2-9.el9', 'critical', 9.8, ['0:1.9.5p2-10.el9_3']],
      ['RHSA-2099:0101', 'openssl-libs', '1:3.0.7-24.el9', 'high', 7.5, ['1:3.0.7-27.el9']],
    ]);
    expect(findings.map((finding) => finding.package)).toEqual([
      {
        type: 'rpm',
        name: 'sudo',
        purl: 'pkg:rpm/redhat/sudo@1.9.5p2-9.el9?arch=x86_64&distro=rhel-9.4',
        ecosystem: 'Red Hat:enterprise_linux:9::appstream',
      },
      {
        type: 'rpm',
        name: 'openssl-libs',
        purl: 'pkg:rpm/redhat/openssl-libs@3.0.7-24.el9?arch=x86_64&distro=rhel-9.4&epoch=1',
        ecosystem: 'Red Hat:enterprise_linux:9::baseos',
      },
    ]);
    expect(findings[1]).toMatchObject({
      aliases: ['CVE-2099-1001', 'CVE-2099-1002'],
      summary: 'Red Hat Security Advisory: openssl security update',
      url: 'https://access.redhat.com/errata/RHSA-2099:0101',
    });
  });

  it('applies the RHEL 8 entries to a RHEL 8 image, and no Red Hat entry to CentOS', async () => {
    const { store } = await fixtureStore(readFileSync(REDHAT_FIXTURE));
    const packages = [
      rpm('openssl-libs', '1:1.1.1k-9.el8_7', 'openssl', 'rhel-8.9'),
      rpm('bash', '4.4.20-4.el8_6', 'bash', 'rhel-8.9'),
      rpm('sudo', '1.9.5p2-1.el8_9', 'sudo', 'rhel-8.9'),
    ];
    expect(summaryOf(await scanSbom(rhel('8.9', packages), store))).toEqual([
      ['RHSA-2099:0101', 'openssl-libs', '1:1.1.1k-9.el8_7', 'high', 7.5, ['1:1.1.1k-12.el8_9']],
      ['RHSA-2099:0105', 'bash', '4.4.20-4.el8_6', 'high', 7.5, ['0:9.9-1.el8_10']],
    ]);
    const centos = { ...rhel('8.9', packages), distro: { id: 'centos', versionId: '8' } };
    expect(await scanSbom(centos, store)).toEqual([]);
  });
});
