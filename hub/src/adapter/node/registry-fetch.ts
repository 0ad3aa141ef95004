import { readFileSync } from 'node:fs';
import type { Agent } from 'undici';
import type { FetchLike, RegistryFetch } from '../../../../shared/registry/registry-transport';
import type { ProviderConnection } from '../../registries/registry-provider';
import { importCommonJs } from './commonjs-import';
import { createNodeHttpFetch } from './node-http-fetch';

type Undici = typeof import('undici');

/**
 * The registry fetch on Node: the global one, or undici's own with an Agent trusting a private
 * CA (`DD_REGISTRY_<TYPE>_<NAME>_CAFILE`). undici's fetch is used with its Agent because a
 * dispatcher from another undici version than Node's bundled one is not accepted by it. undici
 * itself is imported only when a registry has a CA file (docs/benchmarks.md "Footprint").
 */
export function createRegistryFetchFactory(): (connection: ProviderConnection) => FetchLike {
  let undici: Promise<Undici> | undefined;
  const loadUndici = () => {
    undici ??= importCommonJs(() => import('undici'));
    return undici;
  };
  const agents = new Map<string, Promise<Agent>>();
  return (connection) => {
    const caFile = connection.caFile;
    if (caFile === undefined) return (input, init) => fetch(input, init);
    let agent = agents.get(caFile);
    if (!agent) {
      // Read now, as before: an unreadable CA file fails where the registry is configured.
      const ca = readFileSync(caFile, 'utf8');
      agent = loadUndici().then(({ Agent }) => new Agent({ connect: { ca } }));
      agents.set(caFile, agent);
    }
    const dispatcher = agent;
    return async (input, init) => {
      const { fetch: undiciFetch } = await loadUndici();
      return (await undiciFetch(input, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher: await dispatcher,
      })) as unknown as Response;
    };
  };
}

/**
 * The registry fetch of a one-shot process (`dockwatch check`): node:http and node:https instead
 * of Node's fetch, which a fresh process pays for dearly (node-http-fetch.ts). One client per CA
 * file, read when the registry is configured as the hub's is.
 */
export function createOneShotRegistryFetchFactory(): (connection: ProviderConnection) => RegistryFetch {
  const clients = new Map<string | undefined, RegistryFetch>();
  return ({ caFile }) => {
    let client = clients.get(caFile);
    if (!client) {
      client = createNodeHttpFetch(caFile === undefined ? {} : { ca: readFileSync(caFile, 'utf8') });
      clients.set(caFile, client);
    }
    return client;
  };
}
