import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { Publish } from '../events/event-bus';
import type { HttpError } from '../http/http-error';
import type { NotificationService } from '../notifications/notification-service';
import type { AuditStore } from '../store/audit-store';
import { currentReference, type UpdateTarget, updateTargetOf } from '../updates/update-target';
import { type ContainerScan, scanDelta } from './container-scan';
import { importOsvExport } from './osv/osv-import';
import { OSV_INDEX_FORMAT, type OsvMeta, OsvStore } from './osv/osv-store';
import { countSeverities } from './osv/scan-sbom';
import type { ImageSbom } from './sbom-model';
import { ScanStore } from './scan-store';
import type { ExternalScanner, ExternalScannerStatus } from './scanners/external-scanner';
import { createOsvScanner } from './scanners/osv-scanner';
import type { ScanDatabase, VulnerabilityScanner } from './scanners/vulnerability-scanner';
import type { SecurityConfig } from './security-config';
import { blockSeverityOf, scanOfCandidate, securityRefusal } from './security-gate';

/**
 * Where the scanner gets an image's packages: the SBOM generator (hub/src/security/sbom/), handed
 * to the hub by its composition. `target` says which image: the update candidate or the running one.
 */
export interface SbomSource {
  sbomFor(container: Container, target: 'candidate' | 'current'): Promise<ImageSbom>;
}

/** The database's state as GET …/security/vulnerabilities and the docs report it. */
export type DatabaseStatus =
  | {
      state: 'ready';
      importedAt: string;
      source: string;
      counts: OsvMeta['counts'];
      /** Why the last refresh did not replace this database (internetlessMode, a failed download). */
      lastRefresh?: { state: 'internetless' | 'failed'; reason?: string };
    }
  | { state: 'empty' | 'importing' | 'internetless' | 'failed'; reason?: string }
  /** DD_SECURITY_SCANNER=trivy|grype: the tool keeps its own database; its version and state. */
  | ExternalScannerStatus;

export interface SecurityServiceDeps {
  config: SecurityConfig;
  storage: Storage;
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  publish: Publish;
  notifications: Pick<NotificationService, 'securityAlert'>;
  containers: { all(): Container[]; get(id: string): Container | undefined };
  sbom: SbomSource | undefined;
  internetless: () => boolean;
  /** Downloads DD_SECURITY_OSV_URL. */
  fetch: (url: string) => Promise<Response>;
  /** Reads DD_SECURITY_OSV_FILE; absent where the runtime reads no files (Workers). */
  readFile: ((path: string) => Promise<Uint8Array>) | undefined;
  /** DD_SECURITY_SCANNER=trivy|grype: the tool, built by the composition (a process runs it). */
  external?: ExternalScanner | undefined;
}

export type SecurityService = ReturnType<typeof createSecurityService>;

/** The image a scan reads: the update candidate when there is one, else the running image. */
export function scanTarget(container: Container): { target: 'candidate' | 'current'; image: string } {
  const update = updateTargetOf(container);
  return update
    ? { target: 'candidate', image: update.targetImage }
    : { target: 'current', image: currentReference(container) };
}

/** How an import names its source: a URL without its query (which may hold a token). */
function sourceOf(kind: 'url' | 'file', location: string): string {
  if (kind === 'file') return `file:${location}`;
  const url = new URL(location);
  return `url:${url.origin}${url.pathname}`;
}

/** The largest OSV export downloaded: beyond it the download is refused, not buffered. */
const MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;

/** The body, refused once it passes `max` bytes (a Content-Length above it is refused before reading). */
export async function readBounded(response: Response, max: number): Promise<Uint8Array> {
  const announced = Number(response.headers.get('content-length') ?? Number.NaN);
  if (announced > max) throw new Error(`the download announces ${announced} bytes, above ${max}`);
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new Error(`the download passed ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export function createSecurityService(deps: SecurityServiceDeps) {
  const logger = deps.logger.child('security');
  const database = new OsvStore(deps.storage, logger);
  const scans = new ScanStore(deps.storage, logger);
  let importing: Promise<void> | undefined;
  let lastImportProblem: DatabaseStatus | undefined;
  const scanner: VulnerabilityScanner | undefined =
    deps.config.scanner === 'osv' ? createOsvScanner(database) : deps.external;

  /** Scanning needs a scanner chosen and an SBOM source to read images with. */
  const configured = () => scanner !== undefined && deps.sbom !== undefined;

  async function importFrom(kind: 'url' | 'file', location: string): Promise<void> {
    const source = sourceOf(kind, location);
    if (kind === 'url' && deps.internetless()) {
      lastImportProblem = {
        state: 'internetless',
        reason: 'internetlessMode is on: the OSV database is not downloaded',
      };
      await deps.audit.append({
        action: 'scanner-asset-pull-failed',
        status: 'skipped',
        details: `${source}: internetlessMode is on`,
      });
      return;
    }
    await deps.audit.append({ action: 'scanner-asset-pull-started', details: source });
    try {
      let bytes: Uint8Array;
      if (kind === 'url') {
        const response = await deps.fetch(location);
        if (!response.ok) throw new Error(`the server answered ${response.status}`);
        bytes = await readBounded(response, MAX_DOWNLOAD_BYTES);
      } else {
        if (!deps.readFile) throw new Error('this runtime reads no files; use DD_SECURITY_OSV_URL');
        bytes = await deps.readFile(location);
      }
      const meta = await importOsvExport(database, bytes, source, deps.now());
      lastImportProblem = undefined;
      const { imported, skipped, withdrawn } = meta.counts;
      await deps.audit.append({
        action: 'scanner-asset-pull-succeeded',
        details: `${source}: ${imported} advisories, ${skipped} skipped, ${withdrawn} withdrawn`,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      lastImportProblem = { state: 'failed', reason: reason.slice(0, 300) };
      logger.warn('the OSV database import failed', { source, error: reason });
      await deps.audit.append({
        action: 'scanner-asset-pull-failed',
        status: 'failed',
        details: `${source}: ${reason.slice(0, 300)}`,
      });
    }
  }

  /**
   * Imports the configured source when the stored database is from another source, older than the
   * refresh period, or indexed in an older format (which would miss what a newer lookup asks for).
   */
  async function refreshDatabase(force = false): Promise<void> {
    const { url, file, refreshHours } = deps.config.osv;
    const location = url ?? file;
    if (deps.config.scanner !== 'osv' || location === undefined) return;
    importing ??= (async () => {
      const meta = await database.status();
      const wanted = url !== undefined ? 'url' : 'file';
      const sameSource = meta?.source === sourceOf(wanted, location);
      const age = meta ? deps.now() - Date.parse(meta.importedAt) : Number.POSITIVE_INFINITY;
      const stale = wanted === 'url' && refreshHours > 0 && age >= refreshHours * 3_600_000;
      const oldFormat = meta !== undefined && (meta.format ?? 1) !== OSV_INDEX_FORMAT;
      if (force || !sameSource || stale || oldFormat || wanted === 'file') await importFrom(wanted, location);
    })().finally(() => {
      importing = undefined;
    });
    await importing;
  }

  async function databaseStatus(): Promise<DatabaseStatus> {
    if (deps.external) return deps.external.status();
    if (importing) return { state: 'importing' };
    const meta = await database.status();
    if (lastImportProblem && !meta) return lastImportProblem;
    if (!meta)
      return { state: 'empty', reason: 'no OSV database imported: set DD_SECURITY_OSV_URL or DD_SECURITY_OSV_FILE' };
    const problem = lastImportProblem;
    return {
      state: 'ready',
      importedAt: meta.importedAt,
      source: meta.source,
      counts: meta.counts,
      ...(problem &&
        (problem.state === 'internetless' || problem.state === 'failed') && {
          lastRefresh: { state: problem.state, ...(problem.reason !== undefined && { reason: problem.reason }) },
        }),
    };
  }

  /** A bulk scan in progress: its id, its counts, and the SBOMs it read (each image once). */
  interface Cycle {
    id: string;
    scheduled: number;
    completed: number;
    sboms: Map<string, Promise<ImageSbom>>;
  }
  let cycle: Cycle | undefined;
  let cycleRun: Promise<void> | undefined;

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
    const kept = scans.runningScan(container.id);
    if (kept && kept.image === image && kept.database?.importedAt === meta.importedAt) return kept;
    try {
      const sbom = await sbomOf(container, 'current', image, within);
      const vulnerabilities = await scanner.scan(sbom);
      const running: ContainerScan = {
        containerId: container.id,
        status: 'scanned',
        scanner: scanner.name,
        scannedAt: new Date(deps.now()).toISOString(),
        target: 'current',
        image,
        imageId: sbom.imageId,
        database: { importedAt: meta.importedAt, source: meta.source },
        packages: sbom.packages.length,
        vulnerabilities,
        summary: countSeverities(vulnerabilities),
      };
      await scans.putRunning(running);
      return running;
    } catch (error) {
      logger.warn('the running image could not be scanned for the delta', {
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
    const base = {
      containerId: container.id,
      scanner: scanner?.name ?? 'osv',
      scannedAt: new Date(deps.now()).toISOString(),
      target,
      image,
    };
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
      const scanned = {
        status: 'scanned' as const,
        imageId: sbom.imageId,
        database: { importedAt: meta.importedAt, source: meta.source },
        packages: sbom.packages.length,
        vulnerabilities,
        summary: countSeverities(vulnerabilities),
      };
      result = { ...base, ...scanned };
      // A candidate is compared with the running image: the delta of the update.
      if (target === 'candidate') {
        const running = await runningBaseline(container, meta, within);
        if (running) result.delta = scanDelta(running, vulnerabilities);
      }
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      result = {
        ...base,
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
      .catch((error) => logger.warn('a scan-all cycle failed', { error: String(error) }))
      .finally(() => {
        cycle = undefined;
      });
    return { cycleId: current.id, scheduledCount: current.scheduled, joined: false };
  }

  /** security-alert (audited and routed by the notification rule) when critical or high findings appear that the last scan did not have. */
  async function alertOnNewSevere(container: Container, previous: ContainerScan | undefined, result: ContainerScan) {
    const severe = (s: ContainerScan | undefined) =>
      new Set(
        (s?.vulnerabilities ?? [])
          .filter((f) => f.severity === 'critical' || f.severity === 'high')
          .map((f) => `${f.id}|${f.package.purl}`),
      );
    const before = severe(previous);
    const now = severe(result);
    if (now.size === 0 || [...now].every((key) => before.has(key))) return;
    await deps.notifications.securityAlert({ container, critical: result.summary.critical, high: result.summary.high });
  }

  return {
    configured,
    scans,
    database,
    databaseStatus,
    refreshDatabase,
    scan: (container: Container) => scan(container),
    scanAll,
    /**
     * The security gate of the update service: with a threshold (DD_SECURITY_BLOCK_SEVERITY or the
     * container's label), the candidate is scanned when no scan of it exists, then refused (409)
     * when it has findings at or above the threshold. A scan that fails does not block: its error
     * shows on the container, and a broken scanner must not stop every update.
     */
    gate: {
      async admit(container: Container, target: UpdateTarget): Promise<void> {
        const threshold = blockSeverityOf(container, deps.config.blockSeverity);
        if (!threshold) return;
        let latest = scans.get(container.id);
        if (!scanOfCandidate(latest, target) && configured()) latest = await scan(container);
        const refusal = scanOfCandidate(latest, target) ? securityRefusal(container, latest, threshold) : undefined;
        if (refusal) throw refusal;
      },
      /** What the update fixes and introduces, from the scan of its candidate (the preview shows it). */
      delta(container: Container, target: UpdateTarget) {
        const latest = scans.get(container.id);
        return scanOfCandidate(latest, target) ? latest?.delta : undefined;
      },
      assess(container: Container, target: UpdateTarget): HttpError | undefined {
        const latest = scans.get(container.id);
        if (!scanOfCandidate(latest, target)) return undefined;
        return securityRefusal(container, latest, blockSeverityOf(container, deps.config.blockSeverity));
      },
    },
    async load() {
      await scans.load();
    },
    /** Waits for the running scan-all cycle and database import, so nothing writes after the hub stopped. */
    async stop() {
      await Promise.all([cycleRun, importing].map((running) => running?.catch(() => undefined)));
    },
    /** Imports the database in the background, so a slow download never holds the hub's start. */
    start() {
      void refreshDatabase().catch((error) => logger.warn('the OSV database refresh failed', { error: String(error) }));
    },
  };
}
