import type { Storage } from 'unstorage';
import type { Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import type { Publish } from '../events/event-bus';
import type { NotificationService } from '../notifications/notification-service';
import type { AuditStore } from '../store/audit-store';
import { createOsvDatabase, type DatabaseStatus } from './osv-database';
import { createScanRunner, type SbomSource } from './scan-runner';
import { ScanStore } from './scan-store';
import type { ExternalScanner } from './scanners/external-scanner';
import { createOsvScanner } from './scanners/osv-scanner';
import type { VulnerabilityScanner } from './scanners/vulnerability-scanner';
import type { SecurityConfig } from './security-config';
import { createSecurityGate } from './security-gate';

export type { DatabaseStatus } from './osv-database';
export { type SbomSource, scanTarget } from './scan-runner';

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

/**
 * Vulnerability scanning (docs/security-scanning.md): the OSV database (osv-database.ts) or an
 * external tool, the scans (scan-runner.ts), and the update gate (security-gate.ts).
 */
export function createSecurityService(deps: SecurityServiceDeps) {
  const logger = deps.logger.child('security');
  const osv = createOsvDatabase({ ...deps, logger });
  const scans = new ScanStore(deps.storage, logger);
  const scanner: VulnerabilityScanner | undefined =
    deps.config.scanner === 'osv' ? createOsvScanner(osv.store) : deps.external;
  /** Scanning needs a scanner chosen and an SBOM source to read images with. */
  const configured = () => scanner !== undefined && deps.sbom !== undefined;
  const runner = createScanRunner({ ...deps, logger, scanner, scans });

  return {
    configured,
    scans,
    database: osv.store,
    databaseStatus: async (): Promise<DatabaseStatus> => (deps.external ? deps.external.status() : osv.status()),
    refreshDatabase: (force = false) => osv.refresh(force),
    scan: runner.scan,
    scanAll: runner.scanAll,
    /** The scheduled scan (DD_SECURITY_SCAN_HOURS): a scan-all cycle, joined when one runs, awaited to its end. */
    async scanAllToEnd(): Promise<void> {
      runner.scanAll();
      await runner.running();
    },
    gate: createSecurityGate({ scans, scan: runner.scan, configured, blockSeverity: deps.config.blockSeverity }),
    async load() {
      await scans.load();
    },
    /** Waits for the running scan-all cycle and database import, so nothing writes after the hub stopped. */
    async stop() {
      await Promise.all([runner.running(), osv.importing()].map((running) => running?.catch(() => undefined)));
    },
    /** Imports the database in the background, so a slow download never holds the hub's start. */
    start() {
      void osv.refresh().catch((error) => logger.warn('the OSV database refresh failed', { error: String(error) }));
    },
  };
}
