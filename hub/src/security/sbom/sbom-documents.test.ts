import { describe, expect, it } from 'vitest';
import { cycloneDxErrors, spdxProblems } from '../../../../test/support/sbom/document-validators';
import type { ImageSbom } from '../sbom-model';
import { toCycloneDx } from './cyclonedx-document';
import { knownLicenseExpression } from './license-ids';
import { toSpdx } from './spdx-document';

const SBOM: ImageSbom = {
  imageId: 'sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  imageRef: 'example/app:1.2',
  distro: { id: 'debian', versionId: '12', codename: 'bookworm', prettyName: 'Debian GNU/Linux 12 (bookworm)' },
  generatedAt: '2026-11-27T01:02:03.456Z',
  warnings: ['/var/lib/dpkg/status: 1 garbage lines skipped'],
  packages: [
    {
      type: 'deb',
      namespace: 'debian',
      name: 'libssl3',
      version: '3.0.11-1~deb12u2',
      purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
      source: { name: 'openssl', version: '3.0.11-1~deb12u2' },
      licenses: [],
      location: '/var/lib/dpkg/status',
    },
    {
      type: 'npm',
      namespace: '@types',
      name: 'node',
      version: '20.11.0',
      purl: 'pkg:npm/%40types/node@20.11.0',
      licenses: ['mit'],
      location: '/a',
    },
    {
      type: 'npm',
      name: 'dual',
      version: '1.0.0',
      purl: 'pkg:npm/dual@1.0.0',
      licenses: ['(MIT OR Apache-2.0)'],
      location: '/b',
    },
    {
      type: 'apk',
      name: 'x',
      version: '1-r0',
      purl: 'pkg:apk/alpine/x@1-r0',
      licenses: ['GPL-2.0-only WITH Classpath-exception-2.0'],
      location: '/c',
    },
    {
      type: 'pypi',
      name: 'six',
      version: '1.16.0',
      purl: 'pkg:pypi/six@1.16.0',
      licenses: ['MIT License', 'BSD-3-Clause'],
      location: '/d',
    },
    // The same purl twice (two binaries with the same module): bom-refs and SPDX ids stay unique.
    {
      type: 'golang',
      namespace: 'example.com',
      name: 'greet',
      version: 'v0.1.0',
      purl: 'pkg:golang/example.com/greet@v0.1.0',
      licenses: [],
      location: '/e',
    },
    {
      type: 'golang',
      namespace: 'example.com',
      name: 'greet',
      version: 'v0.1.0',
      purl: 'pkg:golang/example.com/greet@v0.1.0',
      licenses: ['Weird, custom; text'],
      location: '/f',
    },
  ],
};

describe('CycloneDX 1.6', () => {
  it('validates against the published schema, with ids, names and expressions where each belongs', () => {
    const document = toCycloneDx(SBOM, { toolVersion: '0.1.0', uuid: '3f1c2d1e-0000-4000-8000-000000000001' });
    expect(cycloneDxErrors(document)).toEqual([]);
    const components = document['components'] as Array<Record<string, unknown>>;
    expect(components[0]).toMatchObject({ type: 'operating-system', name: 'debian', version: '12' });
    expect(components.map((component) => component['bom-ref'])).toContain('pkg:golang/example.com/greet@v0.1.0#2');
    const licensesOf = (name: string) => components.find((component) => component['name'] === name)?.['licenses'];
    expect(licensesOf('node')).toEqual([{ license: { id: 'MIT' } }]);
    expect(licensesOf('dual')).toEqual([{ expression: '(MIT OR Apache-2.0)' }]);
    expect(licensesOf('six')).toEqual([{ license: { name: 'MIT License' } }, { license: { id: 'BSD-3-Clause' } }]);
    expect(document['serialNumber']).toBe('urn:uuid:3f1c2d1e-0000-4000-8000-000000000001');
  });

  it('is refused by the schema when broken (the check can fail)', () => {
    const document = toCycloneDx(SBOM, { toolVersion: '0.1.0' });
    (document['components'] as Array<Record<string, unknown>>)[1] = {
      type: 'library',
      licenses: [{ license: { id: 'Not-A-Licence' } }],
    };
    expect(cycloneDxErrors(document).length).toBeGreaterThan(0);
  });
});

describe('SPDX 2.3', () => {
  it('holds every field SPDX 2.3 requires; unknown licence text as LicenseRef with its text', () => {
    const document = toSpdx(SBOM, { toolVersion: '0.1.0', uuid: 'u' });
    expect(spdxProblems(document)).toEqual([]);
    expect((document['creationInfo'] as Record<string, unknown>)['created']).toBe('2026-11-27T01:02:03Z');
    const packages = document['packages'] as Array<Record<string, unknown>>;
    expect(packages.map((pkg) => pkg['licenseDeclared'])).toEqual([
      'NOASSERTION',
      'NOASSERTION',
      'MIT',
      '(MIT OR Apache-2.0)',
      'GPL-2.0-only WITH Classpath-exception-2.0',
      'LicenseRef-1-MIT-License AND BSD-3-Clause',
      'NOASSERTION',
      'LicenseRef-2-Weird-custom-text',
    ]);
    expect(document['hasExtractedLicensingInfos']).toEqual([
      { licenseId: 'LicenseRef-1-MIT-License', extractedText: 'MIT License', name: 'MIT License' },
      {
        licenseId: 'LicenseRef-2-Weird-custom-text',
        extractedText: 'Weird, custom; text',
        name: 'Weird, custom; text',
      },
    ]);
    expect(packages[1]?.['externalRefs']).toEqual([
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
      },
    ]);
    expect((document['relationships'] as unknown[]).length).toBe(1 + SBOM.packages.length);
  });

  it('the checker finds what a broken document lacks', () => {
    const document = toSpdx(SBOM, { toolVersion: '0.1.0' });
    delete document['dataLicense'];
    (document['packages'] as Array<Record<string, unknown>>)[2] = {
      SPDXID: 'SPDXRef-Image',
      name: '',
      licenseDeclared: 'Nope-1.0',
    };
    expect(spdxProblems(document)).toEqual(
      expect.arrayContaining([
        '6.2 dataLicense must be CC0-1.0',
        'packages[2] 7.1 name is required',
        'packages[2] 7.2 SPDXID must be unique',
        'packages[2] 7.15: Nope-1.0 is no SPDX id nor a declared LicenseRef',
      ]),
    );
  });
});

describe('knownLicenseExpression', () => {
  it('accepts expressions of known ids and refuses the rest', () => {
    expect(knownLicenseExpression('mit or apache-2.0')).toBe('MIT OR Apache-2.0');
    expect(knownLicenseExpression('MPL-1.1+')).toBe('MPL-1.1+');
    expect(knownLicenseExpression('MIT License')).toBeUndefined();
    expect(knownLicenseExpression('(MIT')).toBeUndefined();
    expect(knownLicenseExpression('MIT AND')).toBeUndefined();
  });
});
