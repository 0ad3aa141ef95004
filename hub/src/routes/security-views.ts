import type { Container } from '../../../shared/schemas/container';
import type { ContainerScan } from '../security/container-scan';
import type { SeverityCounts } from '../security/osv/scan-sbom';
import type { DatabaseStatus } from '../security/security-service';
import { currentReference } from '../updates/update-target';

const NONE: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 };

/** GET /api/v1/containers/{id}/vulnerabilities: the latest persisted scan, or `not-scanned`. */
export function vulnerabilitiesView(container: Container, scan: ContainerScan | undefined) {
  if (!scan)
    return { containerId: container.id, status: 'not-scanned', scannedAt: null, vulnerabilities: [], summary: NONE };
  return scan;
}

/**
 * The container's `security` field (list with includeVulnerabilities, detail, scan): the latest
 * scan's state and counts; the findings themselves only when asked for.
 */
export function containerSecurity(scan: ContainerScan | undefined, includeVulnerabilities: boolean) {
  if (!scan) return { status: 'not-scanned' as const, summary: NONE };
  const { vulnerabilities, containerId: _id, ...rest } = scan;
  return { ...rest, ...(includeVulnerabilities && { vulnerabilities }) };
}

/** Containers with critical or high findings (GET /api/v1/containers/summary `security.issues`). */
export function securityIssues(all: readonly Container[], scanOf: (id: string) => ContainerScan | undefined): number {
  return all.filter((container) => {
    const summary = scanOf(container.id)?.summary;
    return summary !== undefined && summary.critical + summary.high > 0;
  }).length;
}

/**
 * GET /api/v1/containers/security/vulnerabilities: per running image scanned, its containers and the
 * findings of their scans of it (each finding once per image); scans of an update candidate are
 * the image's `update` summary (what the update would bring), not its own findings.
 */
export function vulnerabilityAggregate(
  all: readonly Container[],
  scanOf: (id: string) => ContainerScan | undefined,
  database: DatabaseStatus,
) {
  interface ImageEntry {
    image: string;
    containerIds: string[];
    scannedAt: string | null;
    summary: SeverityCounts;
    vulnerabilities: ContainerScan['vulnerabilities'];
    update?: { image: string; summary: SeverityCounts };
  }
  const images = new Map<string, ImageEntry>();
  let scanned = 0;
  let latestScanAt: string | null = null;
  for (const container of all) {
    const image = currentReference(container);
    const entry = images.get(image) ?? {
      image,
      containerIds: [],
      scannedAt: null,
      summary: { ...NONE },
      vulnerabilities: [],
    };
    images.set(image, entry);
    entry.containerIds.push(container.id);
    const scan = scanOf(container.id);
    if (scan?.status !== 'scanned') continue;
    scanned++;
    if (latestScanAt === null || scan.scannedAt > latestScanAt) latestScanAt = scan.scannedAt;
    if (scan.target === 'candidate') {
      entry.update = { image: scan.image, summary: scan.summary };
      continue;
    }
    if (entry.scannedAt !== null && entry.scannedAt >= scan.scannedAt) continue;
    entry.scannedAt = scan.scannedAt;
    entry.summary = scan.summary;
    entry.vulnerabilities = scan.vulnerabilities;
  }
  // Only images something was learnt about: an unscanned image has no findings to group.
  const known = [...images.values()].filter((entry) => entry.scannedAt !== null || entry.update !== undefined);
  return { total: all.length, scanned, latestScanAt, database, images: known };
}
