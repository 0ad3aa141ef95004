import type { UpgradeWebSocket } from 'hono/ws';
import type { Storage } from 'unstorage';
import type { HubConfig } from './config/hub-config';
import type { LogRing } from './logging/log-ring';
import type { Logger } from './logging/logger';

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
  /** Runtime-specific Prometheus text appended to /metrics (process metrics on Node). */
  runtimeMetrics?: (() => Promise<string>) | undefined;
}
