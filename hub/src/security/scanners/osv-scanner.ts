import type { OsvMeta } from '../osv/osv-store';
import { type AdvisoryLookup, scanSbom } from '../osv/scan-sbom';
import type { VulnerabilityScanner } from './vulnerability-scanner';

/** The built-in scanner: the SBOM matched against the OSV database the hub imported (osv/). */
export function createOsvScanner(
  database: AdvisoryLookup & { status(): Promise<OsvMeta | undefined> },
): VulnerabilityScanner {
  return {
    name: 'osv',
    async database() {
      const meta = await database.status();
      return meta && { importedAt: meta.importedAt, source: meta.source };
    },
    scan: (sbom) => scanSbom(sbom, database),
  };
}
