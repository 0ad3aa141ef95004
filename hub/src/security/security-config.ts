import { ConfigError } from '../../../shared/config/config-error';
import { type EnvReaderContext, envChoice, envInteger, envText } from '../../../shared/config/env-readers';
import { SCANNER_NAMES, type ScannerName } from './scanners/vulnerability-scanner';
import type { Severity } from './severity';

/** The severities a gate can be set at (`unknown` is not one: an unrated finding never blocks). */
export const BLOCK_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type BlockSeverity = (typeof BLOCK_SEVERITIES)[number] & Severity;

/**
 * Vulnerability scanning (docs/security-scanning.md), DD_SECURITY_*:
 * - DD_SECURITY_SCANNER: `osv`, the built-in matcher; `trivy` or `grype`, the tool's binary on the
 *   hub's host (Node only: the runtime's composition checks it is there); unset, nothing is scanned
 *   (the scan routes answer 400).
 * - DD_SECURITY_SCANNER_PATH: the trivy or grype binary, when it is not found on PATH.
 * - DD_SECURITY_OSV_URL / DD_SECURITY_OSV_FILE: where the OSV database is imported from (an
 *   all.zip export, a JSON document or JSON Lines); at most one of them.
 * - DD_SECURITY_OSV_REFRESH_HOURS: how often a URL is downloaded again (24; 0: only at start).
 * - DD_SECURITY_SCAN_HOURS: how often every container is scanned (24 once a scanner is set; 0: only
 *   on demand), so the fleet's findings follow the database without a click (issue 28).
 * - DD_SECURITY_BLOCK_SEVERITY: the security gate; an update whose candidate has a finding at or
 *   above it is refused (per container: the `dd.security.block-severity` label).
 */
export interface SecurityConfig {
  scanner: ScannerName | undefined;
  scannerPath: string | undefined;
  osv: { url: string | undefined; file: string | undefined; refreshHours: number };
  blockSeverity: BlockSeverity | undefined;
  /** Hours between scheduled scans of the whole fleet; 0: none. */
  scanHours: number;
}

export const SECURITY_VARIABLES = [
  'DD_SECURITY_SCANNER',
  'DD_SECURITY_SCANNER_PATH',
  'DD_SECURITY_OSV_URL',
  'DD_SECURITY_OSV_FILE',
  'DD_SECURITY_OSV_REFRESH_HOURS',
  'DD_SECURITY_BLOCK_SEVERITY',
  'DD_SECURITY_SCAN_HOURS',
] as const;

export function loadSecurityConfig(vars: EnvReaderContext): SecurityConfig {
  const scanner = vars.optional('DD_SECURITY_SCANNER', envChoice(SCANNER_NAMES));
  const scannerPath = vars.optional('DD_SECURITY_SCANNER_PATH', envText);
  if (scannerPath !== undefined && scanner !== 'trivy' && scanner !== 'grype')
    throw new ConfigError('DD_SECURITY_SCANNER_PATH', 'needs DD_SECURITY_SCANNER=trivy or grype');
  // A URL may carry a token: checked, never echoed.
  const url = vars.secret('DD_SECURITY_OSV_URL');
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      throw new ConfigError('DD_SECURITY_OSV_URL', 'must be an http:// or https:// URL');
  }
  const file = vars.optional('DD_SECURITY_OSV_FILE', envText);
  if (url !== undefined && file !== undefined)
    throw new ConfigError('DD_SECURITY_OSV_FILE', 'cannot be set together with DD_SECURITY_OSV_URL; choose one source');
  // Trivy and Grype bring their own databases: an OSV source beside them would be silently unused.
  if ((url !== undefined || file !== undefined) && scanner !== 'osv')
    throw new ConfigError(
      url !== undefined ? 'DD_SECURITY_OSV_URL' : 'DD_SECURITY_OSV_FILE',
      scanner === undefined
        ? 'needs DD_SECURITY_SCANNER=osv'
        : `is not used by ${scanner}, which keeps its own database; remove it or use DD_SECURITY_SCANNER=osv`,
    );
  if (
    (scanner === 'trivy' || scanner === 'grype') &&
    vars.optional('DD_SECURITY_OSV_REFRESH_HOURS', envText) !== undefined
  )
    throw new ConfigError('DD_SECURITY_OSV_REFRESH_HOURS', `is not used by ${scanner}, which keeps its own database`);
  return {
    scanner,
    scannerPath,
    osv: { url, file, refreshHours: vars.get('DD_SECURITY_OSV_REFRESH_HOURS', envInteger(0, 8760), 24) },
    blockSeverity: vars.optional('DD_SECURITY_BLOCK_SEVERITY', envChoice(BLOCK_SEVERITIES)),
    scanHours: scanHoursOf(vars, scanner),
  };
}

/** DD_SECURITY_SCAN_HOURS: 24 by default once a scanner is set; refused without one (nothing would scan). */
function scanHoursOf(vars: EnvReaderContext, scanner: ScannerName | undefined): number {
  const hours = vars.optional('DD_SECURITY_SCAN_HOURS', envInteger(0, 8760));
  if (hours !== undefined && hours > 0 && scanner === undefined)
    throw new ConfigError('DD_SECURITY_SCAN_HOURS', 'needs DD_SECURITY_SCANNER: without a scanner nothing is scanned');
  return hours ?? (scanner === undefined ? 0 : 24);
}
