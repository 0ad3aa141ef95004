/**
 * The file trees of the SBOM tests' images and the packages expected of them, shared by the
 * in-memory archive tests and the dockerd suite (which builds the same trees with `docker build`).
 * The Debian-like image is three layers: the files; a layer deleting `@babel` (a whiteout); a layer
 * replacing the dpkg status with one more package. The Alpine-like image is one layer.
 */
import { zipSync } from 'fflate';
import type { ImageSbom } from '../../../hub/src/security/sbom-model';
import { GO_DEP, GO_MAIN_MODULE, type GoProgram } from './go-program';

export interface FixtureFile {
  content?: string | Uint8Array;
  mode?: number;
  /** A symlink to this target instead of a file. */
  symlink?: string;
}

export type FileTree = Record<string, FixtureFile>;

const encoder = new TextEncoder();

/** One dpkg status stanza, as dpkg writes it: `Key: value` lines and a newline. */
export const stanza = (fields: Record<string, string>) =>
  `${Object.entries(fields)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n')}\n`;

const DPKG_V1 = [
  stanza({
    Package: 'base-files',
    Status: 'install ok installed',
    Priority: 'required',
    Architecture: 'amd64',
    Version: '12.4+deb12u5',
    Description: 'Debian base system miscellaneous files\n This package contains the basic filesystem hierarchy.',
  }),
  stanza({
    Package: 'libc6',
    Status: 'install ok installed',
    Architecture: 'amd64',
    Source: 'glibc',
    Version: '2.36-9+deb12u4',
  }),
  stanza({
    Package: 'libssl3',
    Status: 'install ok installed',
    Architecture: 'amd64',
    Source: 'openssl (3.0.11-1~deb12u2)',
    Version: '3.0.11-1~deb12u2',
  }),
  `this line is garbage and has no colon\n${stanza({ Package: 'zlib1g', Status: 'install ok installed', Architecture: 'amd64', Source: 'zlib', Version: '1:1.2.13.dfsg-1' })}`,
  stanza({ Package: 'oldpkg', Status: 'deinstall ok config-files', Architecture: 'amd64', Version: '1.0-1' }),
  stanza({ Package: 'tzdata', Status: 'install ok installed', Architecture: 'all', Version: '2024a-0+deb12u1' }),
].join('\n');

const DPKG_V2 = `${DPKG_V1}\n${stanza({ Package: 'curl', Status: 'install ok installed', Architecture: 'amd64', Version: '7.88.1-10+deb12u5' })}`;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function fixtureJar(): Uint8Array {
  const nested = zipSync({
    'META-INF/MANIFEST.MF': encoder.encode('Manifest-Version: 1.0\n'),
    'META-INF/maven/org.apache.commons/commons-lang3/pom.properties': encoder.encode(
      '#Created by Apache Maven 3.9.6\ngroupId=org.apache.commons\nartifactId=commons-lang3\nversion=3.14.0\n',
    ),
  });
  return zipSync({
    'META-INF/MANIFEST.MF': encoder.encode('Manifest-Version: 1.0\nMain-Class: org.example.Demo\n'),
    'META-INF/maven/org.example/demo/pom.properties': encoder.encode(
      'groupId=org.example\nartifactId=demo\nversion=1.0.0\n',
    ),
    'META-INF/maven/org.example/demo/pom.xml': encoder.encode('<project/>'),
    'BOOT-INF/lib/commons-lang3-3.14.0.jar': [nested, { level: 0 }],
  });
}

/** Layer 1 of the Debian-like image: everything (the busybox root comes from its base image). */
export function debianFiles(go: GoProgram): FileTree {
  return {
    'usr/lib/os-release': {
      content:
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\nID=debian\n',
    },
    'etc/os-release': { symlink: '../usr/lib/os-release' },
    'var/lib/dpkg/status': { content: DPKG_V1 },
    'app/package.json': { content: json({ name: 'my-app', private: true, dependencies: { express: '^4' } }) },
    'app/node_modules/express/package.json': { content: json({ name: 'express', version: '4.19.2', license: 'MIT' }) },
    'app/node_modules/express/lib/package.json': { content: json({ type: 'commonjs' }) },
    'app/node_modules/express/node_modules/debug/package.json': {
      content: json({ name: 'debug', version: '2.6.9', licenses: [{ type: 'MIT', url: 'https://example.test' }] }),
    },
    'app/node_modules/@babel/core/package.json': {
      content: json({ name: '@babel/core', version: '7.24.0', license: 'MIT' }),
    },
    'app/node_modules/@types/node/package.json': {
      content: json({ name: '@types/node', version: '20.11.0', license: 'MIT' }),
    },
    'usr/lib/python3/dist-packages/requests_oauthlib-1.3.1.dist-info/METADATA': {
      content: 'Metadata-Version: 2.1\nName: requests_oauthlib\nVersion: 1.3.1\nLicense: ISC\n\nLong description.\n',
    },
    'usr/local/lib/python3.11/site-packages/six-1.16.0-py3.11.egg-info/PKG-INFO': {
      content:
        'Metadata-Version: 1.2\nName: six\nVersion: 1.16.0\nLicense: UNKNOWN\nClassifier: License :: OSI Approved :: MIT License\n',
    },
    'opt/app/app.jar': { content: fixtureJar() },
    'usr/local/bin/hello': { content: go.binary, mode: 0o755 },
  };
}

export const DEBIAN_LAYER_3: FileTree = { 'var/lib/dpkg/status': { content: DPKG_V2 } };
/** Deleted by the second layer (`RUN rm -rf`, a whiteout). */
export const DEBIAN_DELETED = 'app/node_modules/@babel';

export const ALPINE_FILES: FileTree = {
  'etc/os-release': {
    content: 'NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n',
  },
  'lib/apk/db/installed': {
    content: [
      'C:Q1abc=\nP:musl\nV:1.2.4_git20230717-r4\nA:x86_64\nS:383152\nI:622592\nT:the musl c library\nU:https://musl.libc.org/\nL:MIT\no:musl\nm:Timo Teräs\nF:lib\nR:libc.musl-x86_64.so.1\n',
      'P:busybox\nV:1.36.1-r15\nA:x86_64\nL:GPL-2.0-only\no:busybox\n',
      '%%% not a field\nP:ssl_client\nV:1.36.1-r15\nA:x86_64\nL:GPL-2.0-only\no:busybox\n',
      'V:9.9-r0\nA:x86_64\n',
    ].join('\n'),
  },
};

type Expected = Pick<ImageSbom['packages'][number], 'purl' | 'location'> &
  Partial<Pick<ImageSbom['packages'][number], 'source' | 'licenses'>>;

/** purl, location (and source, licences where they matter), sorted by purl. */
export function expectedDebianPackages(goVersion: string): Expected[] {
  const dpkg = '/var/lib/dpkg/status';
  const deb = (name: string, version: string, arch: string, source?: [string, string]) => ({
    purl: `pkg:deb/debian/${name}@${version}?arch=${arch}&distro=debian-12`,
    location: dpkg,
    ...(source ? { source: { name: source[0], version: source[1] } } : {}),
  });
  const stdlib = goVersion.replace(/^go/, '');
  const [host, name] = [GO_MAIN_MODULE.split('/')[0], GO_MAIN_MODULE.split('/')[1]];
  const hello = '/usr/local/bin/hello';
  return [
    deb('base-files', '12.4%2Bdeb12u5', 'amd64', ['base-files', '12.4+deb12u5']),
    deb('curl', '7.88.1-10%2Bdeb12u5', 'amd64', ['curl', '7.88.1-10+deb12u5']),
    deb('libc6', '2.36-9%2Bdeb12u4', 'amd64', ['glibc', '2.36-9+deb12u4']),
    deb('libssl3', '3.0.11-1~deb12u2', 'amd64', ['openssl', '3.0.11-1~deb12u2']),
    deb('tzdata', '2024a-0%2Bdeb12u1', 'all'),
    deb('zlib1g', '1:1.2.13.dfsg-1', 'amd64', ['zlib', '1:1.2.13.dfsg-1']),
    { purl: `pkg:golang/${GO_DEP.path}@${GO_DEP.version}`, location: hello },
    { purl: `pkg:golang/${host}/${name}`, location: hello },
    { purl: `pkg:golang/stdlib@${stdlib}`, location: hello },
    {
      purl: 'pkg:maven/org.apache.commons/commons-lang3@3.14.0',
      location: '/opt/app/app.jar!/BOOT-INF/lib/commons-lang3-3.14.0.jar',
    },
    { purl: 'pkg:maven/org.example/demo@1.0.0', location: '/opt/app/app.jar' },
    {
      purl: 'pkg:npm/%40types/node@20.11.0',
      location: '/app/node_modules/@types/node/package.json',
      licenses: ['MIT'],
    },
    {
      purl: 'pkg:npm/debug@2.6.9',
      location: '/app/node_modules/express/node_modules/debug/package.json',
      licenses: ['MIT'],
    },
    { purl: 'pkg:npm/express@4.19.2', location: '/app/node_modules/express/package.json', licenses: ['MIT'] },
    {
      purl: 'pkg:pypi/requests-oauthlib@1.3.1',
      location: '/usr/lib/python3/dist-packages/requests_oauthlib-1.3.1.dist-info/METADATA',
      licenses: ['ISC'],
    },
    {
      purl: 'pkg:pypi/six@1.16.0',
      location: '/usr/local/lib/python3.11/site-packages/six-1.16.0-py3.11.egg-info/PKG-INFO',
      licenses: ['MIT License'],
    },
  ];
}

export const EXPECTED_ALPINE_PACKAGES: Expected[] = [
  {
    purl: 'pkg:apk/alpine/busybox@1.36.1-r15?arch=x86_64&distro=alpine-3.19.1',
    location: '/lib/apk/db/installed',
    source: { name: 'busybox', version: '1.36.1-r15' },
    licenses: ['GPL-2.0-only'],
  },
  {
    purl: 'pkg:apk/alpine/musl@1.2.4_git20230717-r4?arch=x86_64&distro=alpine-3.19.1',
    location: '/lib/apk/db/installed',
    source: { name: 'musl', version: '1.2.4_git20230717-r4' },
    licenses: ['MIT'],
  },
  {
    purl: 'pkg:apk/alpine/ssl_client@1.36.1-r15?arch=x86_64&distro=alpine-3.19.1',
    location: '/lib/apk/db/installed',
    source: { name: 'busybox', version: '1.36.1-r15' },
    licenses: ['GPL-2.0-only'],
  },
];

/** The packages of an SBOM in the shape of the expectations above, sorted by purl. */
export function comparable(sbom: ImageSbom, expected: Expected[]): Expected[] {
  return sbom.packages
    .map((pkg) => {
      const like = expected.find((item) => item.purl === pkg.purl);
      return {
        purl: pkg.purl,
        location: pkg.location,
        ...(like?.source ? { source: pkg.source } : {}),
        ...(like?.licenses ? { licenses: pkg.licenses } : {}),
      } as Expected;
    })
    .sort((a, b) => (a.purl < b.purl ? -1 : a.purl > b.purl ? 1 : 0));
}
