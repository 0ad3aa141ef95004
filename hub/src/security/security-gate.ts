import { actingLabels } from '../../../shared/containers/label-overrides';
import type { Container } from '../../../shared/schemas/container';
import { HttpError } from '../http/http-error';
import type { UpdateTarget } from '../updates/update-target';
import type { ContainerScan } from './container-scan';
import type { ScanStore } from './scan-store';
import { BLOCK_SEVERITIES, type BlockSeverity } from './security-config';
import { severityRank } from './severity';

/** The label that sets a container's gate; `none` turns the gate off for it whatever DD_SECURITY_BLOCK_SEVERITY says. */
export const BLOCK_SEVERITY_LABEL = 'dd.security.block-severity';

/** The severity at or above which this container's updates are blocked, if any. */
export function blockSeverityOf(
  container: Container,
  configured: BlockSeverity | undefined,
): BlockSeverity | undefined {
  const label = actingLabels(container)[BLOCK_SEVERITY_LABEL]?.trim().toLowerCase();
  if (label === 'none') return undefined;
  if (label !== undefined && (BLOCK_SEVERITIES as readonly string[]).includes(label)) return label as BlockSeverity;
  return configured;
}

/** Whether a scan read this update's candidate image. */
export function scanOfCandidate(scan: ContainerScan | undefined, target: UpdateTarget): boolean {
  return scan?.status === 'scanned' && scan.target === 'candidate' && scan.image === target.targetImage;
}

/**
 * The 409 of the security gate (http-interface §4.8 "blocked by security"), or undefined: the
 * candidate's scan has findings at or above the threshold. `details.reason` is `security-blocked`,
 * which the auto-updater audits as `auto-update-blocked`.
 */
export function securityRefusal(
  container: Container,
  scan: ContainerScan | undefined,
  threshold: BlockSeverity | undefined,
): HttpError | undefined {
  if (!threshold || !scan) return undefined;
  const blocking = scan.vulnerabilities.filter((f) => severityRank(f.severity) >= severityRank(threshold));
  if (blocking.length === 0) return undefined;
  return new HttpError(
    409,
    `The update of ${container.name} is blocked by security: ${blocking.length} vulnerabilities at or above ${threshold} in ${scan.image}`,
    {
      reason: 'security-blocked',
      blockSeverity: threshold,
      image: scan.image,
      findings: blocking.slice(0, 50).map((f) => ({
        id: f.id,
        severity: f.severity,
        package: f.package.name,
        installedVersion: f.installedVersion,
        fixedVersions: f.fixedVersions,
      })),
    },
  );
}

export interface SecurityGateDeps {
  scans: Pick<ScanStore, 'get'>;
  /** Scans the container now (the candidate, when it has one). */
  scan: (container: Container) => Promise<ContainerScan>;
  /** Whether a scan can run at all (a scanner and an SBOM source). */
  configured: () => boolean;
  /** DD_SECURITY_BLOCK_SEVERITY. */
  blockSeverity: BlockSeverity | undefined;
}

/**
 * The security gate of the update service: with a threshold (DD_SECURITY_BLOCK_SEVERITY or the
 * container's label), the candidate is scanned when no scan of it exists, then refused (409)
 * when it has findings at or above the threshold. A scan that fails does not block: its error
 * shows on the container, and a broken scanner must not stop every update.
 */
export function createSecurityGate(deps: SecurityGateDeps) {
  return {
    async admit(container: Container, target: UpdateTarget): Promise<void> {
      const threshold = blockSeverityOf(container, deps.blockSeverity);
      if (!threshold) return;
      let latest = deps.scans.get(container.id);
      if (!scanOfCandidate(latest, target) && deps.configured()) latest = await deps.scan(container);
      const refusal = scanOfCandidate(latest, target) ? securityRefusal(container, latest, threshold) : undefined;
      if (refusal) throw refusal;
    },
    /** What the update fixes and introduces, from the scan of its candidate (the preview shows it). */
    delta(container: Container, target: UpdateTarget) {
      const latest = deps.scans.get(container.id);
      return scanOfCandidate(latest, target) ? latest?.delta : undefined;
    },
    assess(container: Container, target: UpdateTarget): HttpError | undefined {
      const latest = deps.scans.get(container.id);
      if (!scanOfCandidate(latest, target)) return undefined;
      return securityRefusal(container, latest, blockSeverityOf(container, deps.blockSeverity));
    },
  };
}
