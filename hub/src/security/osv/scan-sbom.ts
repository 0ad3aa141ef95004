import type { ImageSbom } from '../sbom-model';
import { type Severity, severityRank } from '../severity';
import type { IndexedAdvisory } from './advisory';
import { osvQueryOf } from './ecosystems';
import { matchAdvisory } from './match-ranges';

/** One vulnerability of one package of an image. */
export interface VulnerabilityFinding {
  id: string;
  aliases: string[];
  package: { type: string; name: string; purl: string; ecosystem: string };
  installedVersion: string;
  /** The versions that fix it, from the advisory's ranges; empty when none is known. */
  fixedVersions: string[];
  severity: Severity;
  score?: number;
  summary: string;
  url: string;
}

export type SeverityCounts = Record<Severity, number>;

export function countSeverities(findings: readonly { severity: Severity }[]): SeverityCounts {
  const counts: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 };
  for (const finding of findings) counts[finding.severity]++;
  return counts;
}

/** The lookup the matcher needs of the database (osv-store.ts), so a test or a bench can hand it a Map. */
export interface AdvisoryLookup {
  lookup(ecosystem: string, name: string): Promise<IndexedAdvisory[]>;
}

/**
 * Every finding of an SBOM against the database: each package mapped to its OSV ecosystem and
 * name (ecosystems.ts), each advisory of that package matched on the installed version. Worst
 * first, then by id; one finding per (advisory, package).
 */
export async function scanSbom(sbom: ImageSbom, database: AdvisoryLookup): Promise<VulnerabilityFinding[]> {
  const findings: VulnerabilityFinding[] = [];
  const seen = new Set<string>();
  for (const pkg of sbom.packages) {
    const query = osvQueryOf(pkg, sbom.distro);
    if (!query) continue;
    for (const ecosystem of query.ecosystems) {
      for (const advisory of await database.lookup(ecosystem, query.name)) {
        const verdict = matchAdvisory(advisory.ecosystem ?? ecosystem, query.version, advisory);
        const key = `${advisory.id}\u0000${pkg.purl}`;
        if (!verdict.affected || seen.has(key)) continue;
        seen.add(key);
        findings.push({
          id: advisory.id,
          aliases: advisory.aliases,
          package: { type: pkg.type, name: query.name, purl: pkg.purl, ecosystem: advisory.ecosystem ?? ecosystem },
          installedVersion: query.version,
          fixedVersions: verdict.fixed,
          severity: advisory.severity,
          ...(advisory.score !== undefined && { score: advisory.score }),
          summary: advisory.summary,
          url: advisory.url,
        });
      }
    }
  }
  return findings.sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) ||
      (a.package.purl < b.package.purl ? -1 : 1),
  );
}
