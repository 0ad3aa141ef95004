import * as v from 'valibot';
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

/**
 * The latest scan of a container (GET /api/v1/containers/{id}/vulnerabilities): which image it
 * read (the update candidate when there was one), against which database, and what it found.
 * `failed` keeps the error; the findings of a failed scan are empty, not the previous ones.
 */
export const ContainerScanSchema = v.object({
  containerId: v.string(),
  status: v.picklist(['scanned', 'failed']),
  scanner: v.literal('osv'),
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
});
export type ContainerScan = v.InferOutput<typeof ContainerScanSchema>;
