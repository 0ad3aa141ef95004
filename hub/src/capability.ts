import type { ShutdownLimits } from '../../shared/update-engine';
import type { Recurrence } from './schedule/recurrence';

/** A job of the scheduler a capability declares; the hub defines it once every capability has started. */
export interface CapabilityJob {
  name: string;
  run: () => Promise<void>;
  recurrence: Recurrence;
}

/**
 * What a capability does over the hub's life (docs/architecture.md "The capability lifecycle").
 * The hub runs each phase over every capability in the order they were registered, except drain
 * and stop, which run in reverse: what was built last, and depends on the rest, ends first.
 */
export interface Lifecycle {
  /** Reads stored state; /health answers 503 until every capability has loaded. */
  load?(): Promise<void>;
  /** Begins the capability's own work once everything is loaded. Synchronous: nothing happens in between. */
  start?(): void;
  /** Its scheduler jobs, defined after every start and before the scheduler's wake-up is armed. */
  jobs?: readonly CapabilityJob[];
  /** Carries on with work a previous run left unfinished, once the scheduler runs (updates, rollouts). */
  resume?(): Promise<void> | void;
  /** The first step of a shutdown: takes no new work and lets running work settle within `limits`. */
  drain?(limits?: ShutdownLimits): Promise<void> | void;
  /** Ends the capability for good, after every drain. */
  stop?(): Promise<void> | void;
}

/** A capability: the parts it adds to the hub (what later capabilities and the HTTP surface use), and its lifecycle. */
export interface Capability<Parts extends object> extends Lifecycle {
  parts: Parts;
}

/**
 * The hub's capabilities, registered once each in dependency order. A capability's factory is
 * given the parts registered before it, so the compiler refuses one that uses a capability
 * registered after it: that is a back-edge, which the root wires with a named `lateBinding`.
 */
export class CapabilityRegistry<Parts extends object> {
  readonly #lifecycles: Lifecycle[];

  constructor(
    readonly parts: Parts,
    lifecycles: Lifecycle[] = [],
  ) {
    this.#lifecycles = lifecycles;
  }

  add<Added extends object>(make: (parts: Parts) => Capability<Added>): CapabilityRegistry<Parts & Added> {
    const { parts, ...lifecycle } = make(this.parts);
    return new CapabilityRegistry({ ...this.parts, ...parts }, [...this.#lifecycles, lifecycle]);
  }

  /** The lifecycles in registration order. */
  get lifecycles(): readonly Lifecycle[] {
    return this.#lifecycles;
  }
}

/** A function bound after its caller is built: the back-edges of the hub's graph (docs/architecture.md). */
export interface LateBinding<A extends unknown[], R> {
  call: (...args: A) => R;
  bind: (target: (...args: A) => R) => void;
}

export function lateBinding<A extends unknown[], R>(name: string): LateBinding<A, R> {
  let target: ((...args: A) => R) | undefined;
  return {
    call: (...args) => {
      if (!target) throw new Error(`${name} was called before the hub was composed`);
      return target(...args);
    },
    bind: (next) => {
      target = next;
    },
  };
}

/** How often housekeeping jobs run: the audit trail pruned (besides every append), expired sessions deleted. */
export const HOUSEKEEPING_EVERY_MS = 3_600_000;
