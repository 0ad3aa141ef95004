import type { Storage } from 'unstorage';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import type { AuditStore } from '../store/audit-store';
import { importOsvExport } from './osv/osv-import';
import { OSV_INDEX_FORMAT, type OsvMeta, OsvStore } from './osv/osv-store';
import { readBounded } from './read-bounded';
import type { ExternalScannerStatus } from './scanners/external-scanner';
import type { SecurityConfig } from './security-config';

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

export interface OsvDatabaseDeps {
  config: Pick<SecurityConfig, 'scanner' | 'osv'>;
  storage: Storage;
  logger: Logger;
  now: () => number;
  audit: Pick<AuditStore, 'append'>;
  internetless: () => boolean;
  /** Downloads DD_SECURITY_OSV_URL. */
  fetch: (url: string) => Promise<Response>;
  /** Reads DD_SECURITY_OSV_FILE; absent where the runtime reads no files (Workers). */
  readFile: ((path: string) => Promise<Uint8Array>) | undefined;
}

/** How an import names its source: a URL without its query (which may hold a token). */
function sourceOf(kind: 'url' | 'file', location: string): string {
  if (kind === 'file') return `file:${location}`;
  const url = new URL(location);
  return `url:${url.origin}${url.pathname}`;
}

/** The largest OSV export downloaded: beyond it the download is refused, not buffered. */
const MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;

/**
 * The OSV database of DD_SECURITY_SCANNER=osv (docs/security-scanning.md): imported from
 * DD_SECURITY_OSV_URL or DD_SECURITY_OSV_FILE, refreshed when stale, and its state as the API
 * reports it, with the reason the last refresh did not replace it.
 */
export function createOsvDatabase(deps: OsvDatabaseDeps) {
  const store = new OsvStore(deps.storage, deps.logger);
  let importing: Promise<void> | undefined;
  let lastImportProblem: DatabaseStatus | undefined;

  async function download(kind: 'url' | 'file', location: string): Promise<Uint8Array> {
    if (kind === 'url') {
      const response = await deps.fetch(location);
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      return readBounded(response, MAX_DOWNLOAD_BYTES);
    }
    if (!deps.readFile) throw new Error('this runtime reads no files; use DD_SECURITY_OSV_URL');
    return deps.readFile(location);
  }

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
      const meta = await importOsvExport(store, await download(kind, location), source, deps.now());
      lastImportProblem = undefined;
      const { imported, skipped, withdrawn } = meta.counts;
      await deps.audit.append({
        action: 'scanner-asset-pull-succeeded',
        details: `${source}: ${imported} advisories, ${skipped} skipped, ${withdrawn} withdrawn`,
      });
    } catch (error) {
      const reason = errorMessage(error);
      lastImportProblem = { state: 'failed', reason: reason.slice(0, 300) };
      deps.logger.warn('the OSV database import failed', { source, error: reason });
      await deps.audit.append({
        action: 'scanner-asset-pull-failed',
        status: 'failed',
        details: `${source}: ${reason.slice(0, 300)}`,
      });
    }
  }

  return {
    store,
    /**
     * Imports the configured source when the stored database is from another source, older than the
     * refresh period, or indexed in an older format (which would miss what a newer lookup asks for).
     */
    async refresh(force = false): Promise<void> {
      const { url, file, refreshHours } = deps.config.osv;
      const location = url ?? file;
      if (deps.config.scanner !== 'osv' || location === undefined) return;
      importing ??= (async () => {
        const meta = await store.status();
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
    },

    async status(): Promise<DatabaseStatus> {
      if (importing) return { state: 'importing' };
      const meta = await store.status();
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
    },

    /** The import under way, if any (a stop waits for it, so nothing writes after the hub stopped). */
    importing: (): Promise<void> | undefined => importing,
  };
}

export type OsvDatabase = ReturnType<typeof createOsvDatabase>;
