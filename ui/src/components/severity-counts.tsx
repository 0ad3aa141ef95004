import type { ContainerScan } from '../../../shared/schemas/container-scan';
import { SEVERITIES } from '../../../shared/security/severities';

/** Counts by severity as badges in words ("1 critical, 2 high"), or that nothing is known. */
export function SeverityCounts({ summary }: { summary: ContainerScan['summary'] }) {
  const shown = SEVERITIES.filter((severity) => summary[severity] > 0);
  if (shown.length === 0) return <span>no known vulnerability</span>;
  return (
    <span>
      {shown.map((severity, index) => (
        <span key={severity}>
          {index > 0 && ', '}
          <span class={`badge ${severity}`}>
            {summary[severity]} {severity}
          </span>
        </span>
      ))}
    </span>
  );
}
