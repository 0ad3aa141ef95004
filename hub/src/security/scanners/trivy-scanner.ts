/**
 * Trivy (https://trivy.dev) as the scanner: `trivy sbom` reads the hub's CycloneDX document of the
 * image and matches it against Trivy's own database, which Trivy keeps and updates itself. Tested
 * against a fixture executable that speaks Trivy's JSON report, not against Trivy itself
 * (docs/security-scanning.md "Trivy and Grype").
 */
import * as v from 'valibot';
import { orderedFindings } from '../finding-order';
import type { VulnerabilityFinding } from '../osv/scan-sbom';
import type { ImageSbom } from '../sbom-model';
import type { ScannerDialect } from './scanner-dialect';
import { packageIndex, parseToolJson, purlType, severityFromLabel, summaryOf } from './scanner-dialect';

const CvssSchema = v.object({
  V2Score: v.optional(v.number()),
  V3Score: v.optional(v.number()),
  V40Score: v.optional(v.number()),
});

/** One entry of `Results[].Vulnerabilities` (Trivy's `types.DetectedVulnerability`), the fields read here. */
const TrivyVulnerabilitySchema = v.object({
  VulnerabilityID: v.pipe(v.string(), v.minLength(1)),
  VendorIDs: v.nullish(v.array(v.string())),
  PkgName: v.string(),
  PkgIdentifier: v.nullish(v.object({ PURL: v.optional(v.string()) })),
  InstalledVersion: v.optional(v.string(), ''),
  /** Comma-separated when several branches fix it: `3.0.13-1~deb12u1, 3.1.4-2`. */
  FixedVersion: v.optional(v.string()),
  Severity: v.optional(v.string()),
  SeveritySource: v.optional(v.string()),
  CVSS: v.nullish(v.record(v.string(), CvssSchema)),
  Title: v.optional(v.string()),
  Description: v.optional(v.string()),
  PrimaryURL: v.optional(v.string()),
});

/** Trivy's JSON report (`--format json`, SchemaVersion 2): results per target, each with its findings. */
const TrivyReportSchema = v.object({
  SchemaVersion: v.number(),
  Results: v.nullish(
    v.array(
      v.object({
        Target: v.optional(v.string()),
        Type: v.optional(v.string()),
        Vulnerabilities: v.nullish(v.array(TrivyVulnerabilitySchema)),
      }),
    ),
  ),
});

/** `trivy version --format json`. */
const TrivyVersionSchema = v.object({
  Version: v.string(),
  VulnerabilityDB: v.nullish(v.object({ UpdatedAt: v.optional(v.string()) })),
});

type TrivyVulnerability = v.InferOutput<typeof TrivyVulnerabilitySchema>;

/** The score of the source Trivy took the severity from, else NVD's, else the highest given (v4.0 before v3.x). */
function scoreOf(vulnerability: TrivyVulnerability): number | undefined {
  const entries = vulnerability.CVSS ?? {};
  const best = (cvss: v.InferOutput<typeof CvssSchema> | undefined) => cvss?.V40Score ?? cvss?.V3Score;
  const preferred = best(entries[vulnerability.SeveritySource ?? '']) ?? best(entries.nvd);
  if (preferred !== undefined) return preferred;
  const scores = Object.values(entries)
    .map(best)
    .filter((score) => score !== undefined);
  return scores.length > 0 ? Math.max(...scores) : undefined;
}

function parseReport(stdout: string, sbom: ImageSbom): VulnerabilityFinding[] {
  const report = parseToolJson(TrivyReportSchema, stdout, 'Trivy report');
  const packageOf = packageIndex(sbom);
  const findings: VulnerabilityFinding[] = [];
  for (const result of report.Results ?? []) {
    for (const vulnerability of result.Vulnerabilities ?? []) {
      const purl = vulnerability.PkgIdentifier?.PURL;
      const pkg = packageOf(purl, vulnerability.PkgName, vulnerability.InstalledVersion);
      const score = scoreOf(vulnerability);
      const id = vulnerability.VulnerabilityID;
      findings.push({
        id,
        aliases: (vulnerability.VendorIDs ?? []).filter((alias) => alias !== id),
        package: {
          type: pkg?.type ?? purlType(purl) ?? result.Type ?? 'unknown',
          name: vulnerability.PkgName,
          purl: pkg?.purl ?? purl ?? '',
          // Trivy's name for the kind of result (`debian`, `alpine`, `node-pkg`): the delta compares within it.
          ecosystem: result.Type ?? purlType(purl) ?? 'unknown',
        },
        installedVersion: vulnerability.InstalledVersion,
        fixedVersions: (vulnerability.FixedVersion ?? '')
          .split(',')
          .map((version) => version.trim())
          .filter((version) => version !== ''),
        severity: severityFromLabel(vulnerability.Severity, score),
        ...(score !== undefined && { score }),
        summary: summaryOf(vulnerability.Title ?? vulnerability.Description),
        url: vulnerability.PrimaryURL ?? '',
      });
    }
  }
  return orderedFindings(findings);
}

export const trivyDialect: ScannerDialect = {
  name: 'trivy',
  versionArgs: ['version', '--format', 'json'],
  parseVersion(stdout) {
    const answer = parseToolJson(TrivyVersionSchema, stdout, '`trivy version` answer');
    const updatedAt = answer.VulnerabilityDB?.UpdatedAt;
    return { version: answer.Version, ...(updatedAt && { databaseUpdatedAt: updatedAt }) };
  },
  scanArgs(internetless) {
    return [
      'sbom',
      '--format',
      'json',
      '--quiet',
      // Offline: the database Trivy has is used as it is, and nothing asks the network about packages.
      ...(internetless ? ['--skip-db-update', '--skip-java-db-update', '--offline-scan'] : []),
      '{input}',
    ];
  },
  // Older Trivy versions ignore variables they do not know, where they would refuse an unknown flag.
  scanEnv: () => ({ TRIVY_DISABLE_TELEMETRY: 'true' }),
  parseReport,
};
