import { orderedFindings } from '../finding-order';
import type { ImageSbom } from '../sbom-model';
import type { Severity } from '../severity';
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
 * name (ecosystems.ts), each advisory of that package matched on the installed version; in the
 * order and without the repeats of every scanner's findings (finding-order.ts).
 */
export async function scanSbom(sbom: ImageSbom, database: AdvisoryLookup): Promise<VulnerabilityFinding[]> {
  const findings: VulnerabilityFinding[] = [];
  for (const pkg of sbom.packages) {
    const query = osvQueryOf(pkg, sbom.distro);
    if (!query) continue;
    for (const ecosystem of query.ecosystems) {
      for (const advisory of await database.lookup(ecosystem, query.name)) {
        const verdict = matchAdvisory(advisory.ecosystem ?? ecosystem, query.version, advisory);
        if (!verdict.affected) continue;
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
  return orderedFindings(findings);
}
