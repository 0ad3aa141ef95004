/**
 * Start-up readiness gates (http-interface §4.14: /health answers 503 until they are met). Each
 * capability that must finish loading before the hub can serve registers a gate.
 */
export interface Readiness {
  add(gate: string): void;
  markReady(gate: string): void;
  markFailed(gate: string, reason: string): void;
  isReady(): boolean;
  /** Gate name → 'pending', 'ready' or the failure reason. */
  snapshot(): Record<string, string>;
}

export function createReadiness(): Readiness {
  const gates = new Map<string, string>();
  return {
    add: (gate) => void gates.set(gate, 'pending'),
    markReady: (gate) => void gates.set(gate, 'ready'),
    markFailed: (gate, reason) => void gates.set(gate, `failed: ${reason}`),
    isReady: () => [...gates.values()].every((state) => state === 'ready'),
    snapshot: () => Object.fromEntries(gates),
  };
}
