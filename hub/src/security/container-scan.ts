import type { ContainerScan, ScanDelta, ScanFinding } from '../../../shared/schemas/container-scan';

// The contract lives in shared/ (the web UI reads it too); the hub's security modules import it from here.
export {
  type ContainerScan,
  ContainerScanSchema,
  FindingSchema,
  type ScanDelta,
  ScanDeltaSchema,
  SeverityCountsSchema,
} from '../../../shared/schemas/container-scan';

/** The delta of a candidate's findings against the running image's (ScanDeltaSchema). */
export function scanDelta(running: ContainerScan, candidate: readonly ScanFinding[]): ScanDelta {
  const keyOf = (f: ScanFinding) => `${f.id}\u0000${f.package.ecosystem.split(':')[0]}\u0000${f.package.name}`;
  const brief = (f: ScanFinding) => ({
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
