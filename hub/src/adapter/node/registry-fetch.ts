import { readFileSync } from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchLike } from '../../../../shared/registry/registry-transport';
import type { ProviderConnection } from '../../registries/registry-provider';

/**
 * The registry fetch on Node: the global one, or undici's own with an Agent trusting a private
 * CA (`DD_REGISTRY_<TYPE>_<NAME>_CAFILE`). undici's fetch is used with its Agent because a
 * dispatcher from another undici version than Node's bundled one is not accepted by it.
 */
export function createRegistryFetchFactory(): (connection: ProviderConnection) => FetchLike {
  const agents = new Map<string, Agent>();
  return (connection) => {
    const caFile = connection.caFile;
    if (caFile === undefined) return (input, init) => fetch(input, init);
    let agent = agents.get(caFile);
    if (!agent) {
      agent = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
      agents.set(caFile, agent);
    }
    const dispatcher = agent;
    return (input, init) =>
      undiciFetch(input, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher,
      }) as unknown as Promise<Response>;
  };
}
