import type { WSContext } from 'hono/ws';
import { EDGE_CLOSE, type HubFrame } from '../../../../shared/edge/protocol';
import { fromBase64Url } from '../../../../shared/edge/sign-in';
import type { Logger } from '../../../../shared/logging/logger';
import type { HibernatableEdgeSocket } from '../../hub-deps';
import {
  EdgeSession,
  type EdgeSessionOptions,
  type EdgeTimings,
  type HelloFrame,
  type InventoryFrame,
  type RelayedFrame,
  type SessionOwner,
  type SignInVerdict,
} from '../edge-session';
import type { EdgeConnection } from '../edge-sessions';
import { EdgeSocketSessions, type SessionAdopter } from '../edge-socket-sessions';
import type { CloseVerdict } from '../frame-reader';
import { createSignInCheck, type SignInKeys } from '../sign-in-check';
import { type SignInLimits, type SignInSlot, SignInSlots, type SlotRefusal } from '../sign-in-slots';
import {
  type ClaimAnswer,
  type GatewayBatch,
  type GatewayBatchAnswer,
  type GatewayItem,
  type KeyLookupAnswer,
  UNKNOWN_KEY_TTL_MS,
} from './gateway-messages';

/** How a gateway reaches the hub object. */
export interface GatewayHub {
  /** `gateway`: this gateway's name, so the hub tells it when an unknown key is registered. */
  key(keyId: string, gateway: string): Promise<KeyLookupAnswer>;
  claim(keyId: string, agentName: string): Promise<ClaimAnswer>;
  batch(batch: GatewayBatch): Promise<GatewayBatchAnswer>;
}

/** A socket of the gateway: the hibernatable socket, and the id its session has at the hub. */
export interface GatewaySocket extends HibernatableEdgeSocket {
  readonly sessionId: string | undefined;
}

export interface EdgeGatewayDeps {
  /** This gateway's object name (edge-gateway-<shard>): the hub addresses its sessions by it. */
  name: () => string;
  hub: GatewayHub;
  logger: Logger;
  now: () => number;
  version: string;
  timings: EdgeTimings;
  signInLimits: SignInLimits;
}

/** A key the hub confirmed is kept this long; one it does not have, briefly (a key may be registered any moment). */
const KNOWN_KEY_TTL_MS = 60_000;
/** The hub hears of every session's sign of life at most this often. */
export const CENSUS_PERIOD_MS = 60_000;
/** A batch stops growing past this many bytes of JSON (one snapshot part alone may be up to 4 MiB). */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

interface CachedKey {
  publicKey: Uint8Array | undefined;
  revoked: boolean;
  until: number;
}

/**
 * An edge gateway (docs/workers.md "Edge gateways"; issue 16 item 4): it holds agents' sockets,
 * runs their sessions (challenge, signature check, sign-in deadline, frame limits, heartbeats,
 * silence) with the same session code as the hub, and forwards only what the hub needs, in
 * order and in batches: attaches, inventory frames, command replies, detaches. The hub binds names
 * and keeps the agents' links; so sign-in and heartbeat load is spread over the gateways.
 */
export class EdgeGateway implements SessionOwner, SessionAdopter {
  /** Sockets the runtime hands over, rebuilt from their records after the gateway hibernated. */
  readonly sockets = new EdgeSocketSessions(this);
  private readonly sessions = new Map<string, EdgeSession>();
  private readonly ids = new WeakMap<EdgeSession, string>();
  private readonly slots = new WeakMap<EdgeSession, SignInSlot>();
  private readonly deadlines = new WeakMap<EdgeSession, ReturnType<typeof setTimeout>>();
  private readonly signingIn: SignInSlots;
  private readonly keys = new Map<string, CachedKey>();
  /** Claim answers of sign-ins in progress, read back after the sign-in check's verdict. */
  private readonly claims = new Map<string, ClaimAnswer>();
  private readonly checkSignIn = createSignInCheck(this.signInKeys());
  private readonly logger: Logger;
  private queue: { item: GatewayItem; session: string }[] = [];
  private flushing = false;
  private flushDone: Promise<void> = Promise.resolve();
  private censusDue = false;
  private lastCensusAt: number;

  constructor(private readonly deps: EdgeGatewayDeps) {
    this.logger = deps.logger.child('edge.gateway');
    this.signingIn = new SignInSlots(deps.signInLimits);
    this.lastCensusAt = deps.now();
  }

  /** A place among the connections not yet signed in, or the cap that refuses the upgrade (429). */
  admit(address: string | undefined): SignInSlot | SlotRefusal {
    return this.signingIn.take(address, this.deps.now());
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The sessions held, for tests and benchmarks. */
  list(): { session: string; agentName: string | undefined; keyId: string | undefined; lastFrameAt: number }[] {
    return [...this.sessions].map(([session, edge]) => ({
      session,
      agentName: edge.agentName,
      keyId: edge.keyId,
      lastFrameAt: edge.lastFrameAt,
    }));
  }

  // ---- the hub's commands -----------------------------------------------------------------------

  send(session: string, frames: readonly unknown[]): boolean {
    const edge = this.sessions.get(session);
    if (!edge?.isOpen) return false;
    // The hub's own frames, built by its code: relayed as they are.
    for (const frame of frames) edge.send(frame as HubFrame);
    return true;
  }

  close(session: string, code: number, reason: string): void {
    this.sessions.get(session)?.close(code, reason);
  }

  /** A key registered at the hub: a sign-in with it is no longer answered from the cache of unknown keys. */
  registered(keyId: string): void {
    this.keys.delete(keyId);
  }

  revoked(keyId: string): void {
    this.keys.delete(keyId);
    for (const edge of [...this.sessions.values()])
      if (edge.keyId === keyId) edge.close(EDGE_CLOSE.keyRevoked, 'key revoked');
  }

  /**
   * Sign-in deadlines and silence of every session, from the runtime's alarm; the runtime answers
   * the agents' pings. At most once a minute the hub also gets the census of the sessions held.
   */
  sweep(): Promise<void> {
    const now = this.deps.now();
    for (const edge of [...this.sessions.values()]) edge.tick(now);
    this.signingIn.expire(now - this.deps.timings.signInDeadlineMs);
    if (now - this.lastCensusAt >= CENSUS_PERIOD_MS) {
      this.censusDue = true;
      void this.flush();
    }
    return this.settled();
  }

  /**
   * Resolves once everything queued for the hub has been sent: the runtime's handlers await it, so
   * the object does not hibernate with a batch unsent.
   */
  async settled(): Promise<void> {
    // Frames enqueued by the handler that awaits this are flushed from a microtask: let it start.
    await Promise.resolve();
    while (this.flushing) await this.flushDone;
  }

  // ---- SessionAdopter (EdgeSocketSessions) -------------------------------------------------------

  adopt(
    ws: WSContext,
    connection: EdgeConnection,
    options: Partial<EdgeSessionOptions>,
    signInTimer: boolean,
  ): EdgeSession | undefined {
    const socket = ws.raw as GatewaySocket;
    const id = socket.sessionId;
    if (id === undefined) {
      connection.slot?.release();
      return undefined;
    }
    const edge = new EdgeSession({
      ws,
      protocol: connection.protocol,
      address: connection.address,
      hubVersion: this.deps.version,
      timings: this.deps.timings,
      owner: this,
      logger: this.logger,
      now: this.deps.now,
      ...options,
    });
    this.sessions.set(id, edge);
    this.ids.set(edge, id);
    if (connection.slot) this.slots.set(edge, connection.slot);
    if (signInTimer)
      this.deadlines.set(
        edge,
        setTimeout(() => this.sweep(), this.deps.timings.signInDeadlineMs + 100),
      );
    return edge;
  }

  /** A session resumed after the gateway hibernated: the hub still holds its link, nothing to tell. */
  relink(): boolean {
    return true;
  }

  // ---- SessionOwner ------------------------------------------------------------------------------

  async signIn(session: EdgeSession, hello: HelloFrame): Promise<SignInVerdict> {
    // Two sign-ins of the same key and name at once get the same claim answer: keyed by both.
    const claimKey = `${hello.keyId}\n${hello.agentName}`;
    let verdict: SignInVerdict;
    try {
      // In the cache before the check reads it: the check itself only reads what is at hand.
      await this.keyOf(hello.keyId);
      verdict = await this.checkSignIn(hello, session.challenge, session.protocol);
    } catch (error) {
      this.logger.warn('edge sign-in: the hub did not answer', { error: String(error) });
      return { ok: false, code: EDGE_CLOSE.goingAway, message: 'hub unavailable, reconnect' };
    }
    const claim = this.claims.get(claimKey);
    this.claims.delete(claimKey);
    // The hub's own words for a refused claim (a listen-mode name, a key revoked meanwhile).
    if (!verdict.ok && claim && !claim.ok && claim.code === verdict.code) verdict = claim;
    if (!verdict.ok && verdict.code !== EDGE_CLOSE.signInFailed)
      this.logger.warn(`edge sign-in of ${hello.agentName} refused (${verdict.code}): ${verdict.message}`, {
        address: session.address,
      });
    return verdict;
  }

  welcomed(session: EdgeSession, hello: HelloFrame): void {
    this.slots.get(session)?.release();
    clearTimeout(this.deadlines.get(session));
    this.enqueue(session, {
      type: 'attach',
      session: this.ids.get(session) as string,
      agentName: hello.agentName,
      keyId: hello.keyId,
      ...(session.address !== undefined && { address: session.address }),
      agent: hello.agent,
      watchers: hello.watchers,
    });
  }

  frame(session: EdgeSession, frame: InventoryFrame): CloseVerdict | undefined {
    this.enqueue(session, { type: 'frame', session: this.ids.get(session) as string, frame });
    return undefined;
  }

  relay(session: EdgeSession, frame: RelayedFrame): void {
    this.enqueue(session, { type: 'frame', session: this.ids.get(session) as string, frame });
  }

  closed(session: EdgeSession, code: number, signedIn: boolean): void {
    const id = this.ids.get(session);
    if (id !== undefined && this.sessions.get(id) === session) this.sessions.delete(id);
    this.slots.get(session)?.release();
    clearTimeout(this.deadlines.get(session));
    if (signedIn && id !== undefined) this.enqueue(session, { type: 'detach', session: id, code });
  }

  // ---- keys ----------------------------------------------------------------------------------------

  private async keyOf(keyId: string): Promise<CachedKey> {
    const now = this.deps.now();
    const cached = this.keys.get(keyId);
    if (cached && cached.until > now) return cached;
    const answer = await this.deps.hub.key(keyId, this.deps.name());
    const publicKey = answer.publicKey === null ? undefined : fromBase64Url(answer.publicKey);
    const key: CachedKey = {
      publicKey,
      revoked: answer.revoked,
      until: now + (publicKey ? KNOWN_KEY_TTL_MS : UNKNOWN_KEY_TTL_MS),
    };
    this.keys.set(keyId, key);
    return key;
  }

  /** The sign-in check's view of the keys: the cached public halves, and name claims made by the hub. */
  private signInKeys(): SignInKeys {
    return {
      publicKeyBytes: (id) => this.keys.get(id)?.publicKey,
      get: (id) => {
        const key = this.keys.get(id);
        return key?.publicKey ? { revokedAt: key.revoked ? 'revoked' : null } : undefined;
      },
      claimName: async (agentName, id) => {
        const answer = await this.deps.hub.claim(id, agentName);
        this.claims.set(`${id}\n${agentName}`, answer);
        if (answer.ok) return 'bound';
        // Revoked meanwhile: the check reads the key again after the claim, and the revocation wins.
        const key = this.keys.get(id);
        if (answer.code === EDGE_CLOSE.keyRevoked && key) key.revoked = true;
        return 'taken';
      },
    };
  }

  // ---- the batches to the hub ------------------------------------------------------------------------

  private enqueue(session: EdgeSession, item: GatewayItem): void {
    this.queue.push({ item, session: this.ids.get(session) as string });
    // After the handlers of the frames that arrived together: they go in one batch.
    if (!this.flushing) queueMicrotask(() => void this.flush());
  }

  /**
   * One batch at a time, in order. A batch the hub did not take closes its sessions (1001): their
   * agents reconnect and send their whole inventory again, so nothing is applied twice or lost.
   */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushDone;
    this.flushing = true;
    this.flushDone = this.drain();
    return this.flushDone;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0 || this.censusDue) {
        const { body, sessions } = this.nextBatch();
        let answer: GatewayBatchAnswer;
        try {
          answer = await this.deps.hub.batch(body);
        } catch (error) {
          this.logger.warn('the hub did not take a batch of edge frames; its sessions reconnect', {
            sessions: sessions.size,
            error: String(error),
          });
          for (const id of sessions) this.sessions.get(id)?.close(EDGE_CLOSE.goingAway, 'hub unavailable, reconnect');
          continue;
        }
        for (const { session, code, reason } of answer.closes) this.sessions.get(session)?.close(code, reason);
      }
    } finally {
      this.flushing = false;
    }
  }

  private nextBatch(): { body: GatewayBatch; sessions: Set<string> } {
    const items: GatewayItem[] = [];
    const sessions = new Set<string>();
    let bytes = 0;
    let taken = 0;
    for (const next of this.queue) {
      // A rough measure: the frames' JSON, once more; the first item always goes, however large.
      const size = next.item.type === 'frame' ? JSON.stringify(next.item.frame).length : 512;
      if (items.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
      items.push(next.item);
      sessions.add(next.session);
      bytes += size;
      taken += 1;
    }
    this.queue = taken === this.queue.length ? [] : this.queue.slice(taken);
    const body: GatewayBatch = { gateway: this.deps.name(), items };
    if (this.censusDue) {
      this.censusDue = false;
      this.lastCensusAt = this.deps.now();
      const census: Record<string, number> = {};
      for (const [id, edge] of this.sessions) if (edge.isOpen) census[id] = edge.lastFrameAt;
      body.census = census;
    }
    return { body, sessions };
  }
}
