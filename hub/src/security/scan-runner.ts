import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { Publish } from '../events/event-bus';
import type { NotificationService } from '../notifications/notification-service';
import type { AuditStore } from '../store/audit-store';
import { currentReference, updateTargetOf } from '../updates/update-target';
import { type ContainerScan, scanDelta } from './container-scan';
import { countSeverities } from './osv/scan-sbom';
import type { ImageSbom } from './sbom-model';
import type { ScanStore } from './scan-store';
import type { ScanDatabase, VulnerabilityScanner } from './scanners/vulnerability-scanner';

/**
 * Where the scanner gets an image's packages: the SBOM generator (hub/src/security/sbom/), handed
 * to the hub by its composition. `target` says which image: the update candidate or the running one.
 */
export interface SbomSource {
  sbomFor(container: Container, target: 'candidate' | 'current'): Promise<ImageSbom>;
}

export interface ScanRunnerDeps {
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  notifications: Pick<NotificationService, 'securityAlert'>;
  containers: { all(): Container[]; get(id: string): Container | undefined };
  sbom: SbomSource | undefined;
  scanner: VulnerabilityScanner | undefined;
  scans: ScanStore;
}

/** The image a scan reads: the update candidate when there is one, else the running image. */
export function scanTarget(container: Container): { target: 'candidate' | 'current'; image: string } {
  const update = updateTargetOf(container);
  return update
    ? { target: 'candidate', image: update.targetImage }
    : { target: 'current', image: currentReference(container) };
}

/** A bulk scan in progress: its id, its counts, and the SBOMs it read (each image once). */
interface Cycle {
  id: string;
  scheduled: number;
  completed: number;
  sboms: Map<string, Promise<ImageSbom>>;
}

/** Which image a scan read, with what and when. */
type ScanRead = Pick<ContainerScan, 'scanner' | 'scannedAt' | 'target' | 'image'>;

/** What one scan read, recorded the same way for the candidate and for the running image it is compared with. */
function scannedResult(
  container: Container,
  read: ScanRead,
  sbom: ImageSbom,
  meta: ScanDatabase,
  vulnerabilities: ContainerScan['vulnerabilities'],
): ContainerScan {
  return {
    containerId: container.id,
    status: 'scanned',
    ...read,
    imageId: sbom.imageId,
    database: { importedAt: meta.importedAt, source: meta.source },
    packages: sbom.packages.length,
    vulnerabilities,
    summary: countSeverities(vulnerabilities),
  };
}

/** The critical and high findings of a scan, by advisory and package. */
const severeOf = (scan: ContainerScan | undefined) =>
  new Set(
    (scan?.vulnerabilities ?? [])
      .filter((f) => f.severity === 'critical' || f.severity === 'high')
      .map((f) => `${f.id}|${f.package.purl}`),
  );

/**
 * Scans (docs/security-scanning.md): one container's candidate (compared with its running image),
 * or every container in a background cycle; each result kept, announced, and alerted on when it
 * brings new critical or high findings.
 */
export function createScanRunner(deps: ScanRunnerDeps) {
  const { scanner, scans } = deps;
  let cycle: Cycle | undefined;
  let cycleRun: Promise<void> | undefined;
  const isoNow = () => new Date(deps.now()).toISOString();

  function sbomOf(container: Container, target: 'candidate' | 'current', image: string, within?: Cycle) {
    if (!deps.sbom) throw new Error('no SBOM source');
    const source = deps.sbom;
    if (!within) return source.sbomFor(container, target);
    const key = `${container.agent ?? ''}|${container.watcher}|${image}|${target === 'current' ? container.image.id : ''}`;
    let sbom = within.sboms.get(key);
    if (!sbom) {
      sbom = source.sbomFor(container, target);
      within.sboms.set(key, sbom);
    }
    return sbom;
  }

  /**
   * The scan of the running image a candidate is compared with: the kept one when it read the same
   * image against the same database, else a new one (kept, not made the container's latest scan).
   * Undefined when the running image cannot be read: the candidate's scan stands without a delta.
   */
  async function runningBaseline(
    container: Container,
    meta: ScanDatabase,
    within?: Cycle,
  ): Promise<ContainerScan | undefined> {
    if (!scanner) return undefined;
    const image = currentReference(container);
    const kept = scans.runningScan(container.id, container);
    if (kept && kept.image === image && kept.database?.importedAt === meta.importedAt) return kept;
    try {
      const sbom = await sbomOf(container, 'current', image, within);
      const vulnerabilities = await scanner.scan(sbom);
      const read: ScanRead = { scanner: scanner.name, scannedAt: isoNow(), target: 'current', image };
      const running = scannedResult(container, read, sbom, meta, vulnerabilities);
      await scans.putRunning(running);
      return running;
    } catch (error) {
      deps.logger.warn('the running image could not be scanned for the delta', {
        container: container.name,
        error: String(error),
      });
      return undefined;
    }
  }

  async function scan(container: Container, within?: Cycle): Promise<ContainerScan> {
    const { target, image } = scanTarget(container);
    const previous = scans.get(container.id);
    const cycleId = within?.id;
    deps.publish('dd:scan-started', { containerId: container.id, ...(cycleId && { cycleId }) });
    const read: ScanRead = { scanner: scanner?.name ?? 'osv', scannedAt: isoNow(), target, image };
    let result: ContainerScan;
    try {
      if (!deps.sbom || !scanner) throw new Error('no scanner or no SBOM source');
      const meta = await scanner.database();
      if (!meta) {
        await deps.audit.append({
          action: 'security-scan-skipped',
          containerName: container.name,
          containerImage: image,
          details: 'no OSV database imported',
        });
        throw new Error('no OSV database imported: set DD_SECURITY_OSV_URL or DD_SECURITY_OSV_FILE');
      }
      const sbom = await sbomOf(container, target, image, within);
      const vulnerabilities = await scanner.scan(sbom);
      result = scannedResult(container, read, sbom, meta, vulnerabilities);
      // A candidate is compared with the running image: the delta of the update.
      if (target === 'candidate') {
        const running = await runningBaseline(container, meta, within);
        if (running) result.delta = scanDelta(running, vulnerabilities);
      }
    } catch (error) {
      const message = errorMessage(error).slice(0, 500);
      result = {
        containerId: container.id,
        ...read,
        status: 'failed',
        packages: 0,
        vulnerabilities: [],
        summary: countSeverities([]),
        error: message,
      };
    }
    await scans.put(result);
    await alertOnNewSevere(container, previous, result);
    if (within) within.completed++;
    deps.publish('dd:scan-completed', {
      containerId: container.id,
      status: result.status,
      ...(within && {
        cycleId: within.id,
        requestId: within.id,
        completedCount: within.completed,
        scheduledCount: within.scheduled,
      }),
    });
    return result;
  }

  /** security-alert (audited and routed by the notification rule) when critical or high findings appear that the last scan did not have. */
  async function alertOnNewSevere(container: Container, previous: ContainerScan | undefined, result: ContainerScan) {
    const before = severeOf(previous);
    const now = severeOf(result);
    if (now.size === 0 || [...now].every((key) => before.has(key))) return;
    await deps.notifications.securityAlert({ container, critical: result.summary.critical, high: result.summary.high });
  }

  /**
   * POST /api/v1/containers/scan-all: every container, one after another (the SBOM reads are the
   * heavy part, and each image is read once per cycle), in the background. One cycle at a time: a
   * second request while one runs joins it.
   */
  function scanAll(): { cycleId: string; scheduledCount: number; joined: boolean } {
    if (cycle) return { cycleId: cycle.id, scheduledCount: cycle.scheduled, joined: true };
    const containers = deps.containers.all();
    const current: Cycle = { id: crypto.randomUUID(), scheduled: containers.length, completed: 0, sboms: new Map() };
    cycle = current;
    cycleRun = (async () => {
      const counts = { scanned: 0, failed: 0 };
      for (const listed of containers) {
        // Re-read: a container removed meanwhile is not scanned, one changed is scanned as it is now.
        const container = deps.containers.get(listed.id);
        if (!container) {
          current.completed++;
          continue;
        }
        const result = await scan(container, current).catch(() => undefined);
        counts[result?.status === 'scanned' ? 'scanned' : 'failed']++;
      }
      deps.publish('security-scan-cycle-complete', {
        cycleId: current.id,
        scheduledCount: current.scheduled,
        completedCount: current.completed,
        ...counts,
      });
    })()
      .catch((error) => deps.logger.warn('a scan-all cycle failed', { error: String(error) }))
      .finally(() => {
        cycle = undefined;
      });
    return { cycleId: current.id, scheduledCount: current.scheduled, joined: false };
  }

  return {
    scan: (container: Container) => scan(container),
    scanAll,
    /** The scan-all cycle under way, if any (a stop waits for it). */
    running: (): Promise<void> | undefined => cycleRun,
  };
}
