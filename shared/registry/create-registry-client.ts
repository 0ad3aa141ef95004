import { isLoopbackHost, registryApiHost } from './image-reference';
import { type BasicCredentials, RegistryAuth } from './registry-auth';
import { RegistryClient } from './registry-client';
import { type RegistryFetch, type RegistryRequestEvent, RegistryTransport } from './registry-transport';
import type { RequestLimiter } from './request-limiter';

export interface RegistryConnection {
  /** Registry as written in image references (`docker.io`, `ghcr.io`, `127.0.0.1:5000`). */
  registry: string;
  credentials?: BasicCredentials | undefined;
  /** Plain http (DD_REGISTRY_INSECURE, `_INSECURE`); loopback hosts always may. */
  insecure?: boolean;
  /** An explicit scheme (a configured URL, or https for a private CA) beats the loopback rule. */
  scheme?: 'http' | 'https' | undefined;
  trustedRealmHosts?: readonly string[];
  limiter: RequestLimiter;
  fetch?: RegistryFetch;
  timeoutMs?: number;
  onRequest?: (event: RegistryRequestEvent) => void;
  now?: () => number;
}

/** One client per registry connection: its transport, auth state and token cache live with it. */
export function createRegistryClient(connection: RegistryConnection): RegistryClient {
  const apiHost = registryApiHost(connection.registry);
  const plainHttp =
    connection.scheme === undefined
      ? connection.insecure === true || isLoopbackHost(apiHost)
      : connection.scheme === 'http';
  const transport = new RegistryTransport({
    limiter: connection.limiter,
    ...(connection.fetch && { fetch: connection.fetch }),
    ...(connection.timeoutMs !== undefined && { timeoutMs: connection.timeoutMs }),
    ...(connection.onRequest && { onRequest: connection.onRequest }),
    ...(connection.now && { now: connection.now }),
  });
  const auth = new RegistryAuth({
    transport,
    registryHost: apiHost,
    credentials: connection.credentials,
    insecure: plainHttp || connection.insecure === true,
    ...(connection.trustedRealmHosts && { trustedRealmHosts: connection.trustedRealmHosts }),
    ...(connection.now && { now: connection.now }),
  });
  return new RegistryClient({ baseUrl: `${plainHttp ? 'http' : 'https'}://${apiHost}`, transport, auth });
}
