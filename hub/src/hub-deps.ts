import type { UpgradeWebSocket } from 'hono/ws';
import type { Storage } from 'unstorage';
import type { FetchLike } from '../../shared/registry/registry-transport';
import type { HubConfig } from './config/hub-config';
import type { LogRing } from './logging/log-ring';
import type { Logger } from './logging/logger';
import type { LoadedRegistryProviders } from './registries/load-registry-providers';
import type { ProviderConnection } from './registries/registry-provider';

/** Everything the portable core needs from its runtime; the entry points build it. */
export interface HubDeps {
  config: HubConfig;
  storage: Storage;
  logger: Logger;
  logRing: LogRing;
  /** Product version from package.json. */
  version: string;
  runtime: 'node' | 'workers' | 'test';
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Present where the runtime can upgrade to WebSocket; WebSocket routes answer 501 otherwise. */
  upgradeWebSocket?: UpgradeWebSocket<unknown> | undefined;
  /** Registry providers from DD_REGISTRY_*; the built-in public ones when absent. */
  registries?: LoadedRegistryProviders | undefined;
  /** The runtime's fetch for a registry connection (Node binds a CA file); the global fetch otherwise. */
  registryFetch?: ((connection: ProviderConnection) => FetchLike) | undefined;
  /** Runtime-specific Prometheus text appended to /metrics (process metrics on Node). */
  runtimeMetrics?: (() => Promise<string>) | undefined;
}
