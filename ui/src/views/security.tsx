import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { isAborted } from '../api';
import { ErrorText } from '../components/error-text';
import { FindingsTable } from '../components/findings-table';
import { SeverityCounts } from '../components/severity-counts';
import { when } from '../format-time';
import { scanCycle, scanStarted, scansChanged } from '../scan-progress';
import { containers } from '../state';
import { useAction } from '../use-action';
import { bySeverity, databaseWords, fleetCounts, updateWords } from './security/fleet-security';
import { type FleetVulnerabilities, type ImageFindings, securityApi } from './security/security-api';

function ScanProgress() {
  const cycle = scanCycle.value;
  if (!cycle) return null;
  if (cycle.done)
    return (
      <p role="status" data-field="scan-progress">
        Scanned {cycle.scanned ?? cycle.completed} of {cycle.scheduled} containers
        {cycle.failed ? `; ${cycle.failed} could not be scanned` : ''}.
      </p>
    );
  return (
    <p role="status" data-field="scan-progress">
      <progress max={cycle.scheduled} value={cycle.completed} aria-label="Scan progress" /> Scanning: {cycle.completed}{' '}
      of {cycle.scheduled} containers
    </p>
  );
}

function ImageRow({ entry }: { entry: ImageFindings }) {
  const byId = containers.value;
  const update = updateWords(entry);
  return (
    <li class="card" data-image={entry.image}>
      <h3 class="mono break">{entry.image}</h3>
      <p>
        {entry.scannedAt === null ? 'Not scanned: only its update was.' : <SeverityCounts summary={entry.summary} />}
        {entry.scannedAt && <span class="hint"> · scanned {when(entry.scannedAt)}</span>}
      </p>
      {update && (
        <p data-field="update">
          The update to <span class="mono break">{entry.update?.image}</span> {update}.
        </p>
      )}
      <p>
        Runs in:{' '}
        {entry.containerIds.map((id, index) => (
          <span key={id}>
            {index > 0 && ', '}
            <a href={`/containers/${encodeURIComponent(id)}`}>{byId.get(id)?.name ?? id.slice(0, 12)}</a>
          </span>
        ))}
      </p>
      {entry.vulnerabilities.length > 0 && (
        <details>
          <summary>
            {entry.vulnerabilities.length === 1 ? '1 finding' : `${entry.vulnerabilities.length} findings`}
          </summary>
          <FindingsTable findings={entry.vulnerabilities} labelledBy={`findings-${entry.image}`} />
          <span id={`findings-${entry.image}`} class="visually-hidden">
            Findings of {entry.image}
          </span>
        </details>
      )}
    </li>
  );
}

/**
 * The fleet's vulnerabilities (GET /containers/security/vulnerabilities): counts by severity, each
 * running image worst first with the containers that run it and what its update would change, and
 * "Scan all" with its progress live from the event stream (issue 28).
 */
export function Security() {
  const [fleet, setFleet] = useState<FleetVulnerabilities | undefined>();
  const { busy, error, setError, run } = useAction();
  // Read again as scans end (throttled by the events themselves: one read per change seen).
  const changed = scansChanged.value;
  useEffect(() => {
    const abort = new AbortController();
    securityApi.fleet(abort.signal).then(setFleet, (failure: unknown) => {
      if (!isAborted(failure)) setError(errorMessage(failure));
    });
    return () => abort.abort();
  }, [changed]);

  const scanAll = () =>
    run(async () => {
      const started = await securityApi.scanAll();
      scanStarted(started.cycleId, started.scheduledCount);
    });

  const running = scanCycle.value !== undefined && !scanCycle.value.done;
  const images = fleet ? bySeverity(fleet.images) : [];
  return (
    <main id="main" tabIndex={-1}>
      <h1>Security</h1>
      {fleet && fleet.scanner === false && (
        <section class="card" aria-labelledby="no-scanner">
          <h2 id="no-scanner">No scanner is configured</h2>
          <p>
            Set <code>DD_SECURITY_SCANNER=osv</code> with <code>DD_SECURITY_OSV_URL</code> (or{' '}
            <code>DD_SECURITY_OSV_FILE</code>), or <code>trivy</code> or <code>grype</code>, and restart the hub: every
            container is then scanned once a day, and on demand from here.
          </p>
        </section>
      )}
      {fleet && fleet.scanner !== false && (
        <section class="card" aria-labelledby="fleet-security">
          <h2 id="fleet-security">The fleet</h2>
          <p data-field="fleet-counts">
            <SeverityCounts summary={fleetCounts(fleet.images)} /> in {images.filter((i) => i.scannedAt).length}{' '}
            {images.length === 1 ? 'image' : 'images'}; {fleet.scanned} of {fleet.total} containers scanned
            {fleet.latestScanAt && `, last ${when(fleet.latestScanAt)}`}.
          </p>
          <p class="hint">{databaseWords(fleet.database)}</p>
          <div class="actions">
            <button type="button" disabled={busy || running} onClick={scanAll}>
              {running ? 'Scanning…' : 'Scan all now'}
            </button>
          </div>
          <ScanProgress />
          <ErrorText message={error} />
        </section>
      )}
      {!fleet && <ErrorText message={error} />}
      {fleet && fleet.scanner !== false && images.length === 0 && (
        <p>No image has been scanned yet: "Scan all now" reads every container's.</p>
      )}
      {images.length > 0 && (
        <section aria-labelledby="by-image">
          <h2 id="by-image">Images, worst first</h2>
          <ul class="plain security-images">
            {images.map((entry) => (
              <ImageRow key={entry.image} entry={entry} />
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}
