/** What the hub must remember between sending a browser to the provider and its return. */
export interface PendingFlow {
  providerId: string;
  nonce: string;
  codeVerifier: string;
  createdAt: number;
}

/** A sign-in must come back within this long. */
export const PENDING_FLOW_TTL_MS = 10 * 60_000;
/** Flows kept at most; beyond it the oldest is dropped, so unfinished redirects cannot fill memory. */
export const MAX_PENDING_FLOWS = 10_000;

export interface PendingFlows {
  add(state: string, flow: Omit<PendingFlow, 'createdAt'>): void;
  /** The flow for a state, removed as it is read: a state works once, and only before it expires. */
  take(state: string): PendingFlow | undefined;
}

/**
 * Pending authorization requests, in memory. Memory rather than hub storage: taking a flow is then
 * atomic (a replayed callback racing the first one finds nothing), unauthenticated redirects cost
 * no storage write, and a restart merely asks the user to sign in again.
 */
export function createPendingFlows(now: () => number): PendingFlows {
  // Insertion order is creation order, so the first entries are the oldest.
  const flows = new Map<string, PendingFlow>();

  const sweep = (at: number) => {
    for (const [state, flow] of flows) {
      if (at - flow.createdAt < PENDING_FLOW_TTL_MS && flows.size < MAX_PENDING_FLOWS) break;
      flows.delete(state);
    }
  };

  return {
    add(state, flow) {
      const at = now();
      sweep(at);
      flows.set(state, { ...flow, createdAt: at });
    },
    take(state) {
      const flow = flows.get(state);
      if (!flow) return undefined;
      flows.delete(state);
      return now() - flow.createdAt < PENDING_FLOW_TTL_MS ? flow : undefined;
    },
  };
}
