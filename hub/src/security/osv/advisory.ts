import { cvss4Score } from '../cvss4';
import { cvss3BaseScore, type Severity, severityOfScore } from '../severity';
import type { OsvAffected, OsvEvent, OsvRecord } from './osv-record';
import { ecosystemOrder } from './versions/ecosystem-order';
import { parseSemver } from './versions/semver-order';

/**
 * An advisory as the index keeps it for one (ecosystem, package): only what matching and a finding
 * need, so a 200,000-entry database stays small in storage and quick to read.
 */
export interface IndexedAdvisory {
  id: string;
  /** `aliases` and `upstream`: Red Hat's advisories (RHSA) name their CVEs in `upstream` only. */
  aliases: string[];
  summary: string;
  url: string;
  severity: Severity;
  /** The highest CVSS score of the advisory's newest CVSS version that scores (v4.0, else v3.x), when it has one. */
  score?: number;
  /** `SEMVER` and `ECOSYSTEM` ranges; `GIT` ranges name commits, which an SBOM does not hold, and are dropped. */
  ranges: { type: 'SEMVER' | 'ECOSYSTEM'; events: OsvEvent[] }[];
  versions: string[];
  /** The ecosystem the advisory was published under, when the index keys it under a broader one (ecosystems.ts). */
  ecosystem?: string;
}

const LABELS: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  important: 'high',
  moderate: 'medium',
  medium: 'medium',
  low: 'low',
  negligible: 'low',
};

/**
 * CVSS vectors first, the highest version that yields a score winning as OSV consumers read them
 * (osv-scanner, osv.dev: the newest CVSS version given is the advisory's rating): the highest v4.0
 * score, else the highest v3.x base score; a malformed vector scores nothing and is passed over.
 * Then a database's own label (GitHub's `database_specific.severity`, Ubuntu's priority).
 */
export function severityOf(record: OsvRecord, affected: OsvAffected): { severity: Severity; score?: number } {
  const vectors = [...(record.severity ?? []), ...(affected.severity ?? [])];
  const scored = (type: string, score: (vector: string) => number | undefined) =>
    vectors
      .filter((entry) => entry.type === type)
      .map((entry) => score(entry.score))
      .filter((value): value is number => value !== undefined);
  for (const scores of [scored('CVSS_V4', cvss4Score), scored('CVSS_V3', cvss3BaseScore)]) {
    if (scores.length === 0) continue;
    const score = Math.max(...scores);
    return { severity: severityOfScore(score), score };
  }
  const labels = [
    affected.database_specific?.severity,
    record.database_specific?.severity,
    ...vectors.filter((entry) => entry.type === 'Ubuntu').map((entry) => entry.score),
  ];
  for (const label of labels) {
    const severity = typeof label === 'string' ? LABELS[label.trim().toLowerCase()] : undefined;
    if (severity) return { severity };
  }
  return { severity: 'unknown' };
}

function urlOf(record: OsvRecord): string {
  const references = record.references ?? [];
  const advisory =
    references.find((reference) => reference.type === 'ADVISORY') ?? references.find((r) => r.type === 'WEB');
  return advisory?.url ?? `https://osv.dev/vulnerability/${encodeURIComponent(record.id)}`;
}

/** Why an affected entry cannot be indexed, or undefined when it can. */
export function rangeProblem(ecosystem: string, affected: OsvAffected): string | undefined {
  for (const range of affected.ranges ?? []) {
    if (range.type === 'GIT') continue;
    const values = range.events.map((event) => Object.values(event)[0] as string);
    if (!range.events.some((event) => 'introduced' in event)) return 'a range without an introduced event';
    if (range.type === 'SEMVER' && values.some((value) => value !== '0' && !parseSemver(value)))
      return 'a SEMVER range with a version that is not semver';
    if (range.type === 'ECOSYSTEM' && values.some((value) => value.trim() === ''))
      return `an ECOSYSTEM range of ${ecosystem} with an empty version`;
  }
  return undefined;
}

export function toIndexedAdvisory(record: OsvRecord, affected: OsvAffected): IndexedAdvisory {
  const { severity, score } = severityOf(record, affected);
  const ecosystem = affected.package?.ecosystem ?? '';
  return {
    id: record.id,
    aliases: [...new Set([...(record.aliases ?? []), ...(record.upstream ?? [])])],
    summary: record.summary ?? record.details?.slice(0, 300) ?? '',
    url: urlOf(record),
    severity,
    ...(score !== undefined && { score }),
    ranges: (affected.ranges ?? [])
      // ECOSYSTEM ranges of an ecosystem the hub cannot order are dropped; its versions lists still match.
      .filter((range) => range.type === 'SEMVER' || (range.type === 'ECOSYSTEM' && ecosystemOrder(ecosystem)))
      .map((range) => ({ type: range.type as 'SEMVER' | 'ECOSYSTEM', events: range.events })),
    versions: affected.versions ?? [],
  };
}
