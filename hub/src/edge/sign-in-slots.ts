/**
 * Edge connections not yet signed in, counted per address and in total (docs/edge-protocol.md
 * "Limits before sign-in"). Anyone who reaches the port can open them, and each costs the hub a
 * socket and up to a 32 KiB frame buffer; the caps bound that, and the per-address one keeps a
 * single address from taking the whole total. Signed-in agents are not counted.
 */
export interface SignInLimits {
  /** At once from one address (DD_EDGE_SIGNIN_MAX_PER_ADDRESS, 16). */
  perAddress: number;
  /** At once from everyone (DD_EDGE_SIGNIN_MAX, 1,024). */
  total: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAddress: 16, total: 1_024 };

/** A connection's place in the count, from its upgrade until it signs in, closes or passes its deadline. */
export interface SignInSlot {
  /** Idempotent: the first of sign-in, close and deadline frees it. */
  release(): void;
}

export type SlotRefusal = { refused: 'address' | 'total'; limit: number };

// A runtime that cannot name the caller puts every such caller in one bucket (as the rate limits do).
const UNKNOWN_ADDRESS = 'unknown';

/**
 * A slot taken. A class, not an object with a closure: a signed-in agent's connection keeps its
 * (released) slot as long as its socket, 10,000 of them for an edge fleet (issue 30 item 3).
 */
class Held implements SignInSlot {
  constructor(
    readonly key: string,
    readonly takenAt: number,
    private readonly free: (slot: Held) => void,
  ) {}

  release(): void {
    this.free(this);
  }
}

export class SignInSlots {
  private readonly byAddress = new Map<string, number>();
  private readonly held = new Set<Held>();
  private readonly freeSlot = (slot: Held) => this.free(slot);

  constructor(private readonly limits: SignInLimits) {}

  /** Connections counted now (for tests and metrics). */
  get size(): number {
    return this.held.size;
  }

  /** A slot for an upgrade from this address, or which cap refuses it. */
  take(address: string | undefined, now: number): SignInSlot | SlotRefusal {
    const key = address ?? UNKNOWN_ADDRESS;
    const fromAddress = this.byAddress.get(key) ?? 0;
    if (fromAddress >= this.limits.perAddress) return { refused: 'address', limit: this.limits.perAddress };
    if (this.held.size >= this.limits.total) return { refused: 'total', limit: this.limits.total };
    this.byAddress.set(key, fromAddress + 1);
    const slot = new Held(key, now, this.freeSlot);
    this.held.add(slot);
    return slot;
  }

  /**
   * Frees the slots taken before `before`: the sign-in deadline passed, so the session is closed
   * with 4005 (or its upgrade never completed, and no close will ever come).
   */
  expire(before: number): void {
    // At most `total` slots, once per tick: a full scan is cheap, and needs no ordered clock.
    for (const slot of this.held) if (slot.takenAt < before) this.free(slot);
  }

  private free(slot: Held): void {
    if (!this.held.delete(slot)) return;
    const left = (this.byAddress.get(slot.key) ?? 1) - 1;
    if (left > 0) this.byAddress.set(slot.key, left);
    else this.byAddress.delete(slot.key);
  }
}
