import type { Capability } from '../capability';
import { FleetLookups } from '../checks/fleet-lookups';
import type { HubFoundation } from '../hub-foundation';
import type { SettingsStore } from '../store/settings-store';
import type { LoadedRegistryProviders } from './load-registry-providers';
import { RegistryService } from './registry-service';

/** Registry access for update checks, shared by the whole fleet; absent without registry providers. */
export interface RegistryAccess {
  providers: LoadedRegistryProviders;
  service: RegistryService;
  lookups: FleetLookups;
}

export function registriesCapability(
  deps: Pick<HubFoundation, 'input' | 'config' | 'now' | 'metrics'> & { settings: SettingsStore },
): Capability<{ registries: RegistryAccess | undefined }> {
  const { input, now, metrics, settings } = deps;
  if (!input.registries) return { parts: { registries: undefined } };
  const service = new RegistryService({
    providers: input.registries.configured,
    builtIn: input.registries.builtIn,
    fallback: input.registries.fallback,
    ...(input.registryFetch && { fetchFor: input.registryFetch }),
    onRequest: (event) => {
      metrics.registryRequests.inc({ host: event.host, status: String(event.status) });
      metrics.registryDuration.observe({ host: event.host }, event.durationMs / 1000);
    },
    timeoutMs: deps.config.registry.timeoutMs,
    now,
  });
  const lookups = new FleetLookups(service, now, () => settings.get().internetlessMode);
  return { parts: { registries: { providers: input.registries, service, lookups } } };
}
