import { describe, expect, it } from 'vitest';
import type { SbomPackage } from '../sbom-model';
import { indexEcosystemOf, osvQueryOf } from './ecosystems';

const openssl: SbomPackage = {
  type: 'rpm',
  namespace: 'redhat',
  name: 'openssl-libs',
  version: '1:3.0.7-24.el9',
  purl: 'pkg:rpm/redhat/openssl-libs@3.0.7-24.el9?arch=x86_64&distro=rhel-9.4&epoch=1',
  source: { name: 'openssl', version: '3.0.7-24.el9' },
  licenses: [],
  location: '/var/lib/rpm/rpmdb.sqlite',
};

describe('indexEcosystemOf', () => {
  it('keys every stream of a RHEL release under the release', () => {
    expect(indexEcosystemOf('Red Hat:enterprise_linux:9::appstream')).toBe('Red Hat:enterprise_linux:9');
    expect(indexEcosystemOf('Red Hat:enterprise_linux:9::baseos')).toBe('Red Hat:enterprise_linux:9');
    expect(indexEcosystemOf('Red Hat:enterprise_linux:10::crb')).toBe('Red Hat:enterprise_linux:10');
    expect(indexEcosystemOf('Red Hat:enterprise_linux:7::server')).toBe('Red Hat:enterprise_linux:7');
    expect(indexEcosystemOf('Red Hat:enterprise_linux:9')).toBe('Red Hat:enterprise_linux:9');
  });

  it('leaves extended-support streams, other products and other ecosystems as published', () => {
    for (const ecosystem of [
      'Red Hat:rhel_eus:9.2::baseos',
      'Red Hat:rhel_aus:8.4::appstream',
      'Red Hat:enterprise_linux:9.2::appstream',
      'Red Hat:openshift:4.14::el9',
      'Rocky Linux:9',
      'Debian:12',
      'npm',
    ])
      expect(indexEcosystemOf(ecosystem)).toBe(ecosystem);
  });
});

describe('osvQueryOf for rpm packages', () => {
  it('RHEL (and UBI): its release, the binary rpm name, the version with its epoch', () => {
    expect(osvQueryOf(openssl, { id: 'rhel', versionId: '9.4' })).toEqual({
      ecosystems: ['Red Hat:enterprise_linux:9'],
      name: 'openssl-libs',
      version: '1:3.0.7-24.el9',
    });
    expect(osvQueryOf(openssl, { id: 'rhel', versionId: '10.0' })?.ecosystems).toEqual(['Red Hat:enterprise_linux:10']);
  });

  it('Rocky Linux and AlmaLinux: the source rpm name', () => {
    expect(osvQueryOf(openssl, { id: 'rocky', versionId: '9.4' })).toEqual({
      ecosystems: ['Rocky Linux:9'],
      name: 'openssl',
      version: '1:3.0.7-24.el9',
    });
  });

  it('nothing for CentOS (OSV has no ecosystem for it) nor for a RHEL image without VERSION_ID', () => {
    expect(osvQueryOf(openssl, { id: 'centos', versionId: '9' })).toBeUndefined();
    expect(osvQueryOf(openssl, { id: 'rhel' })).toBeUndefined();
  });
});
