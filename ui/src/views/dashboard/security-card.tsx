import { useEffect, useState } from 'preact/hooks';
import { SeverityCounts } from '../../components/severity-counts';
import { when } from '../../format-time';
import { scansChanged } from '../../scan-progress';
import { fleetCounts } from '../security/fleet-security';
import { type FleetVulnerabilities, securityApi } from '../security/security-api';

/**
 * The fleet's findings by severity, linked to the security view; left out when no scanner is
 * configured (a card for what is not configured says nothing), read again as scans end.
 */
export function SecurityCard() {
  const [fleet, setFleet] = useState<FleetVulnerabilities | undefined>();
  const changed = scansChanged.value;
  useEffect(() => {
    const abort = new AbortController();
    // A failure leaves the card out: the security view says why.
    securityApi.fleet(abort.signal).then(setFleet, () => undefined);
    return () => abort.abort();
  }, [changed]);
  if (!fleet || fleet.scanner === false) return null;
  return (
    <section aria-labelledby="security-card" class="card">
      <h2 id="security-card">Security</h2>
      <p data-field="dashboard-security">
        <SeverityCounts summary={fleetCounts(fleet.images)} /> in the running images; {fleet.scanned} of {fleet.total}{' '}
        containers scanned{fleet.latestScanAt && `, last ${when(fleet.latestScanAt)}`}.
      </p>
      <a href="/security">Vulnerabilities by image</a>
    </section>
  );
}
