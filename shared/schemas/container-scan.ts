import * as v from 'valibot';

import { SEVERITIES } from '../security/severities';

/** DD_SECURITY_SCANNER: the built-in OSV matcher, or a Trivy or Grype binary on the hub's host. */
export const SCANNER_NAMES = ['osv', 'trivy', 'grype'] as const;
export type ScannerName = (typeof SCANNER_NAMES)[number];

/** One finding as stored and served (hub/src/security/osv/scan-sbom.ts builds it). */
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

export type ScanFinding = v.InferOutput<typeof FindingSchema>;
