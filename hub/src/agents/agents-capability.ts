import type { Capability } from '../capability';
import { DEFAULT_EDGE_TIMINGS, EdgeSessions } from '../edge/edge-sessions';
import type { HubFoundation } from '../hub-foundation';
import type { HubInput } from '../hub-options';
import { type ListenAgents, startListenAgents } from '../listen/listen-agents';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { Fleet } from '../watchers/fleet';
import type { WatcherFactory } from '../watchers/watcher-factory';
import { AgentDirectory } from './agent-directory';
import type { AgentEvents } from './agent-events';
import type { AgentRegistry } from './agent-registry';
import type { InventoryExpectations } from './inventory-expectations';

export interface AgentParts {
  /** Every agent, of both transports: lists, routes and audits them alike. */
  agents: AgentDirectory;
  /** Undefined with DD_EXPERIMENTAL_EDGE=false: nothing of the edge transport runs. */
  edge: EdgeSessions | undefined;
}

export type AgentsCapabilityDeps = Pick<
  HubFoundation,
  'input' | 'config' | 'storage' | 'logger' | 'now' | 'publish' | 'metrics' | 'scheduler'
> & {
  containers: ContainerStore;
  audit: AuditStore;
  fleet: Fleet;
  agentRegistry: AgentRegistry;
  agentEvents: AgentEvents;
  expectations: InventoryExpectations;
  newWatcher: WatcherFactory;
};

/**
 * The agent directory and its two transports: the edge sessions (agents dial in) and the
 * listen-mode clients (the hub dials DD_AGENT_<NAME>_*). The directory stops first: links it
 * closes then are the hub going away, not agents leaving.
 */
export function agentsCapability(deps: AgentsCapabilityDeps): Capability<AgentParts> {
  const { input, config, logger, now, scheduler } = deps;
  const { agentRegistry, expectations } = deps;
  const edgeTimings = { ...DEFAULT_EDGE_TIMINGS, ...input.edge?.timings };
  const agents = new AgentDirectory({
    registry: agentRegistry,
    logger,
    now,
    containers: deps.containers,
    audit: deps.audit,
    publish: deps.publish,
    agentEvents: deps.agentEvents,
    fleet: deps.fleet,
    newWatcher: deps.newWatcher,
    expectations,
    requestTimeoutMs: edgeTimings.requestTimeoutMs,
    // Where edge sockets hibernate, no interval of the directory may keep the object awake.
    scheduledLastSeen: input.edgeSockets && scheduler,
  });
  agents.reserveListenNames(config.agents.map((agent) => agent.name));
  deps.metrics.bindSources({
    agents: () => agentRegistry.all().map(({ name }) => ({ name, connected: agents.isConnected(name) })),
  });
  // DD_EXPERIMENTAL_EDGE=false: no endpoint, no key routes (404), and nothing of the edge runs.
  const edge = config.edge.enabled
    ? new EdgeSessions({
        storage: deps.storage,
        logger,
        now,
        version: input.version,
        directory: agents,
        expectations,
        timings: edgeTimings,
        signInLimits: config.edge.signInLimits,
        setFrameLimit: input.setWebSocketFrameLimit,
        socketsHibernate: input.edgeSockets !== undefined,
        // Where sockets hibernate in the hub, its `edge.liveness` job checks them (EdgeSessions.startLiveness).
        scheduler,
        gatewayPort: input.edgeGateways,
        verifyEd25519: input.verifyEd25519,
        nextTurn: input.nextTurn,
        pauseReading: input.pauseWebSocketReading,
      })
    : undefined;
  // Listen-mode agents (DD_AGENT_<NAME>_*) are not the experimental edge: the directory serves them either way.
  const agentsEnabled = config.edge.enabled || config.agents.length > 0;
  let listenAgents: ListenAgents | undefined;
  return {
    parts: { agents, edge },
    async load() {
      if (agentsEnabled) await agents.load();
      await loadEdge(input, edge);
    },
    start() {
      if (config.agents.length > 0) {
        listenAgents = startListenAgents(
          { logger, now, directory: agents, expectations, registryFetch: input.registryFetch, timings: edgeTimings },
          config.agents,
        );
      }
    },
    async stop() {
      await agents.stop();
      edge?.stop();
      await listenAgents?.stop();
    },
  };
}

/** Stored edge keys, and the keys of DD_EDGE_AUTHORIZED_KEYS as the runtime read them. */
async function loadEdge(input: HubInput, edge: EdgeSessions | undefined): Promise<void> {
  const { config, logger } = input;
  const file = config.edge.authorizedKeysFile;
  if (file !== undefined && !config.edge.enabled)
    logger.warn('DD_EDGE_AUTHORIZED_KEYS is ignored: DD_EXPERIMENTAL_EDGE is false');
  else if (file !== undefined && input.edge?.authorizedKeys === undefined) {
    logger.warn(
      'DD_EDGE_AUTHORIZED_KEYS is ignored: this runtime reads no files; register keys with POST /api/v1/edge/keys',
    );
  }
  await edge?.load(input.edge?.authorizedKeys);
}
