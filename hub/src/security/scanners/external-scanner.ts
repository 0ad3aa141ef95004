import { errorMessage } from '../../../../shared/error-message';
import { toCycloneDx } from '../sbom/cyclonedx-document';
import type { ScannerDialect, ScannerVersion } from './scanner-dialect';
import type { ExternalScannerName, ScannerProcess, VulnerabilityScanner } from './vulnerability-scanner';

/** A scan reading a large image's SBOM may take minutes (Trivy's own default deadline is 5). */
export const DEFAULT_SCAN_TIMEOUT_MS = 600_000;
/** Trivy's report of an image with thousands of findings runs to a few MiB; beyond this it is refused (it is held in memory to be parsed). */
export const DEFAULT_MAX_REPORT_BYTES = 64 * 1024 * 1024;
const VERSION_TIMEOUT_MS = 30_000;
const MAX_VERSION_BYTES = 64 * 1024;
/** `<tool> version` is asked again after this long: the tool may have updated its database meanwhile. */
const VERSION_TTL_MS = 60_000;

/** The state of an external scanner in GET /api/v1/containers/security/vulnerabilities `database`. */
export type ExternalScannerStatus =
  | {
      state: 'external';
      scanner: ExternalScannerName;
      version: string;
      /** When the tool's database was last updated, when the tool tells (Trivy does, Grype's `version` does not). */
      databaseUpdatedAt?: string;
      /** internetlessMode: the tool is told not to update its database nor reach the network. */
      offline: boolean;
    }
  | { state: 'failed'; reason: string };

export interface ExternalScannerOptions {
  dialect: ScannerDialect;
  process: ScannerProcess;
  internetless: () => boolean;
  now: () => number;
  /** The hub's version, named in the CycloneDX document handed to the tool. */
  toolVersion: string;
  timeoutMs?: number;
  maxReportBytes?: number;
}

export type ExternalScanner = VulnerabilityScanner & { status(): Promise<ExternalScannerStatus> };

/**
 * Trivy or Grype behind the scanner interface: each scan writes the image's SBOM as CycloneDX to a
 * private temporary file, runs the tool on it, bounded in time and output, and reads its JSON. A
 * failure (non-zero exit, a report that is not the tool's JSON, the deadline) fails that one scan.
 */
export function createExternalScanner(options: ExternalScannerOptions): ExternalScanner {
  const { dialect } = options;
  let probed: { at: number; version: Promise<ScannerVersion> } | undefined;

  async function run(
    args: string[],
    env: Record<string, string>,
    limits: { timeoutMs: number; maxStdoutBytes: number },
    input?: { fileName: string; content: string },
  ) {
    const result = await options.process
      .run({ args, env, ...limits, ...(input && { input }) })
      .catch((error: unknown) => {
        throw new Error(`${dialect.name}: ${errorMessage(error)}`);
      });
    if (result.exitCode !== 0)
      throw new Error(`${dialect.name} exited with ${result.exitCode}${result.stderr ? `: ${result.stderr}` : ''}`);
    return result.stdout;
  }

  /** The tool's version, asked at most once a minute; a failed answer is asked again next time. */
  function version(): Promise<ScannerVersion> {
    const now = options.now();
    if (probed && now - probed.at < VERSION_TTL_MS) return probed.version;
    const asked = run(dialect.versionArgs, dialect.scanEnv(options.internetless()), {
      timeoutMs: VERSION_TIMEOUT_MS,
      maxStdoutBytes: MAX_VERSION_BYTES,
    }).then((stdout) => {
      try {
        return dialect.parseVersion(stdout);
      } catch (error) {
        throw new Error(`${dialect.name}: ${errorMessage(error)}`);
      }
    });
    probed = { at: now, version: asked };
    asked.catch(() => {
      if (probed?.version === asked) probed = undefined;
    });
    return asked;
  }

  return {
    name: dialect.name,
    async database() {
      const { version: toolVersion, databaseUpdatedAt } = await version();
      // Without the database's date (Grype), the date it was asked: the running image's scan is then
      // reused for a delta only within that minute, never against a database that may have changed.
      return {
        importedAt: databaseUpdatedAt ?? new Date(probed?.at ?? options.now()).toISOString(),
        source: `${dialect.name} ${toolVersion}`,
      };
    },
    async scan(sbom) {
      const internetless = options.internetless();
      const document = toCycloneDx(sbom, { toolVersion: options.toolVersion });
      const stdout = await run(
        dialect.scanArgs(internetless),
        dialect.scanEnv(internetless),
        {
          timeoutMs: options.timeoutMs ?? DEFAULT_SCAN_TIMEOUT_MS,
          maxStdoutBytes: options.maxReportBytes ?? DEFAULT_MAX_REPORT_BYTES,
        },
        { fileName: 'sbom.cdx.json', content: JSON.stringify(document) },
      );
      try {
        return dialect.parseReport(stdout, sbom);
      } catch (error) {
        throw new Error(`${dialect.name}: ${errorMessage(error)}`);
      }
    },
    async status() {
      try {
        const { version: toolVersion, databaseUpdatedAt } = await version();
        return {
          state: 'external',
          scanner: dialect.name,
          version: toolVersion,
          ...(databaseUpdatedAt && { databaseUpdatedAt }),
          offline: options.internetless(),
        };
      } catch (error) {
        return { state: 'failed', reason: errorMessage(error).slice(0, 300) };
      }
    },
  };
}
