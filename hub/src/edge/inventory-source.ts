import type { AgentLink } from '../agents/agent-directory';

/**
 * What an agent's inventory frames arrive through: an edge session on a socket of the hub, or an
 * edge gateway's link (hub/src/edge/gateway/gateway-links.ts) whose socket is in another object.
 */
export interface InventorySource extends AgentLink {
  readonly agentName: string | undefined;
}
