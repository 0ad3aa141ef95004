/**
 * Start-up readiness gates (http-interface §4.14: /health answers 503 until they are met). Each
 * capability that must finish loading before the hub can serve registers a gate.
 */
export interface Readiness {
  add(gate: string): void;
  markReady(gate: string): void;
  markFailed(gate: string, reason: string): void;
  isReady(): boolean;
  /** Whether this one gate is met (a gate never added is not). */
  passed(gate: string): boolean;
  /** Gate name → 'pending', 'ready' or the failure reason. */
  snapshot(): Record<string, string>;
}

/** Met once every store has loaded what it holds; until then the API answers 503 (compose-http's holdUntilLoaded). */
export const STORE_GATE = 'store';

export function createReadiness(): Readiness {
  const gates = new Map<string, string>();
  return {
    add: (gate) => void gates.set(gate, 'pending'),
    markReady: (gate) => void gates.set(gate, 'ready'),
    markFailed: (gate, reason) => void gates.set(gate, `failed: ${reason}`),
    isReady: () => [...gates.values()].every((state) => state === 'ready'),
    passed: (gate) => gates.get(gate) === 'ready',
    snapshot: () => Object.fromEntries(gates),
  };
}
