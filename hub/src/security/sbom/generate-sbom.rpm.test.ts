/**
 * The generator on images of rpm distributions: the real databases of test/support/sbom/rpm-fixture.ts
 * in layer tars beside an os-release, in the places Rocky/RHEL (var/lib/rpm), Fedora ≥ 36
 * (usr/lib/sysimage/rpm, var/lib/rpm a symlink to it), CentOS 7 (BDB) and openSUSE (NDB) put them.
 */
import { readFileSync } from 'node:fs';
import { createStorage } from 'unstorage';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../../shared/logging/logger';
import { classicArchive, layerTar, ociArchive } from '../../../../test/support/sbom/archive-builder';
import type { FileTree } from '../../../../test/support/sbom/image-fixture';
import { removeRpmFixture, rpmFixture } from '../../../../test/support/sbom/rpm-fixture';
import { inChunks } from '../../../../test/support/sbom/tar-builder';
import { importOsvExport } from '../osv/osv-import';
import { OsvStore } from '../osv/osv-store';
import { scanSbom } from '../osv/scan-sbom';
import { toCycloneDx } from './cyclonedx-document';
import { generateSbom } from './generate-sbom';

afterAll(removeRpmFixture);

const LEFT_PAD: FileTree = {
  'app/node_modules/left-pad/package.json': { content: '{"name":"left-pad","version":"1.3.0","license":"WTFPL"}' },
};

async function sbomOf(layers: Uint8Array[], oci = false) {
  const archive = oci ? ociArchive(layers) : classicArchive(layers);
  return generateSbom(inChunks(archive.bytes, [65536, 1000]), { imageId: archive.imageId, imageRef: 'rpm:1' });
}

describe('generateSbom on rpm images', () => {
  it('Rocky Linux 9 (SQLite in /var/lib/rpm): every package with its purl, in the CycloneDX document too', async () => {
    const { sqlite, expected } = rpmFixture();
    const sbom = await sbomOf([
      layerTar({
        'etc/os-release': { content: 'NAME="Rocky Linux"\nID="rocky"\nVERSION_ID="9.3"\n' },
        'var/lib/rpm/rpmdb.sqlite': { content: sqlite },
        ...LEFT_PAD,
      }),
    ]);
    expect(sbom.warnings).toBeUndefined();
    const rpms = sbom.packages.filter((pkg) => pkg.type === 'rpm');
    expect(rpms.map((pkg) => pkg.name).sort()).toEqual(expected.map((row) => row.name));
    expect(rpms.find((pkg) => pkg.name === 'tinyepoch-libs')).toEqual({
      type: 'rpm',
      namespace: 'rocky',
      name: 'tinyepoch-libs',
      version: '2:1.0~rc1-3.fc39',
      purl: 'pkg:rpm/rocky/tinyepoch-libs@1.0~rc1-3.fc39?arch=noarch&distro=rocky-9.3&epoch=2',
      source: { name: 'tinyepoch', version: '1.0~rc1-3.fc39' },
      licenses: ['MIT'],
      location: '/var/lib/rpm/rpmdb.sqlite',
    });
    expect(sbom.packages.some((pkg) => pkg.purl === 'pkg:npm/left-pad@1.3.0')).toBe(true);
    const document = toCycloneDx(sbom, { toolVersion: '0.0.0', uuid: '3f1c2d1e-0000-4000-8000-000000000001' });
    const components = document['components'] as Array<{ purl?: string; licenses?: unknown }>;
    expect(components.filter((component) => component.purl?.startsWith('pkg:rpm/rocky/'))).toHaveLength(45);
    expect(components.find((component) => component.purl?.startsWith('pkg:rpm/rocky/tinyepoch@'))?.licenses).toEqual([
      { expression: 'MIT AND (Apache-2.0 OR BSD-3-Clause)' },
    ]);
  });

  it('Fedora (usr/lib/sysimage/rpm, OCI layout), CentOS 7 (Berkeley DB), openSUSE (NDB); a later layer replaces the database', async () => {
    const { sqlite, bdb, ndb } = rpmFixture();
    const fedora = await sbomOf(
      [
        layerTar({
          'etc/os-release': { content: 'ID=fedora\nVERSION_ID=39\n' },
          'var/lib/rpm': { symlink: '../../usr/lib/sysimage/rpm' },
          'usr/lib/sysimage/rpm/rpmdb.sqlite': { content: sqlite },
        }),
      ],
      true,
    );
    expect(fedora.packages).toHaveLength(45);
    expect(fedora.packages.find((pkg) => pkg.name === 'caret')?.purl).toBe(
      'pkg:rpm/fedora/caret@2.0%5Egit1-1?arch=noarch&distro=fedora-39',
    );
    const centos = await sbomOf([
      layerTar({ 'etc/os-release': { content: 'ID="centos"\nVERSION_ID="7"\n' } }),
      layerTar({ 'var/lib/rpm/Packages': { content: bdb } }),
    ]);
    expect(centos.packages).toHaveLength(45);
    expect(
      centos.packages.every((pkg) => pkg.purl.startsWith('pkg:rpm/centos/') && pkg.purl.includes('distro=centos-7')),
    ).toBe(true);
    const leap = await sbomOf([
      layerTar({
        'etc/os-release': { content: 'NAME="openSUSE Leap"\nID="opensuse-leap"\nVERSION_ID="15.5"\n' },
        'usr/lib/sysimage/rpm/Packages.db': { content: ndb },
      }),
    ]);
    expect(leap.packages).toHaveLength(45);
    expect(leap.packages.every((pkg) => pkg.purl.startsWith('pkg:rpm/opensuse/'))).toBe(true);
    // The upper layer's database is the one in the image, even when it cannot be read.
    const replaced = await sbomOf([
      layerTar({ 'var/lib/rpm/Packages': { content: bdb }, ...LEFT_PAD }),
      layerTar({ 'var/lib/rpm/Packages': { content: bdb.slice(0, 8192) } }),
    ]);
    expect(replaced.packages.map((pkg) => pkg.purl)).toEqual(['pkg:npm/left-pad@1.3.0']);
    expect(replaced.warnings).toEqual([
      expect.stringMatching(/^\/var\/lib\/rpm\/Packages: not read: berkeley db: overflow page \d+ outside the file$/),
    ]);
  });

  it('a corrupted rpm database is a warning of that scan; the other cataloguers’ packages are still reported', async () => {
    const broken = rpmFixture().sqlite.slice();
    // The Packages table's root page (2) made to point at itself: a cycle.
    new DataView(broken.buffer).setUint32(4096 + 8, 2);
    const sbom = await sbomOf([
      layerTar({
        'etc/os-release': { content: 'ID=almalinux\nVERSION_ID=9.4\n' },
        'var/lib/rpm/rpmdb.sqlite': { content: broken },
        'var/lib/dpkg/status': { content: 'Package: odd\nStatus: install ok installed\nVersion: 1\n' },
        ...LEFT_PAD,
      }),
    ]);
    expect(sbom.packages.map((pkg) => pkg.purl).sort()).toEqual([
      'pkg:deb/almalinux/odd@1?distro=almalinux-9.4',
      'pkg:npm/left-pad@1.3.0',
    ]);
    expect(sbom.warnings).toEqual(['/var/lib/rpm/rpmdb.sqlite: not read: sqlite: page 2 reached twice (a cycle)']);
  });

  it('a UBI 9 image (ID=rhel), scanned against Red Hat streams: binary rpm names, a missing epoch as 0:', async () => {
    const sbom = await sbomOf([
      layerTar({
        'etc/os-release': { content: 'NAME="Red Hat Enterprise Linux"\nID="rhel"\nVERSION_ID="9.4"\n' },
        'var/lib/rpm/rpmdb.sqlite': { content: rpmFixture().sqlite },
      }),
    ]);
    const store = new OsvStore(
      createStorage(),
      createLogger({ level: 'error', ring: createLogRing(10), sink: silentSink }),
    );
    const fixture = new URL('../../../../test/support/fixtures/osv/redhat-advisories.json', import.meta.url);
    await importOsvExport(
      store,
      readFileSync(fixture),
      'file:redhat-advisories.json',
      Date.parse('2026-06-01T00:00:00Z'),
    );
    const findings = await scanSbom(sbom, store);
    // RHSA-2099:0108 lists tinyepoch-libs, not its source rpm tinyepoch; RHSA-2099:0109 lists caret
    // in two streams, fixed in 0:2.0^git2, which the epoch-less 2.0^git1 is before.
    expect(
      findings.map((f) => [f.id, f.package.purl, f.installedVersion, f.package.ecosystem, f.fixedVersions]),
    ).toEqual([
      [
        'RHSA-2099:0108',
        'pkg:rpm/redhat/tinyepoch-libs@1.0~rc1-3.fc39?arch=noarch&distro=rhel-9.4&epoch=2',
        '2:1.0~rc1-3.fc39',
        'Red Hat:enterprise_linux:9::appstream',
        ['2:1.0-1.el9'],
      ],
      [
        'RHSA-2099:0109',
        'pkg:rpm/redhat/caret@2.0%5Egit1-1?arch=noarch&distro=rhel-9.4',
        '2.0^git1-1',
        'Red Hat:enterprise_linux:9::appstream',
        ['0:2.0^git2-1.el9'],
      ],
    ]);
  });

  it('the SBOM of the Rocky image, scanned: the epoch-2 prerelease is found by the advisory fixed in 2:1.0', async () => {
    const sbom = await sbomOf([
      layerTar({
        'etc/os-release': { content: 'ID="rocky"\nVERSION_ID="9.3"\n' },
        'var/lib/rpm/rpmdb.sqlite': { content: rpmFixture().sqlite },
      }),
    ]);
    const store = new OsvStore(
      createStorage(),
      createLogger({ level: 'error', ring: createLogRing(10), sink: silentSink }),
    );
    const fixture = new URL('../../../../test/support/fixtures/osv/rpm-advisories.json', import.meta.url);
    await importOsvExport(store, readFileSync(fixture), 'file:rpm-advisories.json', Date.parse('2026-06-01T00:00:00Z'));
    const findings = await scanSbom(sbom, store);
    // Both binary packages of the tinyepoch source rpm; not RLSA-TEST-0002 (fixed in epoch 1) nor 0003 (~beta2).
    expect(findings.map((finding) => [finding.id, finding.package.purl, finding.installedVersion]).sort()).toEqual([
      [
        'RLSA-TEST-0001',
        'pkg:rpm/rocky/tinyepoch-libs@1.0~rc1-3.fc39?arch=noarch&distro=rocky-9.3&epoch=2',
        '2:1.0~rc1-3.fc39',
      ],
      [
        'RLSA-TEST-0001',
        'pkg:rpm/rocky/tinyepoch@1.0~rc1-3.fc39?arch=noarch&distro=rocky-9.3&epoch=2',
        '2:1.0~rc1-3.fc39',
      ],
    ]);
  });
});
