import { compareAlpine } from './alpine-order';
import { compareDebian } from './debian-order';
import { compareMaven } from './maven-order';
import { comparePypi } from './pypi-order';
import { compareRpm } from './rpm-order';
import { compareGo, compareSemver } from './semver-order';

export type VersionCompare = (a: string, b: string) => number;

/**
 * The order of an OSV `ECOSYSTEM` range, by the ecosystem's name before its `:` suffix
 * (`Debian:12` → Debian). Undefined for ecosystems the hub does not order: their ranges are skipped
 * (their `versions` lists still match).
 */
export function ecosystemOrder(ecosystem: string): VersionCompare | undefined {
  const base = ecosystem.split(':')[0] ?? '';
  switch (base) {
    case 'Debian':
    case 'Ubuntu':
      return compareDebian;
    case 'Alpine':
    case 'Wolfi':
    case 'Chainguard':
      return compareAlpine;
    case 'Red Hat':
    case 'AlmaLinux':
    case 'Rocky Linux':
    case 'openSUSE':
    case 'SUSE':
    case 'Mageia':
      return compareRpm;
    case 'npm':
    case 'crates.io':
    case 'NuGet':
    case 'Hex':
    case 'Pub':
      return compareSemver;
    case 'Go':
      return compareGo;
    case 'PyPI':
      return comparePypi;
    case 'Maven':
      return compareMaven;
    default:
      return undefined;
  }
}
