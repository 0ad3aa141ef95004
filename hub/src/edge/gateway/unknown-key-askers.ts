import type { GatewayAudience } from './key-broadcast';

export interface UnknownKeyAskersOptions {
  /** How long a gateway keeps an "unknown key" answer, with a margin for transit. */
  ttlMs: number;
  /** Keys followed at most; past that, every registration is told to every gateway for a while. */
  maxKeys: number;
  now: () => number;
}

/**
 * Which gateways the hub answered "unknown" for a key lately (issue 33 item 14): a gateway keeps
 * that answer for a few seconds, so when the key is registered, those gateways, and only those,
 * are told to forget it. Registering a fleet's keys before its agents dial then costs the gateways
 * nothing; an agent that tried a moment too early signs in at its next attempt all the same.
 * Bounded: a flood of unknown keys (a scanner) turns the hub to telling every gateway until the
 * flood's answers have expired, rather than growing.
 */
export class UnknownKeyAskers {
  /** Each gateway with the end of its answer; in the order last asked, so the expired keys are at the front. */
  private readonly asked = new Map<string, { gateways: Map<string, number> | 'all'; until: number }>();
  private everyoneUntil = 0;

  constructor(private readonly options: UnknownKeyAskersOptions) {}

  /** A gateway (undefined: one that did not say which) was told the key is unknown. */
  note(keyId: string, gateway: string | undefined): void {
    const now = this.options.now();
    const until = now + this.options.ttlMs;
    const entry = this.asked.get(keyId);
    this.asked.delete(keyId);
    if (!entry && this.asked.size >= this.options.maxKeys) {
      this.expire(now);
      if (this.asked.size >= this.options.maxKeys) {
        this.everyoneUntil = until;
        return;
      }
    }
    let gateways: Map<string, number> | 'all' = 'all';
    if (gateway !== undefined && entry?.gateways !== 'all') {
      gateways = entry?.gateways ?? new Map();
      gateways.set(gateway, until);
    }
    this.asked.set(keyId, { gateways, until });
  }

  /** The gateways to tell that the key is registered now; it is forgotten here. */
  registered(keyId: string): GatewayAudience {
    const now = this.options.now();
    const entry = this.asked.get(keyId);
    this.asked.delete(keyId);
    if (now < this.everyoneUntil) return 'all';
    if (!entry || entry.until <= now) return [];
    if (entry.gateways === 'all') return 'all';
    return [...entry.gateways].filter(([, end]) => end > now).map(([gateway]) => gateway);
  }

  /** How many keys are followed (tests). */
  get size(): number {
    return this.asked.size;
  }

  private expire(now: number): void {
    for (const [keyId, entry] of this.asked) {
      if (entry.until > now) return;
      this.asked.delete(keyId);
    }
  }
}
