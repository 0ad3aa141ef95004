import { type AgentEvents, createAgentEvents } from '../agents/agent-events';
import { type AgentRegistry, createAgentRegistry } from '../agents/agent-registry';
import { createInventoryExpectations, type InventoryExpectations } from '../agents/inventory-expectations';
import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { ContainerStore } from '../store/container-store';
import { createFleet, type Fleet } from './fleet';
import { createMaturityLifts, type MaturityLifts } from './maturity-lifts';

export interface FleetParts {
  /** Every watcher, the hub's and its agents'. */
  fleet: Fleet;
  maturityLifts: MaturityLifts;
  /** What agents said of themselves. */
  agentRegistry: AgentRegistry;
  expectations: InventoryExpectations;
  agentEvents: AgentEvents;
}

/** The fleet and what agents tell about themselves, before the capabilities that read them. */
export function fleetCapability(
  deps: Pick<HubFoundation, 'storage' | 'storeLogger' | 'logger' | 'now' | 'scheduler'> & {
    containers: ContainerStore;
  },
): Capability<FleetParts> {
  const { logger } = deps;
  const fleet = createFleet();
  // A maturity-cleared when a gate lifts, not at the next cycle: the held containers are checked again then.
  const maturityLifts = createMaturityLifts({
    containers: deps.containers,
    fleet,
    schedule: deps.scheduler,
    logger: logger.child('watchers'),
    now: deps.now,
  });
  const agentEvents = createAgentEvents((error, event) =>
    logger.child('edge').warn('an agent event listener failed', { event: event.event, error: String(error) }),
  );
  return {
    parts: {
      fleet,
      maturityLifts,
      agentRegistry: createAgentRegistry(deps.storage, deps.storeLogger.child('edge')),
      expectations: createInventoryExpectations(),
      agentEvents,
    },
    start: () => maturityLifts.start(),
    stop: () => maturityLifts.stop(),
  };
}
