import type { ImageDistro, SbomPackage } from '../sbom-model';

/**
 * Where an SBOM package is looked up in OSV data: the ecosystem names OSV publishes under and the
 * package's name and version as that ecosystem's advisories spell them. Debian and Alpine
 * advisories are per source package (dpkg `Source:`, apk origin), so the source name is used.
 */
export interface OsvQuery {
  ecosystems: string[];
  name: string;
  version: string;
}

/** PyPI names compare normalised (PEP 503): the index keys them the same way. */
export function normalisePackageName(ecosystem: string, name: string): string {
  return ecosystem === 'PyPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;
}

function major(versionId: string | undefined): string | undefined {
  return versionId?.match(/^\d+/)?.[0];
}

function osEcosystems(type: 'deb' | 'apk' | 'rpm', distro: ImageDistro | undefined): string[] {
  const id = distro?.id;
  const version = distro?.versionId;
  if (type === 'deb') {
    if (id === 'ubuntu' && version) return [`Ubuntu:${version}`, `Ubuntu:${version}:LTS`];
    const debianMajor = major(version);
    return id === 'debian' && debianMajor ? [`Debian:${debianMajor}`] : [];
  }
  if (type === 'apk') {
    const minor = version?.match(/^\d+\.\d+/)?.[0];
    return id === 'alpine' && minor ? [`Alpine:v${minor}`] : [];
  }
  // RPM distributions whose OSV ecosystem is named by the major release alone. Red Hat's own
  // ecosystem names a product stream (`Red Hat:enterprise_linux:9::appstream`), which the SBOM
  // does not say: RHEL images are not matched.
  if (id === 'opensuse-tumbleweed') return ['openSUSE:Tumbleweed'];
  const rpmMajor = major(version);
  if (!rpmMajor) return [];
  if (id === 'almalinux') return [`AlmaLinux:${rpmMajor}`];
  if (id === 'rocky') return [`Rocky Linux:${rpmMajor}`];
  if (id === 'opensuse-leap') return [`openSUSE:Leap ${version}`];
  // SLES 15.5 is `15 SP5`. Advisories for packages of its modules (Basesystem, Server Applications)
  // are published under those modules' names, which an image does not record: only the base product.
  const servicePack = version?.match(/^\d+\.(\d+)$/)?.[1];
  if (id === 'sles') {
    return [`SUSE:Linux Enterprise Server ${rpmMajor}${servicePack && servicePack !== '0' ? ` SP${servicePack}` : ''}`];
  }
  return [];
}

/** Undefined when OSV has no ecosystem for the package (an unknown distro, RHEL). */
export function osvQueryOf(pkg: SbomPackage, distro: ImageDistro | undefined): OsvQuery | undefined {
  switch (pkg.type) {
    case 'deb':
    case 'apk':
    case 'rpm': {
      const ecosystems = osEcosystems(pkg.type, distro);
      if (ecosystems.length === 0) return undefined;
      // Debian advisories give the source package's version; a binNMU (`+b1`) shares the source's.
      const version = pkg.type === 'deb' ? (pkg.source?.version ?? pkg.version) : pkg.version;
      return { ecosystems, name: pkg.source?.name ?? pkg.name, version };
    }
    case 'npm':
      return {
        ecosystems: ['npm'],
        name: pkg.namespace ? `${pkg.namespace}/${pkg.name}` : pkg.name,
        version: pkg.version,
      };
    case 'pypi':
      return { ecosystems: ['PyPI'], name: normalisePackageName('PyPI', pkg.name), version: pkg.version };
    case 'golang':
      return {
        ecosystems: ['Go'],
        name: pkg.namespace ? `${pkg.namespace}/${pkg.name}` : pkg.name,
        version: pkg.version,
      };
    case 'maven':
      return pkg.namespace
        ? { ecosystems: ['Maven'], name: `${pkg.namespace}:${pkg.name}`, version: pkg.version }
        : undefined;
  }
}
