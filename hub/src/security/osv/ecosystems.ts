import type { ImageDistro, SbomPackage } from '../sbom-model';

/**
 * Where an SBOM package is looked up in OSV data: the ecosystem names the index keys it under
 * (`indexEcosystemOf`) and the package's name and version as that ecosystem's advisories spell
 * them. Debian and Alpine advisories are per source package (dpkg `Source:`, apk origin), so the
 * source name is used; Red Hat's list every binary rpm the fix ships, so the binary name is.
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

/**
 * Red Hat publishes one ecosystem per product stream, a CPE without its `cpe:/o:redhat` prefix
 * (`Red Hat:enterprise_linux:9::baseos`, `…::appstream`, `…::crb`, `Red Hat:rhel_eus:9.2::baseos`).
 * An image's rpm database does not say which repository a package came from, so the index keys
 * every stream of RHEL <major> under `Red Hat:enterprise_linux:<major>`: a RHEL package is one
 * lookup however many streams the database holds, and an advisory listing a package in two streams
 * with the same fix is one entry of that key (osv-index.ts; scan-sbom.ts would report it once anyway). The extended-support streams (`rhel_eus`,
 * `rhel_aus`, `rhel_e4s`…) ship other builds of a minor release and keep their own keys, never
 * looked up: an image does not say it follows one.
 */
const RED_HAT_STREAM = /^(Red Hat:enterprise_linux:\d+)(?::|$)/;

/** The ecosystem the index keys an advisory's package under: the published one, but for RHEL streams. */
export function indexEcosystemOf(ecosystem: string): string {
  return ecosystem.match(RED_HAT_STREAM)?.[1] ?? ecosystem;
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
  // RPM distributions whose OSV ecosystem is named by the major release alone; RHEL (and UBI,
  // whose ID is rhel too) by all the streams of its major release, which the index groups.
  // CentOS has no OSV ecosystem: its images are not matched.
  if (id === 'opensuse-tumbleweed') return ['openSUSE:Tumbleweed'];
  const rpmMajor = major(version);
  if (!rpmMajor) return [];
  if (id === 'rhel') return [`Red Hat:enterprise_linux:${rpmMajor}`];
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

/** Undefined when OSV has no ecosystem for the package (an unknown distro, CentOS). */
export function osvQueryOf(pkg: SbomPackage, distro: ImageDistro | undefined): OsvQuery | undefined {
  switch (pkg.type) {
    case 'deb':
    case 'apk':
    case 'rpm': {
      const ecosystems = osEcosystems(pkg.type, distro);
      if (ecosystems.length === 0) return undefined;
      // Debian advisories give the source package's version; a binNMU (`+b1`) shares the source's.
      const version = pkg.type === 'deb' ? (pkg.source?.version ?? pkg.version) : pkg.version;
      const binaryNamed = pkg.type === 'rpm' && distro?.id === 'rhel';
      return { ecosystems, name: binaryNamed ? pkg.name : (pkg.source?.name ?? pkg.name), version };
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
