import { grypeDialect } from './grype-scanner';
import type { ScannerDialect } from './scanner-dialect';
import { trivyDialect } from './trivy-scanner';
import type { ExternalScannerName } from './vulnerability-scanner';

/** The external scanners DD_SECURITY_SCANNER names, one file each. */
export const EXTERNAL_DIALECTS: Record<ExternalScannerName, ScannerDialect> = {
  trivy: trivyDialect,
  grype: grypeDialect,
};
