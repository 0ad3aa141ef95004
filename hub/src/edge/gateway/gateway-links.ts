import type { Storage } from 'unstorage';
import * as v from 'valibot';
import { EDGE_CLOSE, type EdgeRequest, type HubFrame } from '../../../../shared/edge/protocol';
import { toBase64Url } from '../../../../shared/edge/sign-in';
import type { Logger } from '../../../../shared/logging/logger';
import type { AgentDirectory } from '../../agents/agent-directory';
import { type EdgeRequestOptions, PendingRequests } from '../../agents/edge-requests';
import type { EdgeGatewayPort } from '../../hub-deps';
import type { EdgeKeyStore } from '../edge-key-store';
import type { InventoryFrame, RelayedFrame } from '../edge-session';
import type { CloseVerdict } from '../frame-reader';
import type { InventorySource } from '../inventory-source';
import {
  type ClaimAnswer,
  type GatewayBatch,
  type GatewayBatchAnswer,
  type GatewayItem,
  type KeyLookupAnswer,
  UNKNOWN_KEY_TTL_MS,
} from './gateway-messages';
import { UnknownKeyAskers } from './unknown-key-askers';

/** What the hub keeps of a link whose socket is in a gateway, so a re-created hub object links it again. */
const RouteSchema = v.object({
  gateway: v.string(),
  session: v.string(),
  keyId: v.string(),
  address: v.optional(v.string()),
});
type Route = v.InferOutput<typeof RouteSchema>;
const ROUTE_PREFIX = 'edge-gateway-route:';
/** A gateway's "unknown key" answer is followed a little longer than it keeps it: the answer travels. */
const UNKNOWN_KEY_MARGIN_MS = 2_000;
/** Unknown keys followed at once; a flood past it has registrations told to every gateway for a while. */
const MAX_UNKNOWN_KEYS_FOLLOWED = 10_000;

/** The part of EdgeSessions a gateway link needs: the inventory, as for a socket of the hub's own. */
export interface GatewayInventory {
  beginInventory(source: InventorySource): void;
  inventoryFrame(source: InventorySource, frame: InventoryFrame): CloseVerdict | undefined;
  relink(source: InventorySource, agentName: string, keyId: string, address: string | undefined): boolean;
}

export interface GatewayLinksDeps {
  port: EdgeGatewayPort;
  keys: EdgeKeyStore;
  directory: AgentDirectory;
  inventory: GatewayInventory;
  storage: Storage;
  logger: Logger;
  now: () => number;
}

/**
 * An agent whose socket an edge gateway holds: the hub's commands go to the gateway, the agent's
 * replies come back in the gateway's batches. To the directory it is a link like any other.
 */
class GatewayLink implements InventorySource {
  lastFrameAt: number;
  readonly requests: PendingRequests;
  private outbox: HubFrame[] = [];
  private sending = false;
  private gone = false;

  constructor(
    readonly route: Route,
    readonly agentName: string,
    private readonly port: EdgeGatewayPort,
    now: number,
    private readonly lost: (link: GatewayLink) => void,
  ) {
    this.lastFrameAt = now;
    this.requests = new PendingRequests((frame) => this.send(frame), 'edge agent');
  }

  request(request: EdgeRequest, options?: EdgeRequestOptions): Promise<unknown> {
    return this.requests.request(request, options);
  }

  close(code: number, reason: string): void {
    this.requests.failAll(`the session closed (${code})`);
    // The gateway's detach follows, as for a close by the agent.
    void this.port.close(this.route.gateway, this.route.session, code, reason).catch(() => undefined);
  }

  /** The link ended (detached, or its gateway lost it): pending commands fail at once. */
  ended(code: number): void {
    this.gone = true;
    this.requests.failAll(`the session closed (${code})`);
  }

  /**
   * In order, and the frames that queue while one send is out go together in the next: a cancel
   * must not overtake the request it cancels.
   */
  private send(frame: HubFrame): void {
    if (this.gone) return;
    this.outbox.push(frame);
    if (!this.sending) void this.drain();
  }

  private async drain(): Promise<void> {
    this.sending = true;
    while (this.outbox.length > 0 && !this.gone) {
      const frames = this.outbox;
      this.outbox = [];
      const delivered = await this.port.send(this.route.gateway, this.route.session, frames).catch(() => false);
      if (!delivered) this.lost(this);
    }
    this.sending = false;
  }
}

const sessionKey = (gateway: string, session: string) => `${gateway}\n${session}`;

/**
 * The hub's side of its edge gateways (docs/workers.md "Edge gateways"; issue 16 item 4): gateways
 * hold the agents' sockets, verify sign-ins and answer heartbeats; the hub binds names, keeps one
 * link per agent, and applies the inventories the gateways forward in batches.
 */
export class GatewayLinks {
  private readonly links = new Map<string, GatewayLink>();
  private readonly logger: Logger;
  private readonly unknownAskers: UnknownKeyAskers;

  constructor(private readonly deps: GatewayLinksDeps) {
    this.logger = deps.logger.child('edge.gateway');
    this.unknownAskers = new UnknownKeyAskers({
      ttlMs: UNKNOWN_KEY_TTL_MS + UNKNOWN_KEY_MARGIN_MS,
      maxKeys: MAX_UNKNOWN_KEYS_FOLLOWED,
      now: deps.now,
    });
  }

  /** Links stored by a previous hub object: linked again quietly, since their sockets are open in the gateways. */
  async load(): Promise<void> {
    const { storage } = this.deps;
    for (const key of await storage.getKeys(ROUTE_PREFIX)) {
      const parsed = v.safeParse(RouteSchema, await storage.getItem(key));
      const agentName = key.slice(ROUTE_PREFIX.length);
      if (!parsed.success) {
        await storage.removeItem(key);
        continue;
      }
      const link = this.newLink(parsed.output, agentName);
      // Relinked as after a hibernation: the agent's inventory is asked again at its first delta or due cycle.
      if (!this.deps.inventory.relink(link, agentName, parsed.output.keyId, parsed.output.address)) this.forget(link);
    }
  }

  /** How many agents are linked through gateways. */
  get size(): number {
    return this.links.size;
  }

  /** A key's public half for a gateway's sign-in check; a gateway told "unknown" is told again once it is registered. */
  keyOf(keyId: string, gateway?: string): KeyLookupAnswer {
    const bytes = this.deps.keys.publicKeyBytes(keyId);
    if (!bytes) this.unknownAskers.note(keyId, gateway);
    return {
      publicKey: bytes ? toBase64Url(bytes) : null,
      revoked: this.deps.keys.get(keyId)?.revokedAt != null,
    };
  }

  /** The name binding of a sign-in the gateway verified (the gateway checked the signature first). */
  async claim(keyId: string, agentName: string): Promise<ClaimAnswer> {
    const { keys, directory } = this.deps;
    const key = keys.get(keyId);
    if (!key)
      return { ok: false, code: EDGE_CLOSE.signInFailed, message: 'sign-in failed: unknown key or bad signature' };
    if (key.revokedAt !== null) return { ok: false, code: EDGE_CLOSE.keyRevoked, message: 'this key was revoked' };
    if (directory.isListenName(agentName))
      return {
        ok: false,
        code: EDGE_CLOSE.nameTaken,
        message: `${agentName} is a listen-mode agent of this hub (DD_AGENT_*)`,
      };
    if ((await keys.claimName(agentName, keyId)) === 'taken')
      return { ok: false, code: EDGE_CLOSE.nameTaken, message: `the name ${agentName} is bound to another key` };
    if (keys.get(keyId)?.revokedAt !== null)
      return { ok: false, code: EDGE_CLOSE.keyRevoked, message: 'this key was revoked' };
    return { ok: true };
  }

  /** One gateway's batch, applied in order; the answer names the sessions the gateway must close. */
  async batch(batch: GatewayBatch): Promise<GatewayBatchAnswer> {
    const closes: GatewayBatchAnswer['closes'] = [];
    const refuse = (session: string, code: number, reason: string) => {
      if (!closes.some((close) => close.session === session)) closes.push({ session, code, reason });
    };
    const writes: Promise<unknown>[] = [];
    for (const item of batch.items) this.apply(batch.gateway, item, refuse, writes);
    if (batch.census) this.takeCensus(batch.gateway, batch.census, writes);
    await Promise.all(writes);
    return { closes };
  }

  /** A registered key: the gateways that may remember it as unknown (asked lately) forget that. */
  async registered(keyId: string): Promise<void> {
    await this.deps.port.registered(keyId, this.unknownAskers.registered(keyId));
  }

  /** A revoked key: its links close with 4002, and every gateway forgets the key. */
  async revoked(keyId: string): Promise<void> {
    for (const link of [...this.links.values()])
      if (link.route.keyId === keyId) link.close(EDGE_CLOSE.keyRevoked, 'key revoked');
    await this.deps.port.revoked(keyId);
  }

  private apply(
    gateway: string,
    item: GatewayItem,
    refuse: (session: string, code: number, reason: string) => void,
    writes: Promise<unknown>[],
  ): void {
    const now = this.deps.now();
    if (item.type === 'attach') {
      const route: Route = {
        gateway,
        session: item.session,
        keyId: item.keyId,
        ...(item.address !== undefined && { address: item.address }),
      };
      if (this.deps.keys.get(item.keyId)?.revokedAt !== null) {
        refuse(item.session, EDGE_CLOSE.keyRevoked, 'key revoked');
        return;
      }
      const link = this.newLink(route, item.agentName);
      const runtime = this.deps.directory.connected(item.agentName, link, {
        keyId: item.keyId,
        info: item.agent,
        watchers: item.watchers,
        ...(item.address !== undefined && { address: item.address }),
      });
      if (!runtime) {
        this.forget(link);
        refuse(item.session, EDGE_CLOSE.goingAway, 'hub shutting down');
        return;
      }
      this.deps.inventory.beginInventory(link);
      writes.push(this.deps.storage.setItem(`${ROUTE_PREFIX}${item.agentName}`, route));
      return;
    }
    const link = this.links.get(sessionKey(gateway, item.session));
    if (item.type === 'detach') {
      if (link) this.detach(link, item.code, writes);
      return;
    }
    if (!link) {
      // The hub lost the link (a newer session superseded it, or the attach was refused): the agent reconnects.
      refuse(item.session, EDGE_CLOSE.goingAway, 'session lost, reconnect');
      return;
    }
    link.lastFrameAt = now;
    const frame = item.frame as InventoryFrame | RelayedFrame;
    if (frame.type === 'reply') link.requests.settle(frame);
    else if (frame.type === 'stream') link.requests.stream(frame);
    else {
      const verdict =
        frame.type === 'chunk' ? link.requests.chunk(frame) : this.deps.inventory.inventoryFrame(link, frame);
      if (verdict) {
        refuse(item.session, verdict.code, verdict.reason);
        this.detach(link, verdict.code, writes);
      }
    }
  }

  /** Links of this gateway that it no longer holds are gone; the others' lastSeen is refreshed. */
  private takeCensus(gateway: string, census: Record<string, number>, writes: Promise<unknown>[]): void {
    for (const link of [...this.links.values()]) {
      if (link.route.gateway !== gateway) continue;
      const seen = census[link.route.session];
      if (seen === undefined) this.detach(link, 1006, writes);
      else link.lastFrameAt = Math.max(link.lastFrameAt, seen);
    }
  }

  private detach(link: GatewayLink, code: number, writes: Promise<unknown>[]): void {
    if (!this.forget(link)) return;
    link.ended(code);
    this.deps.directory.disconnected(link.agentName, link, {
      status: String(code),
      why: `close code ${code}`,
      brief: String(code),
    });
    // Only this session's route: a newer session of the same agent has written its own.
    writes.push(
      (async () => {
        const key = `${ROUTE_PREFIX}${link.agentName}`;
        const stored = v.safeParse(RouteSchema, await this.deps.storage.getItem(key));
        if (
          stored.success &&
          stored.output.session === link.route.session &&
          stored.output.gateway === link.route.gateway
        )
          await this.deps.storage.removeItem(key);
      })(),
    );
  }

  private newLink(route: Route, agentName: string): GatewayLink {
    const link = new GatewayLink(route, agentName, this.deps.port, this.deps.now(), (lost) => {
      this.logger.debug('a gateway no longer holds an agent session', { agent: lost.agentName });
      const writes: Promise<unknown>[] = [];
      this.detach(lost, 1006, writes);
      void Promise.all(writes).catch(() => undefined);
    });
    this.links.set(sessionKey(route.gateway, route.session), link);
    return link;
  }

  private forget(link: GatewayLink): boolean {
    const key = sessionKey(link.route.gateway, link.route.session);
    if (this.links.get(key) !== link) return false;
    this.links.delete(key);
    return true;
  }
}
