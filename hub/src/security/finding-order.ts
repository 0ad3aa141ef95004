import type { Severity } from '../../../shared/security/severities';
import { severityRank } from './severity';

type Orderable = { id: string; severity: Severity; package: { purl: string } };

/**
 * The one order and de-duplication of every scanner's findings (the OSV matcher, Trivy, Grype), so
 * a scan reads the same whichever tool made it: one finding per (advisory id, package purl), the
 * first kept; worst first, then by id, then by purl.
 */
export function orderedFindings<T extends Orderable>(findings: readonly T[]): T[] {
  const seen = new Set<string>();
  const unique = findings.filter((finding) => {
    const key = `${finding.id}\u0000${finding.package.purl}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) ||
      (a.package.purl < b.package.purl ? -1 : a.package.purl > b.package.purl ? 1 : 0),
  );
}
