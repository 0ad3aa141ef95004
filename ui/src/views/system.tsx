import { ConfigSection } from './system/config-section';
import { HubSection } from './system/hub-section';
import { RegistriesSection } from './system/registries-section';
import { WatchersSection } from './system/watchers-section';

/**
 * The hub and what it is configured with (issue 28): its version and its own update, the watchers
 * with their next run and "Check all now", the registries, and the configuration, read, checked
 * and written where the API allows.
 */
export function System() {
  return (
    <main id="main" tabIndex={-1}>
      <h1>System</h1>
      <HubSection />
      <WatchersSection />
      <RegistriesSection />
      <ConfigSection />
    </main>
  );
}
