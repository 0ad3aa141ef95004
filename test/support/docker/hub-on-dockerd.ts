import { type NodeHub, type StartNodeHubOptions, startNodeHub } from '../../../hub/src/adapter/node/start-node-hub';
import type { HubParts } from '../../../hub/src/compose-hub';
import type { Environment } from '../../../shared/config/env-source';
import type { Container } from '../../../shared/schemas/container';
import type { TestDockerd } from './start-dockerd';

/** The hub as `npm start` runs it, its local watcher on a test dockerd, and short ways to call it. */
export interface HubOnDockerd {
  hub: NodeHub;
  parts: HubParts;
  url: string;
  /** Every line the hub logged, as text with its fields, for secret-leak checks. */
  logged: string[];
  api(path: string, init?: RequestInit): Promise<Response>;
  json<T = unknown>(path: string, init?: RequestInit): Promise<T>;
  wsUrl(path: string): string;
  /** An inventory refresh (no registry checks): what Docker has now is in the hub afterwards. */
  refresh(): Promise<Container[]>;
  close(): Promise<void>;
}

/**
 * No registry is involved: containers are unwatched by default (DD_WATCHER_LOCAL_WATCHBYDEFAULT=false),
 * so no watch cycle ever looks an image up, and tests fill the inventory with refresh().
 */
export async function startHubOnDockerd(
  dockerd: TestDockerd,
  env: Environment = {},
  deps?: StartNodeHubOptions['deps'],
): Promise<HubOnDockerd> {
  const logged: string[] = [];
  const hub = await startNodeHub({
    env: {
      DD_STORE_DRIVER: 'memory',
      DD_SERVER_PORT: '0',
      DD_SERVER_HOST: '127.0.0.1',
      DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
      DD_WATCHER_LOCAL_JITTER: '0',
      DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'false',
      // Tests poll it from one address: the server-wide request limit is raised (as in ../hub-harness).
      DD_SERVER_RATELIMIT_MAX: '1000000000',
      ...env,
    },
    sink: (entry, fields) => logged.push(JSON.stringify({ ...entry, ...fields })),
    ...(deps && { deps }),
  });
  const api = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init);
  return {
    hub,
    parts: hub.hub.parts,
    url: hub.url,
    logged,
    api,
    json: async <T>(path: string, init?: RequestInit) => (await api(path, init)).json() as Promise<T>,
    wsUrl: (path) => `${hub.url.replace(/^http/, 'ws')}${path}`,
    async refresh() {
      const response = await api('/api/v1/watchers/docker/local/inventory', { method: 'POST' });
      if (response.status !== 200) throw new Error(`inventory refresh: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { containers: Container[] }).containers;
    },
    close: () => hub.close(),
  };
}
