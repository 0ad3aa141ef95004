import { createRegistryClient } from '../../../shared/registry/create-registry-client';
import { registryApiHost } from '../../../shared/registry/image-reference';
import type { RegistryClient } from '../../../shared/registry/registry-client';
import type { RegistryFetch, RegistryRequestEvent } from '../../../shared/registry/registry-transport';
import {
  createConcurrencyLimiter,
  createTokenBucketLimiter,
  type RequestLimiter,
} from '../../../shared/registry/request-limiter';
import type { ProviderConnection, RegistryProvider } from './registry-provider';

export interface RegistryServiceOptions {
  /** Configured providers, asked in order; then the built-in ones; then the generic fallback. */
  providers: readonly RegistryProvider[];
  builtIn: readonly RegistryProvider[];
  fallback: RegistryProvider;
  /** The runtime's fetch for a connection (the Node adapter binds a CA file). */
  fetchFor?: (connection: ProviderConnection) => RegistryFetch;
  onRequest?: (event: RegistryRequestEvent) => void;
  timeoutMs?: number;
  now?: () => number;
}

interface CachedClient {
  client: RegistryClient;
  provider: RegistryProvider;
  expiresAt: number;
}

/**
 * Hands out one long-lived client per registry host, so token caches and limiters are shared by
 * every container of the fleet. The limiter belongs to the API host, whatever provider asks.
 */
export class RegistryService {
  private readonly clients = new Map<string, Promise<CachedClient>>();
  private readonly limiters = new Map<string, RequestLimiter>();
  private readonly now: () => number;

  constructor(private options: RegistryServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A configuration reload's providers: clients built with the old ones (their tokens, their credentials) are dropped. */
  replaceProviders(providers: Pick<RegistryServiceOptions, 'providers' | 'builtIn' | 'fallback'>): void {
    this.options = { ...this.options, ...providers };
    this.clients.clear();
  }

  providerFor(registry: string): RegistryProvider {
    return (
      this.options.providers.find((provider) => provider.matches(registry)) ??
      this.options.builtIn.find((provider) => provider.matches(registry)) ??
      this.options.fallback
    );
  }

  async clientFor(registry: string): Promise<{ client: RegistryClient; provider: RegistryProvider }> {
    const cached = this.clients.get(registry);
    if (cached) {
      const ready = await cached.catch(() => undefined);
      if (ready && ready.expiresAt > this.now()) return ready;
    }
    const building = this.build(registry);
    this.clients.set(registry, building);
    building.catch(() => this.clients.delete(registry));
    return building;
  }

  private async build(registry: string): Promise<CachedClient> {
    const provider = this.providerFor(registry);
    const connection = await provider.connection(registry);
    const client = createRegistryClient({
      registry,
      credentials: connection.credentials,
      insecure: connection.insecure ?? false,
      scheme: connection.scheme ?? (connection.caFile === undefined ? undefined : 'https'),
      ...(connection.trustedRealmHosts && { trustedRealmHosts: connection.trustedRealmHosts }),
      limiter: this.limiterFor(registryApiHost(registry), connection),
      ...(this.options.fetchFor && { fetch: this.options.fetchFor(connection) }),
      ...(this.options.onRequest && { onRequest: this.options.onRequest }),
      ...(this.options.timeoutMs !== undefined && { timeoutMs: this.options.timeoutMs }),
      ...(this.options.now && { now: this.options.now }),
    });
    return { client, provider, expiresAt: connection.expiresAt ?? Number.POSITIVE_INFINITY };
  }

  private limiterFor(host: string, connection: ProviderConnection): RequestLimiter {
    let limiter = this.limiters.get(host);
    if (!limiter) {
      limiter = connection.rateLimit
        ? createTokenBucketLimiter({
            ...connection.rateLimit,
            concurrency: connection.concurrency,
            ...(this.options.now && { now: this.options.now }),
          })
        : createConcurrencyLimiter(connection.concurrency);
      this.limiters.set(host, limiter);
    }
    return limiter;
  }
}
