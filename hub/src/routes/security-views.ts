import type { Container } from '../../../shared/schemas/container';
import type { ContainerScan } from '../security/container-scan';
import type { SeverityCounts } from '../security/osv/scan-sbom';
import type { ScanStore } from '../security/scan-store';
import type { DatabaseStatus, SecurityService } from '../security/security-service';
import { currentReference } from '../updates/update-target';

const NONE: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 };

/**
 * GET /api/v1/containers/{id}/vulnerabilities: the latest persisted scan, or `not-scanned`. When it
 * read the update candidate, `running` (an extension of the spec's shape) adds the running image's
 * own findings, so what runs today is not hidden behind what the update would run (issue 28).
 */
export function vulnerabilitiesView(
  container: Container,
  scan: ContainerScan | undefined,
  running?: ContainerScan | undefined,
) {
  if (!scan)
    return { containerId: container.id, status: 'not-scanned', scannedAt: null, vulnerabilities: [], summary: NONE };
  if (scan.target !== 'candidate' || running?.status !== 'scanned') return scan;
  const { image, imageId, scannedAt, vulnerabilities, summary } = running;
  return { ...scan, running: { image, ...(imageId && { imageId }), scannedAt, summary, vulnerabilities } };
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

/**
 * Containers whose running image has critical or high findings (GET /api/v1/containers/summary
 * `security.issues`): the latest scan when it read the running image, else the running image's own.
 */
export function securityIssues(
  all: readonly Container[],
  scanOf: (container: Container) => ContainerScan | undefined,
  runningOf: (container: Container) => ContainerScan | undefined = () => undefined,
): number {
  return all.filter((container) => {
    const latest = scanOf(container);
    const summary = (latest?.target === 'current' ? latest : runningOf(container))?.summary;
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
  scanOf: (container: Container) => ContainerScan | undefined,
  database: DatabaseStatus,
  runningOf: (container: Container) => ContainerScan | undefined = () => undefined,
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
    const scan = scanOf(container);
    if (scan?.status !== 'scanned') continue;
    scanned++;
    if (latestScanAt === null || scan.scannedAt > latestScanAt) latestScanAt = scan.scannedAt;
    // A candidate's scan is the image's `update`; the image's own findings are its running scan's.
    if (scan.target === 'candidate') entry.update = { image: scan.image, summary: scan.summary };
    const own = scan.target === 'current' ? scan : runningOf(container);
    if (own?.status !== 'scanned') continue;
    if (entry.scannedAt !== null && entry.scannedAt >= own.scannedAt) continue;
    entry.scannedAt = own.scannedAt;
    entry.summary = own.summary;
    entry.vulnerabilities = own.vulnerabilities;
  }
  // Only images something was learnt about: an unscanned image has no findings to group.
  const known = [...images.values()].filter((entry) => entry.scannedAt !== null || entry.update !== undefined);
  return { total: all.length, scanned, latestScanAt, database, images: known };
}

/** A container's latest scan and its running image's; a re-created container without its own gets its image's (scan-store.ts). */
export function scanLookups(scans: Pick<ScanStore, 'get' | 'runningScan'>) {
  return {
    scanOf: (container: Container) => scans.get(container.id, container),
    runningOf: (container: Container) => scans.runningScan(container.id, container),
  };
}

/**
 * GET /api/v1/containers/security/vulnerabilities, with `scanner`: whether scans can run at all (an
 * extension: the UI offers scan-all, or says how to set one up).
 */
export async function fleetVulnerabilities(
  all: readonly Container[],
  security: Pick<SecurityService, 'scans' | 'databaseStatus' | 'configured'>,
) {
  const { scanOf, runningOf } = scanLookups(security.scans);
  const aggregate = vulnerabilityAggregate(all, scanOf, await security.databaseStatus(), runningOf);
  return { ...aggregate, scanner: security.configured() };
}
