import { useState } from 'preact/hooks';
import type { Container } from '../../api';
import { ErrorText } from '../../components/error-text';
import { FindingsTable } from '../../components/findings-table';
import { SeverityCounts } from '../../components/severity-counts';
import { when } from '../../format-time';
import { putContainer } from '../../state';
import { useAction } from '../../use-action';
import { type ContainerScan, detailApi, type NotScanned, type RunningFindings } from './detail-api';
import { useSectionRead } from './use-section-read';

const sbomHref = (id: string, format: 'spdx-json' | 'cyclonedx-json') =>
  `/api/v1/containers/${encodeURIComponent(id)}/sbom?format=${format}`;

type Brief = NonNullable<ContainerScan['delta']>['fixed'];
const briefly = (findings: Brief) =>
  findings.length === 0
    ? 'nothing known'
    : findings.map((f) => `${f.id} (${f.package} ${f.installedVersion}, ${f.severity})`).join(', ');

/** What runs today: the scan of the running image, or the running image's own beside a candidate's scan. */
function runningOf(scan: ContainerScan): RunningFindings | undefined {
  if (scan.target === 'current' && scan.status === 'scanned') return scan;
  return scan.running;
}

/**
 * The container's vulnerabilities (docs/security-scanning.md): what the running image has first
 * (issue 28: it hid under "The update fixes"), then what the update would run, what it fixes and
 * what it brings; a scan on demand; the SBOM of the running image as SPDX or CycloneDX.
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
  const running = scanned && runningOf(scanned);
  const candidate = scanned?.target === 'candidate' ? scanned : undefined;
  return (
    <section class="card" aria-labelledby="security">
      <h2 id="security">Security</h2>
      {scan?.status === 'not-scanned' && <p>Not scanned yet.</p>}
      {scanned?.status === 'failed' && (
        <p class="break" data-field="scan-failed">
          The last scan ({when(scanned.scannedAt)}, <span class="mono">{scanned.image}</span>) failed: {scanned.error}
        </p>
      )}
      {scanned?.status === 'scanned' && (
        <>
          <h3 id="security-running">Running image</h3>
          {running ? (
            <>
              <dl class="grid" data-field="security">
                <dt>Image</dt>
                <dd class="mono break">{running.image}</dd>
                <dt>Found</dt>
                <dd data-field="running-counts">
                  <SeverityCounts summary={running.summary} />, scanned {when(running.scannedAt)}
                </dd>
              </dl>
              {running.vulnerabilities.length > 0 && (
                <div data-field="running-findings">
                  <FindingsTable findings={running.vulnerabilities} labelledBy="security-running" />
                </div>
              )}
            </>
          ) : (
            <p>Not scanned yet: the last scan read the update's image.</p>
          )}
        </>
      )}
      {candidate && candidate.status === 'scanned' && (
        <>
          <h3 id="security-update">The update</h3>
          <dl class="grid">
            <dt>Image</dt>
            <dd class="mono break">{candidate.image}</dd>
            <dt>Found</dt>
            <dd data-field="candidate-counts">
              <SeverityCounts summary={candidate.summary} />, scanned {when(candidate.scannedAt)}
            </dd>
            {candidate.delta && (
              <>
                <dt>It fixes</dt>
                <dd data-field="fixed">{briefly(candidate.delta.fixed)}</dd>
                <dt>It brings</dt>
                <dd data-field="introduced">{briefly(candidate.delta.introduced)}</dd>
              </>
            )}
          </dl>
          {candidate.vulnerabilities.length > 0 && (
            <div data-field="candidate-findings">
              <FindingsTable findings={candidate.vulnerabilities} labelledBy="security-update" />
            </div>
          )}
        </>
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
