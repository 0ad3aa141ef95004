import * as v from 'valibot';
import { SCANNER_NAMES } from './scanners/vulnerability-scanner';
import { SEVERITIES } from './severity';

/** One finding as stored and served (osv/scan-sbom.ts builds it). */
export const FindingSchema = v.object({
  id: v.string(),
  aliases: v.array(v.string()),
  package: v.object({ type: v.string(), name: v.string(), purl: v.string(), ecosystem: v.string() }),
  installedVersion: v.string(),
  fixedVersions: v.array(v.string()),
  severity: v.picklist(SEVERITIES),
  score: v.optional(v.number()),
  summary: v.string(),
  url: v.string(),
});

export const SeverityCountsSchema = v.object({
  critical: v.number(),
  high: v.number(),
  medium: v.number(),
  low: v.number(),
  unknown: v.number(),
});

/** One finding as a delta names it. */
const DeltaFindingSchema = v.object({
  id: v.string(),
  severity: v.picklist(SEVERITIES),
  package: v.string(),
  installedVersion: v.string(),
});

/**
 * What a pending update changes (running image against candidate): the findings it fixes (in the
 * running image, not in the candidate) and the ones it introduces; a finding is its advisory and
 * package name, so a version bump of a still-affected package is neither.
 */
export const ScanDeltaSchema = v.object({
  /** The running image the candidate was compared with, and when it was scanned. */
  against: v.object({ image: v.string(), scannedAt: v.string() }),
  fixed: v.array(DeltaFindingSchema),
  introduced: v.array(DeltaFindingSchema),
});
export type ScanDelta = v.InferOutput<typeof ScanDeltaSchema>;

/**
 * The latest scan of a container (GET /api/v1/containers/{id}/vulnerabilities): which image it
 * read (the update candidate when there was one), against which database, and what it found.
 * `failed` keeps the error; the findings of a failed scan are empty, not the previous ones.
 */
export const ContainerScanSchema = v.object({
  containerId: v.string(),
  status: v.picklist(['scanned', 'failed']),
  scanner: v.picklist(SCANNER_NAMES),
  scannedAt: v.string(),
  /** `candidate`: the image the pending update would run; `current`: the running one. */
  target: v.picklist(['candidate', 'current']),
  image: v.string(),
  imageId: v.optional(v.string()),
  database: v.optional(v.object({ importedAt: v.string(), source: v.string() })),
  packages: v.number(),
  vulnerabilities: v.array(FindingSchema),
  summary: SeverityCountsSchema,
  error: v.optional(v.string()),
  /** A scan of an update candidate: what the update fixes and introduces. */
  delta: v.optional(ScanDeltaSchema),
});
export type ContainerScan = v.InferOutput<typeof ContainerScanSchema>;

type Finding = v.InferOutput<typeof FindingSchema>;

/** The delta of a candidate's findings against the running image's (ScanDeltaSchema). */
export function scanDelta(running: ContainerScan, candidate: readonly Finding[]): ScanDelta {
  const keyOf = (f: Finding) => `${f.id}\u0000${f.package.ecosystem.split(':')[0]}\u0000${f.package.name}`;
  const brief = (f: Finding) => ({
    id: f.id,
    severity: f.severity,
    package: f.package.name,
    installedVersion: f.installedVersion,
  });
  const before = new Set(running.vulnerabilities.map(keyOf));
  const after = new Set(candidate.map(keyOf));
  return {
    against: { image: running.image, scannedAt: running.scannedAt },
    fixed: running.vulnerabilities.filter((f) => !after.has(keyOf(f))).map(brief),
    introduced: candidate.filter((f) => !before.has(keyOf(f))).map(brief),
  };
}
