import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { apkCataloguer } from './apk-cataloguer';
import { dpkgCataloguer, dpkgPackages } from './dpkg-cataloguer';
import { goCataloguer, goPackage, parseModInfo } from './go-cataloguer';
import { javaCataloguer, readJavaArchive } from './java-cataloguer';
import { npmCataloguer, npmPackage, parseNpmManifest } from './npm-cataloguer';
import { parseOsRelease } from './os-release';
import { formatPurl, normalizePypiName } from './purl';
import { parsePythonMetadata, pythonCataloguer } from './python-cataloguer';

const encoder = new TextEncoder();

describe('file selection', () => {
  it('picks exactly the files each cataloguer reads', () => {
    expect(dpkgCataloguer.selects('/var/lib/dpkg/status', 0o644, 1)).toBe(true);
    expect(dpkgCataloguer.selects('/var/lib/dpkg/status.d/base-files', 0o644, 1)).toBe(true);
    expect(dpkgCataloguer.selects('/var/lib/dpkg/status.d/base-files.md5sums', 0o644, 1)).toBe(false);
    expect(dpkgCataloguer.selects('/var/lib/dpkg/status-old', 0o644, 1)).toBe(false);
    expect(apkCataloguer.selects('/lib/apk/db/installed', 0o644, 1)).toBe(true);
    expect(npmCataloguer.selects('/app/node_modules/a/package.json', 0o644, 1)).toBe(true);
    expect(npmCataloguer.selects('/app/node_modules/@s/a/package.json', 0o644, 1)).toBe(true);
    expect(npmCataloguer.selects('/app/node_modules/a/node_modules/b/package.json', 0o644, 1)).toBe(true);
    expect(npmCataloguer.selects('/app/node_modules/a/lib/package.json', 0o644, 1)).toBe(false);
    expect(npmCataloguer.selects('/app/node_modules/.package-lock.json', 0o644, 1)).toBe(false);
    expect(npmCataloguer.selects('/app/package.json', 0o644, 1)).toBe(false);
    expect(pythonCataloguer.selects('/x/site-packages/a-1.dist-info/METADATA', 0o644, 1)).toBe(true);
    expect(pythonCataloguer.selects('/x/site-packages/a.egg-info', 0o644, 1)).toBe(true);
    expect(pythonCataloguer.selects('/x/site-packages/a-1.dist-info/RECORD', 0o644, 1)).toBe(false);
    expect(javaCataloguer.selects('/opt/a.JAR', 0o644, 1)).toBe(true);
    expect(goCataloguer.selects('/usr/bin/x', 0o755, 4096)).toBe(true);
    expect(goCataloguer.selects('/usr/bin/x', 0o644, 4096)).toBe(false);
  });
});

describe('dpkg', () => {
  it('reads distroless status.d stanzas, multi-line fields, and skips what is not installed', () => {
    const text = [
      'Package: libc6\nVersion: 2.36-9\nArchitecture: arm64\nSource: glibc\nDescription: GNU C\n multi\n line\n',
      'Package: half\nStatus: install ok half-installed\nVersion: 1\n',
      'Package: gone\nStatus: purge ok not-installed\nVersion: 1\n',
      'Package: noversion\nStatus: install ok installed\n',
    ].join('\n');
    const result = dpkgPackages(text, '/var/lib/dpkg/status.d/libc6', { distro: { id: 'ubuntu', versionId: '22.04' } });
    expect(result.packages.map((pkg) => pkg.purl)).toEqual([
      'pkg:deb/ubuntu/libc6@2.36-9?arch=arm64&distro=ubuntu-22.04',
    ]);
    expect(result.packages[0]?.source).toEqual({ name: 'glibc', version: '2.36-9' });
    expect(result.warnings).toEqual([
      '/var/lib/dpkg/status.d/libc6: 1 records without a valid Package or Version skipped',
    ]);
  });

  it('names Debian when the image has no os-release, without a distro qualifier', () => {
    expect(dpkgPackages('Package: a\nVersion: 1\n', '/s', {}).packages[0]?.purl).toBe('pkg:deb/debian/a@1');
  });
});

describe('npm, Python, Java, Go', () => {
  it('npm: scoped names, licence objects, missing versions', () => {
    expect(parseNpmManifest('{"name":"@s/a","version":"1.0.0","license":{"type":"ISC"}}')).toEqual({
      name: '@s/a',
      version: '1.0.0',
      licenses: ['ISC'],
    });
    expect(parseNpmManifest('{"name":"a"}')).toEqual({ invalid: 'no name or version' });
    expect(parseNpmManifest('[1]')).toEqual({ invalid: 'not an object' });
    expect(npmPackage({ name: '@s/a', version: '1.0.0', licenses: [] }, '/p').purl).toBe('pkg:npm/%40s/a@1.0.0');
  });

  it('Python: License-Expression first, UNKNOWN and long licence texts fall back to classifiers', () => {
    expect(parsePythonMetadata('Name: A_b\nVersion: 2\nLicense-Expression: MIT OR Apache-2.0\nLicense: x\n')).toEqual({
      name: 'A_b',
      version: '2',
      licenses: ['MIT OR Apache-2.0'],
    });
    const long = `Name: a\nVersion: 1\nLicense: ${'x'.repeat(200)}\nClassifier: License :: OSI Approved :: BSD License\n`;
    expect(parsePythonMetadata(long)).toMatchObject({ licenses: ['BSD License'] });
    expect(parsePythonMetadata('Version: 1\n')).toEqual({ invalid: 'no Name or Version' });
    expect(normalizePypiName('Zope.Interface__X')).toBe('zope-interface-x');
  });

  it('Java: pom.properties of the jar and its nested jars; a broken zip counted', () => {
    const inner = zipSync({
      'META-INF/maven/g2/a2/pom.properties': encoder.encode('groupId=g2\nartifactId=a2\nversion=2\n'),
    });
    const outer = zipSync({
      'META-INF/maven/g/a/pom.properties': encoder.encode('# c\ngroupId = g\nartifactId=a\nversion=1\n'),
      'META-INF/maven/g/bad/pom.properties': encoder.encode('groupId=g\n'),
      'WEB-INF/lib/a2.jar': inner,
      'lib/ignored.jar': inner,
    });
    const archive = readJavaArchive(outer);
    expect(archive).toEqual({
      artifacts: [
        { groupId: 'g', artifactId: 'a', version: '1' },
        { groupId: 'g2', artifactId: 'a2', version: '2', inner: 'WEB-INF/lib/a2.jar' },
      ],
    });
    const result = javaCataloguer.catalogue(
      [
        { path: '/a.war', value: archive },
        { path: '/b.jar', value: readJavaArchive(encoder.encode('not a zip')) },
      ],
      {},
    );
    expect(result.packages.map((pkg) => [pkg.purl, pkg.location])).toEqual([
      ['pkg:maven/g/a@1', '/a.war'],
      ['pkg:maven/g2/a2@2', '/a.war!/WEB-INF/lib/a2.jar'],
    ]);
    expect(result.warnings).toEqual(['Java archives: 1 unreadable archives skipped']);
  });

  it('Go: replacements by modules win, local ones keep the requirement; namespaces split at the last slash', () => {
    const info = parseModInfo(
      'path\tx\nmod\tgithub.com/o/app\tv1.0.0\th1:a\ndep\tgolang.org/x/net\tv0.1.0\th1:b\n=>\tgithub.com/fork/net\tv0.1.1\th1:c\ndep\tlocal.test/m\tv0.0.0\n=>\t/src/m\t\t\n',
    );
    expect(info).toEqual({
      main: { path: 'github.com/o/app', version: 'v1.0.0' },
      deps: [
        { path: 'github.com/fork/net', version: 'v0.1.1' },
        { path: 'local.test/m', version: 'v0.0.0' },
      ],
    });
    expect(goPackage({ path: 'gopkg.in/yaml.v3', version: 'v3.0.1' }, '/b').purl).toBe(
      'pkg:golang/gopkg.in/yaml.v3@v3.0.1',
    );
    expect(goPackage({ path: 'github.com/o/app', version: '(devel)' }, '/b').purl).toBe('pkg:golang/github.com/o/app');
  });
});

describe('purl and os-release', () => {
  it('encodes per the purl spec', () => {
    expect(
      formatPurl({
        type: 'deb',
        namespace: 'debian',
        name: 'libstdc++6',
        version: '12.2.0-14',
        qualifiers: { distro: 'debian-12', arch: 'amd64' },
      }),
    ).toBe('pkg:deb/debian/libstdc%2B%2B6@12.2.0-14?arch=amd64&distro=debian-12');
    expect(formatPurl({ type: 'maven', namespace: 'org.apache', name: 'a b', version: '1' })).toBe(
      'pkg:maven/org.apache/a%20b@1',
    );
  });

  it('writes `+` in a version as `%2B`, the canonical form of the purl spec (issue 33, item 13)', () => {
    // purl-spec tests/types/deb-test.json, "Build test for PURL type: deb" (required); `+` is not
    // among the spec's permitted characters. packageurl-js and packageurl-go keep it; a parser reads both.
    expect(
      formatPurl({
        type: 'deb',
        namespace: 'debian',
        name: 'attr',
        version: '1:2.4.47-2+b1',
        qualifiers: { arch: 'amd64' },
      }),
    ).toBe('pkg:deb/debian/attr@1:2.4.47-2%2Bb1?arch=amd64');
  });

  it('reads quoted and unquoted os-release values', () => {
    expect(parseOsRelease('# comment\nID="rhel"\nVERSION_ID=\'9.3\'\nPRETTY_NAME="Red Hat \\"9\\""\n')).toEqual({
      id: 'rhel',
      versionId: '9.3',
      prettyName: 'Red Hat "9"',
    });
    expect(parseOsRelease('NAME=x\n')).toBeUndefined();
  });
});
