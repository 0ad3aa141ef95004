import type { IndexedAdvisory } from './advisory';
import type { OsvEvent } from './osv-record';
import { ecosystemOrder, type VersionCompare } from './versions/ecosystem-order';
import { compareSemver, parseSemver } from './versions/semver-order';

/**
 * Whether a version is affected by an advisory, as the OSV schema's evaluation defines it
 * (https://ossf.github.io/osv-schema/#evaluation): listed in `versions`, or inside a range whose
 * events, sorted by version, leave it affected: `introduced` opens (`0` before everything),
 * `fixed` closes at that version, `last_affected` closes after it; a version at or above every
 * `limit` is outside the range.
 */
export interface RangeVerdict {
  affected: boolean;
  /** The `fixed` versions above the installed one, of the ranges that matched it. */
  fixed: string[];
}

function eventVersion(event: OsvEvent): string {
  if ('introduced' in event) return event.introduced;
  if ('fixed' in event) return event.fixed;
  if ('last_affected' in event) return event.last_affected;
  return event.limit;
}

/** At one version, introduced sorts first, so a fixed or last_affected at the same version decides. */
const KIND_ORDER = (event: OsvEvent) => ('introduced' in event ? 0 : 1);

function inRange(version: string, events: readonly OsvEvent[], compare: VersionCompare): boolean {
  const ordered = [...events].sort((a, b) => {
    const introducedZero = (event: OsvEvent) => 'introduced' in event && event.introduced === '0';
    if (introducedZero(a) || introducedZero(b)) return Number(!introducedZero(a)) - Number(!introducedZero(b));
    return compare(eventVersion(a), eventVersion(b)) || KIND_ORDER(a) - KIND_ORDER(b);
  });
  let affected = false;
  for (const event of ordered) {
    if ('introduced' in event) {
      if (event.introduced === '0' || compare(version, event.introduced) >= 0) affected = true;
    } else if ('fixed' in event) {
      if (compare(version, event.fixed) >= 0) affected = false;
    } else if ('last_affected' in event) {
      if (compare(version, event.last_affected) > 0) affected = false;
    }
  }
  const limits = events.filter((event): event is { limit: string } => 'limit' in event);
  if (
    affected &&
    limits.length > 0 &&
    limits.every((event) => event.limit !== '*' && compare(version, event.limit) >= 0)
  )
    return false;
  return affected;
}

export function matchAdvisory(ecosystem: string, version: string, advisory: IndexedAdvisory): RangeVerdict {
  const fixed = new Set<string>();
  let affected = advisory.versions.includes(version);
  const ecosystemCompare = ecosystemOrder(ecosystem);
  for (const range of advisory.ranges) {
    // A SEMVER range says nothing of a version that is not semver.
    if (range.type === 'SEMVER' && !parseSemver(version)) continue;
    const compare = range.type === 'SEMVER' ? compareSemver : ecosystemCompare;
    if (!compare || !inRange(version, range.events, compare)) continue;
    affected = true;
    for (const event of range.events) if ('fixed' in event && compare(event.fixed, version) > 0) fixed.add(event.fixed);
  }
  return { affected, fixed: [...fixed] };
}
