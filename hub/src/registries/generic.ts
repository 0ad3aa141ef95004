import { defaultRateLimit, PRIVATE_CONCURRENCY } from './politeness';
import type { ProviderConnection, RegistryProvider } from './registry-provider';

/**
 * The anonymous fallback for a registry no provider is configured for: still checked as a
 * generic OCI registry, never reported as unsupported (decisions §2). Plain http only for
 * loopback hosts and the hosts listed in DD_REGISTRY_INSECURE.
 */
export function createGenericProvider(insecureHosts: ReadonlySet<string>): RegistryProvider {
  return {
    type: 'generic',
    name: 'anonymous',
    matches: () => true,
    async connection(registry): Promise<ProviderConnection> {
      return {
        insecure: insecureHosts.has(registry),
        rateLimit: defaultRateLimit(registry),
        concurrency: PRIVATE_CONCURRENCY,
      };
    },
    maskedConfiguration: () => ({ insecureHosts: [...insecureHosts] }),
  };
}
