import * as v from 'valibot';
import type { VulnerabilityFinding } from '../osv/scan-sbom';
import type { ImageSbom, SbomPackage } from '../sbom-model';
import { type Severity, severityOfScore } from '../severity';
import type { ExternalScannerName } from './vulnerability-scanner';

/** What `<tool> version` says: the binary's version, and its database's date when the tool tells it. */
export interface ScannerVersion {
  version: string;
  databaseUpdatedAt?: string;
}

/**
 * How one external scanner is driven (trivy-scanner.ts, grype-scanner.ts): its command lines, the
 * variables that keep it offline, and the readers of its JSON. external-scanner.ts runs them.
 */
export interface ScannerDialect {
  name: ExternalScannerName;
  versionArgs: string[];
  parseVersion(stdout: string): ScannerVersion;
  /** `{input}` stands for the CycloneDX file's path. */
  scanArgs(internetless: boolean): string[];
  scanEnv(internetless: boolean): Record<string, string>;
  /** Throws ScannerReportError when the report is not the tool's JSON. */
  parseReport(stdout: string, sbom: ImageSbom): VulnerabilityFinding[];
}

/** The tool's output is not what its report format says: that scan fails with this. */
export class ScannerReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScannerReportError';
  }
}

export function parseJson(stdout: string, what: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    throw new ScannerReportError(
      `the ${what} is not JSON (${stdout.length} characters, starting "${stdout.slice(0, 40)}")`,
    );
  }
}

/** A tool's JSON read against its schema; `what` names it in the error (`Trivy report`). */
export function parseToolJson<const S extends v.GenericSchema>(
  schema: S,
  stdout: string,
  what: string,
): v.InferOutput<S> {
  const parsed = v.safeParse(schema, parseJson(stdout, what));
  if (!parsed.success)
    throw new ScannerReportError(`the ${what} has an unexpected shape: ${describeIssue(parsed.issues)}`);
  return parsed.output;
}

/** The tools say `Critical`, `HIGH`, Grype also `Negligible` (below low: low here, so it is not lost). */
export function severityFromLabel(label: string | undefined, score: number | undefined): Severity {
  switch (label?.toLowerCase()) {
    case 'critical':
      return 'critical';
    case 'high':
      return 'high';
    case 'medium':
    case 'moderate':
      return 'medium';
    case 'low':
    case 'negligible':
      return 'low';
    default:
      return score !== undefined ? severityOfScore(score) : 'unknown';
  }
}

/**
 * The SBOM package a tool's finding is about: by purl (the tools echo the document's purls, though
 * they may re-encode qualifiers), else by name and version. Undefined when the tool names a package
 * the SBOM does not hold; the finding is then described from the tool's own fields.
 */
export function packageIndex(
  sbom: ImageSbom,
): (purl: string | undefined, name: string, version: string) => SbomPackage | undefined {
  const byPurl = new Map(sbom.packages.map((pkg) => [withoutQualifiers(pkg.purl), pkg]));
  const byName = new Map(sbom.packages.map((pkg) => [`${pkg.name}@${pkg.version}`, pkg]));
  return (purl, name, version) =>
    (purl ? byPurl.get(withoutQualifiers(purl)) : undefined) ?? byName.get(`${name}@${version}`);
}

function withoutQualifiers(purl: string): string {
  return decodeURIComponent(purl.split(/[?#]/)[0] ?? purl);
}

/** `pkg:deb/debian/openssl@…` → `deb`. */
export function purlType(purl: string | undefined): string | undefined {
  return purl ? /^pkg:([a-z0-9.+-]+)\//i.exec(purl)?.[1]?.toLowerCase() : undefined;
}

/** A summary line: the tools' descriptions run to paragraphs. */
export function summaryOf(text: string | undefined): string {
  const line = (text ?? '').trim().split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** The first problem valibot found, with its path: enough to tell which field of a report was wrong. */
export function describeIssue(issues: readonly v.BaseIssue<unknown>[]): string {
  const first = issues[0];
  if (!first) return 'unknown';
  const path = (first.path ?? []).map((item) => String(item.key)).join('.');
  return `${path || '(root)'}: ${first.message}`.slice(0, 200);
}
