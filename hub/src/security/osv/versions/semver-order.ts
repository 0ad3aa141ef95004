/**
 * Semantic Versioning 2.0.0 precedence (https://semver.org §11), the order of OSV `SEMVER` ranges
 * and of the npm, crates.io and NuGet ecosystems. Lenient where advisories are: a missing minor or
 * patch counts as 0, a leading `v` is dropped, build metadata is ignored.
 */

interface ParsedSemver {
  core: [bigint, bigint, bigint];
  prerelease: string[];
}

const SEMVER = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]*)?$/;

export function parseSemver(version: string): ParsedSemver | undefined {
  const match = SEMVER.exec(version.trim());
  if (!match) return undefined;
  return {
    // BigInt: advisories carry date-like majors (20240101) and fuzzers carry longer ones.
    core: [BigInt(match[1] ?? '0'), BigInt(match[2] ?? '0'), BigInt(match[3] ?? '0')],
    prerelease: match[4] ? match[4].split('.') : [],
  };
}

const NUMERIC = /^\d+$/;

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = NUMERIC.test(a);
  const bNumeric = NUMERIC.test(b);
  if (aNumeric && bNumeric) return sign(BigInt(a) - BigInt(b));
  // Numeric identifiers have lower precedence than alphanumeric ones.
  if (aNumeric) return -1;
  if (bNumeric) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function sign(value: bigint): number {
  return value < 0n ? -1 : value > 0n ? 1 : 0;
}

/** Negative, zero or positive; versions that do not parse sort before every version that does, then by text. */
export function compareSemver(a: string, b: string): number {
  const left = parseSemver(a);
  const right = parseSemver(b);
  if (!left || !right) {
    if (left) return 1;
    if (right) return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < 3; i++) {
    const difference = sign((left.core[i] ?? 0n) - (right.core[i] ?? 0n));
    if (difference !== 0) return difference;
  }
  // A pre-release sorts before its release.
  if (left.prerelease.length === 0 || right.prerelease.length === 0)
    return right.prerelease.length - left.prerelease.length === 0 ? 0 : left.prerelease.length === 0 ? 1 : -1;
  const length = Math.min(left.prerelease.length, right.prerelease.length);
  for (let i = 0; i < length; i++) {
    const difference = compareIdentifiers(left.prerelease[i] ?? '', right.prerelease[i] ?? '');
    if (difference !== 0) return difference;
  }
  return sign(BigInt(left.prerelease.length - right.prerelease.length));
}

/** Go module versions: semver with a mandatory `v`, `+incompatible` ignored like any build metadata. */
export function compareGo(a: string, b: string): number {
  return compareSemver(a.startsWith('v') ? a : `v${a}`, b.startsWith('v') ? b : `v${b}`);
}
