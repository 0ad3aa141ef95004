/**
 * Grype (https://github.com/anchore/grype) as the scanner: `grype sbom:<file>` reads the hub's
 * CycloneDX document of the image and matches it against Grype's own database, which Grype keeps
 * and updates itself. Tested against a fixture executable that speaks Grype's JSON report, not
 * against Grype itself (docs/security-scanning.md "Trivy and Grype").
 */
import * as v from 'valibot';
import { orderedFindings } from '../finding-order';
import type { VulnerabilityFinding } from '../osv/scan-sbom';
import type { ImageSbom } from '../sbom-model';
import type { ScannerDialect } from './scanner-dialect';
import { packageIndex, parseToolJson, purlType, severityFromLabel, summaryOf } from './scanner-dialect';

const CvssSchema = v.object({
  version: v.optional(v.string()),
  metrics: v.optional(v.object({ baseScore: v.optional(v.number()) })),
});

const RelatedSchema = v.object({
  id: v.string(),
  description: v.optional(v.string()),
  cvss: v.nullish(v.array(CvssSchema)),
});

/** One entry of `matches` (Grype's `models.Match`), the fields read here. */
const GrypeMatchSchema = v.object({
  vulnerability: v.object({
    id: v.pipe(v.string(), v.minLength(1)),
    dataSource: v.optional(v.string()),
    severity: v.optional(v.string()),
    urls: v.nullish(v.array(v.string())),
    description: v.optional(v.string()),
    cvss: v.nullish(v.array(CvssSchema)),
    fix: v.nullish(v.object({ versions: v.nullish(v.array(v.string())), state: v.optional(v.string()) })),
  }),
  relatedVulnerabilities: v.nullish(v.array(RelatedSchema)),
  artifact: v.object({
    name: v.string(),
    version: v.string(),
    type: v.optional(v.string()),
    purl: v.optional(v.string()),
  }),
});

/** Grype's JSON report (`-o json`). */
const GrypeReportSchema = v.object({ matches: v.nullish(v.array(GrypeMatchSchema)) });

/** `grype version -o json`. */
const GrypeVersionSchema = v.object({ application: v.optional(v.string()), version: v.string() });

/** The highest CVSS v4.0 base score, else the highest v3.x one (as the OSV matcher reads severities). */
function scoreOf(entries: readonly v.InferOutput<typeof CvssSchema>[]): number | undefined {
  for (const major of ['4', '3']) {
    const scores = entries
      .filter((entry) => entry.version?.startsWith(major))
      .map((entry) => entry.metrics?.baseScore)
      .filter((score) => score !== undefined);
    if (scores.length > 0) return Math.max(...scores);
  }
  return undefined;
}

function parseReport(stdout: string, sbom: ImageSbom): VulnerabilityFinding[] {
  const report = parseToolJson(GrypeReportSchema, stdout, 'Grype report');
  const packageOf = packageIndex(sbom);
  return orderedFindings(
    (report.matches ?? []).map((match) => {
      const { vulnerability, artifact } = match;
      const related = match.relatedVulnerabilities ?? [];
      // A distribution's entry often carries no CVSS of its own: the related NVD entry's then.
      const score = scoreOf(vulnerability.cvss ?? []) ?? scoreOf(related.flatMap((entry) => entry.cvss ?? []));
      const pkg = packageOf(artifact.purl || undefined, artifact.name, artifact.version);
      const fixed = vulnerability.fix?.state === 'fixed' ? (vulnerability.fix.versions ?? []) : [];
      return {
        id: vulnerability.id,
        aliases: [...new Set(related.map((entry) => entry.id).filter((id) => id !== vulnerability.id))],
        package: {
          type: pkg?.type ?? purlType(artifact.purl) ?? artifact.type ?? 'unknown',
          name: artifact.name,
          purl: pkg?.purl ?? artifact.purl ?? '',
          // Grype's package type (`deb`, `apk`, `npm`, `python`): the delta compares within it.
          ecosystem: artifact.type || (purlType(artifact.purl) ?? 'unknown'),
        },
        installedVersion: artifact.version,
        fixedVersions: fixed,
        severity: severityFromLabel(vulnerability.severity, score),
        ...(score !== undefined && { score }),
        summary: summaryOf(vulnerability.description ?? related.find((entry) => entry.description)?.description),
        url: vulnerability.dataSource || vulnerability.urls?.[0] || '',
      };
    }),
  );
}

export const grypeDialect: ScannerDialect = {
  name: 'grype',
  versionArgs: ['version', '-o', 'json'],
  parseVersion(stdout) {
    const answer = parseToolJson(GrypeVersionSchema, stdout, '`grype version` answer');
    return { version: answer.version };
  },
  scanArgs: () => ['sbom:{input}', '-o', 'json'],
  scanEnv(internetless) {
    return {
      // The hub says when it updates itself; Grype's own check is noise in its log.
      GRYPE_CHECK_FOR_APP_UPDATE: 'false',
      // Offline: the database Grype has is used as it is, however old (Grype refuses one past 5 days by default).
      ...(internetless && { GRYPE_DB_AUTO_UPDATE: 'false', GRYPE_DB_VALIDATE_AGE: 'false' }),
    };
  },
  parseReport,
};
