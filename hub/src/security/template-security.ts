import type { TemplateSecurity } from '../notifications/notification-service';
import type { ContainerScan } from './container-scan';

const listed = (findings: NonNullable<ContainerScan['delta']>['fixed']) =>
  findings.map((finding) => `${finding.id} (${finding.package}, ${finding.severity})`).join(', ');

/** A scan as notification templates see it (`${container.security.fixed}`): plain counts and text. */
export function templateSecurity(scan: ContainerScan | undefined): TemplateSecurity | undefined {
  if (!scan) return undefined;
  return {
    status: scan.status,
    ...scan.summary,
    fixed: listed(scan.delta?.fixed ?? []),
    introduced: listed(scan.delta?.introduced ?? []),
    fixedCount: scan.delta?.fixed.length ?? 0,
    introducedCount: scan.delta?.introduced.length ?? 0,
  };
}
