import type { Logger } from '../../../shared/logging/logger';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { AgentDirectory } from '../agents/agent-directory';
import type { InventoryExpectations } from '../agents/inventory-expectations';
import type { ProviderConnection } from '../registries/registry-provider';
import { ListenAgentClient } from './listen-agent-client';
import type { ListenAgentConfig } from './listen-agent-config';

export interface ListenAgents {
  readonly clients: readonly ListenAgentClient[];
  stop(): Promise<void>;
}

const RECONNECT = { reconnectMinMs: 1_000, reconnectMaxMs: 60_000 };

/**
 * One client per DD_AGENT_<NAME>_* agent, started now. A private CA (CAFILE) needs the runtime's
 * fetch for it: the one registries use (Node binds the CA file); a runtime without one (Workers)
 * falls back to its own fetch with a warning.
 */
/** The listen-mode transport: the agents it reaches report to the directory like edge agents. */
export interface ListenAgentsDeps {
  logger: Logger;
  now: () => number;
  directory: AgentDirectory;
  expectations: InventoryExpectations;
  /** The runtime's fetch trusting a CA file (Node); absent where the runtime reads no files. */
  registryFetch: ((connection: ProviderConnection) => FetchLike) | undefined;
  timings: { silenceLimitMs: number; requestTimeoutMs: number };
}

export function startListenAgents(deps: ListenAgentsDeps, configs: readonly ListenAgentConfig[]): ListenAgents {
  const logger = deps.logger.child('edge.listen');
  const clients = configs.map((config) => {
    let fetchFor: FetchLike = (input, init) => fetch(input, init);
    if (config.caFile !== undefined) {
      const trusting = deps.registryFetch?.({ caFile: config.caFile, concurrency: 1 });
      if (trusting) fetchFor = trusting;
      else
        logger.warn(
          `DD_AGENT_${config.name.replaceAll('-', '_').toUpperCase()}_CAFILE is ignored: this runtime reads no files`,
          {
            agent: config.name,
          },
        );
    }
    const client = new ListenAgentClient({
      config,
      directory: deps.directory,
      expectations: deps.expectations,
      fetch: fetchFor,
      logger,
      now: deps.now,
      timings: { ...deps.timings, ...RECONNECT },
    });
    client.start();
    return client;
  });
  if (clients.length > 0)
    logger.debug(`connecting to ${clients.length} listen-mode agent(s): ${clients.map((c) => c.name).join(', ')}`);
  return {
    clients,
    async stop() {
      await Promise.all(clients.map((client) => client.stop()));
    },
  };
}
