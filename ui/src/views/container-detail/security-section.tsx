import { useState } from 'preact/hooks';
import { SEVERITIES } from '../../../../shared/security/severities';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { when } from '../../format-time';
import { putContainer } from '../../state';
import { useAction } from '../../use-action';
import { type ContainerScan, detailApi, type NotScanned } from './detail-api';
import { useSectionRead } from './use-section-read';

const sbomHref = (id: string, format: 'spdx-json' | 'cyclonedx-json') =>
  `/api/v1/containers/${encodeURIComponent(id)}/sbom?format=${format}`;

function Counts({ summary }: { summary: ContainerScan['summary'] }) {
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

/**
 * The latest vulnerability scan (docs/security-scanning.md): what image it read (the update's
 * candidate when there is one), what it found, and what the update fixes and introduces; a scan on
 * demand; the SBOM of the running image as SPDX or CycloneDX (docs/security.md).
 */
export function SecuritySection({ c }: { c: Container }) {
  const [scan, setScan] = useState<ContainerScan | NotScanned | undefined>();
  const { busy, error, setError, run } = useAction();

  useSectionRead((signal) => detailApi.vulnerabilities(c.id, signal), setScan, setError, [c.id]);

  const scanNow = () =>
    run(async () => {
      putContainer(await detailApi.scan(c.id));
      setScan(await detailApi.vulnerabilities(c.id));
    });

  const scanned = scan && scan.status !== 'not-scanned' ? scan : undefined;
  return (
    <section class="card" aria-labelledby="security">
      <h2 id="security">Security</h2>
      {scan?.status === 'not-scanned' && <p>Not scanned yet.</p>}
      {scanned && (
        <dl class="grid" data-field="security">
          <dt>Scanned</dt>
          <dd>
            {when(scanned.scannedAt)}: the {scanned.target === 'candidate' ? 'update candidate' : 'running image'}{' '}
            <span class="mono break">{scanned.image}</span>
          </dd>
          <dt>Found</dt>
          <dd>
            {scanned.status === 'failed' ? (
              <span class="break">the scan failed: {scanned.error}</span>
            ) : (
              <Counts summary={scanned.summary} />
            )}
          </dd>
          {scanned.delta && (
            <>
              <dt>The update fixes</dt>
              <dd data-field="fixed">
                {scanned.delta.fixed.length === 0
                  ? 'nothing known'
                  : scanned.delta.fixed
                      .map((f) => `${f.id} (${f.package} ${f.installedVersion}, ${f.severity})`)
                      .join(', ')}
              </dd>
              <dt>The update brings</dt>
              <dd data-field="introduced">
                {scanned.delta.introduced.length === 0
                  ? 'nothing known'
                  : scanned.delta.introduced
                      .map((f) => `${f.id} (${f.package} ${f.installedVersion}, ${f.severity})`)
                      .join(', ')}
              </dd>
            </>
          )}
        </dl>
      )}
      {scanned && scanned.vulnerabilities.length > 0 && (
        <table class="list" aria-labelledby="security">
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
            {scanned.vulnerabilities.map((finding) => (
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
      )}
      <div class="actions">
        <button type="button" class="secondary" disabled={busy} onClick={scanNow}>
          {busy ? 'Scanning…' : 'Scan now'}
        </button>
        <a href={sbomHref(c.id, 'spdx-json')} download={`${c.name}.spdx.json`}>
          SBOM (SPDX)
        </a>
        <a href={sbomHref(c.id, 'cyclonedx-json')} download={`${c.name}.cdx.json`}>
          SBOM (CycloneDX)
        </a>
      </div>
      <ErrorText message={error} />
    </section>
  );
}
