// GET /api/v1/containers/security/vulnerabilities and POST /containers/scan-all (http-interface §4.8),
// typed from the shared scan schema: `import type` only, so nothing of valibot is bundled.
import type { ContainerScan } from '../../../../shared/schemas/container-scan';
import { call } from '../../api';

export type Finding = ContainerScan['vulnerabilities'][number];
export type SeverityCounts = ContainerScan['summary'];

/** One running image of the fleet and what its scans found (hub/src/routes/security-views.ts). */
export interface ImageFindings {
  image: string;
  containerIds: string[];
  scannedAt: string | null;
  summary: SeverityCounts;
  vulnerabilities: Finding[];
  update?: { image: string; summary: SeverityCounts };
}

/** The database or tool state the hub reports beside the aggregate. */
export type DatabaseState =
  | { state: 'ready'; importedAt: string; source: string; lastRefresh?: { state: string; reason?: string } }
  | { state: 'external'; scanner: string; version: string; databaseUpdatedAt?: string; offline: boolean }
  | { state: 'empty' | 'importing' | 'internetless' | 'failed'; reason?: string };

export interface FleetVulnerabilities {
  total: number;
  scanned: number;
  latestScanAt: string | null;
  database: DatabaseState;
  images: ImageFindings[];
  /** Whether a scanner is configured at all (an extension of the spec's shape). */
  scanner?: boolean;
}

export const securityApi = {
  fleet: (signal?: AbortSignal) => call<FleetVulnerabilities>('/containers/security/vulnerabilities', { signal }),
  scanAll: () => call<{ cycleId: string; scheduledCount: number }>('/containers/scan-all', { method: 'POST' }),
};
