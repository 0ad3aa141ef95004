import type { ContainerScan } from '../../../shared/schemas/container-scan';

/** A scan's findings: advisory (linked when https), package, installed, fixed in, severity. */
export function FindingsTable({
  findings,
  labelledBy,
}: {
  findings: ContainerScan['vulnerabilities'];
  labelledBy: string;
}) {
  return (
    <table class="list" aria-labelledby={labelledBy}>
      <thead>
        <tr>
          <th scope="col">Advisory</th>
          <th scope="col">Package</th>
          <th scope="col">Installed</th>
          <th scope="col">Fixed in</th>
          <th scope="col">Severity</th>
        </tr>
      </thead>
      <tbody>
        {findings.map((finding) => (
          <tr key={`${finding.id}:${finding.package.purl}`} data-finding={finding.id}>
            <td data-label="Advisory">
              {/^https:\/\//.test(finding.url) ? (
                <a href={finding.url} rel="noreferrer noopener" target="_blank" title={finding.summary}>
                  {finding.id}
                </a>
              ) : (
                <span title={finding.summary}>{finding.id}</span>
              )}
            </td>
            <td data-label="Package" class="mono break">
              {finding.package.name}
            </td>
            <td data-label="Installed" class="mono break">
              {finding.installedVersion}
            </td>
            <td data-label="Fixed in" class="mono break">
              {finding.fixedVersions.join(', ') || '—'}
            </td>
            <td data-label="Severity">
              {finding.severity}
              {finding.score !== undefined && ` (${finding.score})`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
