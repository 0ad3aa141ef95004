import type { WSContext, WSEvents } from 'hono/ws';
import type { Storage } from 'unstorage';
import {
  EDGE_CLOSE,
  EDGE_HEARTBEAT_MS,
  EDGE_SIGN_IN_DEADLINE_MS,
  EDGE_SILENCE_LIMIT_MS,
} from '../../../shared/edge/protocol';
import type { Ed25519Verify } from '../../../shared/edge/sign-in';
import type { Logger } from '../../../shared/logging/logger';
import type { EdgeKey } from '../../../shared/schemas/edge-key';
import type { AgentDirectory } from '../agents/agent-directory';
import type { InventoryExpectations } from '../agents/inventory-expectations';
import type { EdgeGatewayPort } from '../hub-deps';
import { repeatWork } from '../schedule/periodic-work';
import type { Scheduler } from '../schedule/scheduler';
import type { AuthorizedKey } from './authorized-keys';
import { createEdgeKeyStore, type EdgeKeyStore } from './edge-key-store';
import {
  EdgeSession,
  type EdgeSessionOptions,
  type EdgeTimings,
  type HelloFrame,
  type InventoryFrame,
  type SessionOwner,
  type SignInVerdict,
} from './edge-session';
import { EdgeSocketEvents, type SocketOpener } from './edge-socket-events';
import { EdgeSocketSessions } from './edge-socket-sessions';
import { type FrameLane, FramePacer } from './frame-pacer';
import type { CloseVerdict } from './frame-reader';
import { GatewayLinks } from './gateway/gateway-links';
import { HubStalls } from './hub-stalls';
import type { InventorySource } from './inventory-source';
import { createSignInCheck } from './sign-in-check';
import { type SignInLimits, type SignInSlot, SignInSlots, type SlotRefusal } from './sign-in-slots';
import { SnapshotAssembler } from './snapshot-assembler';

export const EDGE_REQUEST_TIMEOUT_MS = 30_000;

export const DEFAULT_EDGE_TIMINGS: EdgeTimings = {
  heartbeatMs: EDGE_HEARTBEAT_MS,
  silenceLimitMs: EDGE_SILENCE_LIMIT_MS,
  signInDeadlineMs: EDGE_SIGN_IN_DEADLINE_MS,
  requestTimeoutMs: EDGE_REQUEST_TIMEOUT_MS,
};

export interface EdgeConnection {
  protocol: string;
  address: string | undefined;
  /** Its place among the connections not yet signed in (admit()), freed at sign-in, close or the sign-in deadline. */
  slot?: SignInSlot | undefined;
}

/** The edge transport: keys in storage, and the agents it signs in go to the directory. */
export interface EdgeSessionsDeps {
  storage: Storage;
  logger: Logger;
  now: () => number;
  /** The hub's version, told to agents in the welcome. */
  version: string;
  directory: AgentDirectory;
  expectations: InventoryExpectations;
  timings: EdgeTimings;
  /** Caps on connections not yet signed in, per address and in total. */
  signInLimits: SignInLimits;
  /** Raises a signed-in agent's frame cap in the runtime's parser (Node); absent where frames arrive whole. */
  setFrameLimit: ((ws: WSContext, maxBytes: number) => void) | undefined;
  /**
   * The runtime hibernates sockets (Workers): no ticker of its own, which would keep the object
   * awake; the scheduled `edge.liveness` job calls sweep() instead, and the runtime answers
   * the agents' pings (docs/workers.md "Edge sockets").
   */
  socketsHibernate?: boolean | undefined;
  /** The hub's scheduler, which runs `edge.liveness` where sockets hibernate in the hub (not in gateways). */
  scheduler?: Pick<Scheduler, 'job'> | undefined;
  /**
   * Where agents' sockets terminate in edge gateways (Workers with DD_EDGE_GATEWAY_SHARDS;
   * docs/workers.md "Edge gateways"): how the hub reaches them. Their links are `gateways`.
   */
  gatewayPort?: EdgeGatewayPort | undefined;
  /** The runtime's native Ed25519 verification (Node); @noble/ed25519 where absent. */
  verifyEd25519?: Ed25519Verify | undefined;
  /**
   * Runs work on the loop's next turn, after pending I/O (Node: setImmediate). Given, the
   * sessions' frames are handled in slices through a FramePacer; absent, each as it arrives.
   */
  nextTurn?: ((work: () => void) => void) | undefined;
  /** Stops and restarts reading a session's socket while its frames wait for the pacer (Node). */
  pauseReading?: ((ws: WSContext, paused: boolean) => void) | undefined;
}

/** One slice of frame work at most this long before the loop turns (FramePacer). */
const FRAME_SLICE_MS = 10;

/**
 * The hub's side of edge/1.0: the key registry and every WebSocket session from upgrade to close.
 * A signed-in session becomes the agent's link in the directory; its inventory frames are applied
 * to the agent's watchers there.
 */
export class EdgeSessions implements SessionOwner, SocketOpener<EdgeConnection> {
  readonly keys: EdgeKeyStore;
  readonly timings: EdgeTimings;
  /** The sockets a hibernating runtime holds (Workers), routed here by the runtime's handlers. */
  readonly sockets = new EdgeSocketSessions(this);
  /** Agents whose sockets edge gateways hold; undefined where the runtime has no gateways. */
  readonly gateways: GatewayLinks | undefined;
  private readonly sessions = new Set<EdgeSession>();
  private readonly assemblers = new WeakMap<InventorySource, SnapshotAssembler>();
  private readonly signingIn: SignInSlots;
  private readonly slots = new WeakMap<EdgeSession, SignInSlot>();
  /** Sign-in deadline timers of hibernatable sockets, cleared at the welcome so the object may sleep. */
  private readonly deadlines = new WeakMap<EdgeSession, ReturnType<typeof setTimeout>>();
  private readonly checkSignIn;
  private readonly logger;
  private stopTicking: (() => void) | undefined;
  /** The hub loop's stalls so far, where the ticker measures them (HubStalls). */
  private stalledMs: (() => number) | undefined;
  /**
   * Hands a session's frame work to the pacer: one function for every session rather than one
   * each (issue 30 item 3); undefined where frames are handled as they come.
   */
  private readonly pace: ((work: () => void, lane: FrameLane) => void) | undefined;
  private stopping = false;
  /** Keys and agents loaded: before that every sign-in would fail, so upgrades are refused (503). */
  ready = false;

  constructor(private readonly deps: EdgeSessionsDeps) {
    this.timings = deps.timings;
    this.logger = deps.logger.child('edge');
    this.keys = createEdgeKeyStore(deps.storage, deps.now, deps.logger.child('store.edge'));
    this.checkSignIn = createSignInCheck(this.keys, deps.verifyEd25519);
    this.signingIn = new SignInSlots(deps.signInLimits);
    const { nextTurn } = deps;
    const pacer =
      nextTurn && !deps.socketsHibernate
        ? new FramePacer({ budgetMs: FRAME_SLICE_MS, now: () => performance.now(), nextTurn })
        : undefined;
    this.pace = pacer && ((work, lane) => pacer.run(work, lane));
    this.gateways =
      deps.gatewayPort &&
      new GatewayLinks({
        port: deps.gatewayPort,
        keys: this.keys,
        directory: deps.directory,
        inventory: this,
        storage: deps.storage,
        logger: deps.logger,
        now: deps.now,
      });
  }

  /** Stored keys and bindings; the authorized-keys file's keys registered if new. */
  async load(authorized: readonly AuthorizedKey[] = []): Promise<void> {
    await this.keys.load();
    const added = await this.keys.registerMany(authorized);
    if (authorized.length > 0)
      this.logger.debug(`DD_EDGE_AUTHORIZED_KEYS: ${added} new of ${authorized.length} keys registered`);
    this.startLiveness();
    await this.gateways?.load();
    this.ready = true;
  }

  /**
   * Sign-in deadlines, pings and silence checked on a ticker, which also measures the loop's stalls.
   * Where sockets hibernate, silence is checked once per silence limit by the scheduler instead (a
   * silent agent goes within two limits rather than decisions §6's one: fewer wakes) and sign-in
   * deadlines have timers; where gateways hold the sockets they check them, and the hub is not woken.
   */
  private startLiveness(): void {
    const hibernate = this.deps.socketsHibernate === true;
    const scheduler = hibernate && !this.deps.gatewayPort ? this.deps.scheduler : undefined;
    if (hibernate && !scheduler) return;
    const tickMs = Math.max(
      10,
      Math.min(1000, Math.floor(Math.min(this.timings.heartbeatMs, this.timings.signInDeadlineMs) / 4)),
    );
    const stalls = hibernate ? undefined : new HubStalls(tickMs);
    if (stalls) this.stalledMs = () => stalls.stalledMs;
    this.stopTicking = repeatWork(
      () => {
        stalls?.tick(performance.now());
        this.sweep();
      },
      { scheduler, job: 'edge.liveness', everyMs: this.timings.silenceLimitMs, intervalMs: tickMs },
    );
  }

  stop(): void {
    this.stopping = true;
    this.ready = false;
    this.stopTicking?.();
    for (const session of [...this.sessions]) session.close(EDGE_CLOSE.goingAway, 'hub shutting down');
  }

  /**
   * A place for an upgrade among the connections not yet signed in, or the cap that refuses it
   * (the endpoint answers 429). Taken before the upgrade, so a burst of upgrades cannot all pass
   * the check before any of them is counted.
   */
  admit(address: string | undefined): SignInSlot | SlotRefusal {
    return this.signingIn.take(address, this.deps.now());
  }

  /** Connections counted as not yet signed in (tests). */
  get signingInCount(): number {
    return this.signingIn.size;
  }

  /** The socket events of one accepted upgrade. */
  connect(connection: EdgeConnection): WSEvents {
    return new EdgeSocketEvents(this, connection);
  }

  /** The socket of connect()'s upgrade opened: its session starts with the challenge; none while the hub stops. */
  opened(ws: WSContext, connection: EdgeConnection): EdgeSession | undefined {
    if (this.stopping) {
      connection.slot?.release();
      ws.close(EDGE_CLOSE.goingAway, 'hub shutting down');
      return undefined;
    }
    const session = this.newSession(ws, connection, { setFrameLimit: this.deps.setFrameLimit });
    if (connection.slot) this.slots.set(session, connection.slot);
    session.open();
    return session;
  }

  // ---- hibernatable sockets (Workers; docs/workers.md "Edge sockets") ---------------------------

  /**
   * A session on a socket the runtime holds (EdgeSocketSessions), registered like connect()'s;
   * undefined while the hub stops. `signInTimer`: its sign-in deadline has a timer of its own,
   * cleared at the welcome or the close, since there is no ticker where sockets hibernate.
   */
  adopt(
    ws: WSContext,
    connection: EdgeConnection,
    options: Partial<EdgeSessionOptions>,
    signInTimer: boolean,
  ): EdgeSession | undefined {
    if (this.stopping) {
      connection.slot?.release();
      return undefined;
    }
    const session = this.newSession(ws, connection, options);
    if (connection.slot) this.slots.set(session, connection.slot);
    if (signInTimer)
      this.deadlines.set(
        session,
        setTimeout(() => this.sweep(), this.timings.signInDeadlineMs + 100),
      );
    return session;
  }

  /**
   * A resumed session's agent linked again, quietly (`resumed`: no event, no write), as the same
   * session it was; false when that cannot be (a key revoked meanwhile: closed with 4002; the agent
   * unknown or the hub stopping: 1001, and the agent reconnects).
   */
  relink(session: InventorySource, agentName: string, keyId: string, address: string | undefined): boolean {
    if (this.keys.get(keyId)?.revokedAt !== null) {
      session.close(EDGE_CLOSE.keyRevoked, 'key revoked');
      return false;
    }
    const details = this.deps.directory.agentDetails(agentName);
    const parts = details && {
      keyId,
      info: details.info,
      watchers: [...details.watchers],
      ...(address !== undefined && { address }),
    };
    const runtime = parts && this.deps.directory.connected(agentName, session, parts, { resumed: true });
    if (!runtime) {
      session.close(EDGE_CLOSE.goingAway, 'session lost, reconnect');
      return false;
    }
    this.beginInventory(session);
    runtime.resumed((watcher) => this.requestFullSync(session, watcher));
    return true;
  }

  /** A linked agent's inventory frames may come from here on: snapshot parts are assembled per link. */
  beginInventory(source: InventorySource): void {
    this.assemblers.set(source, new SnapshotAssembler());
  }

  async registerKey(key: AuthorizedKey): Promise<EdgeKey | 'exists'> {
    const registered = await this.keys.register(key);
    if (registered !== 'exists') await this.gateways?.registered(registered.keyId);
    return registered;
  }

  /**
   * Revokes the key and closes its live sessions at once (4002); sign-ins still being verified
   * see the revocation before their welcome. The sessions close before the revocation is stored:
   * the store marks the key revoked in memory at once, and the one-second promise must not wait
   * for a disk busy with a fleet's writes.
   */
  async revokeKey(keyId: string): Promise<EdgeKey | undefined> {
    if (!this.keys.get(keyId)) return undefined;
    const stored = this.keys.revoke(keyId);
    for (const session of [...this.sessions]) {
      if (session.keyId === keyId) session.close(EDGE_CLOSE.keyRevoked, 'key revoked');
    }
    await this.gateways?.revoked(keyId);
    return stored;
  }

  // ---- SessionOwner -------------------------------------------------------------------------

  async signIn(session: EdgeSession, hello: HelloFrame): Promise<SignInVerdict> {
    let verdict = await this.checkSignIn(hello, session.challenge, session.protocol);
    if (verdict.ok && this.deps.directory.isListenName(hello.agentName)) {
      verdict = {
        ok: false,
        code: EDGE_CLOSE.nameTaken,
        message: `${hello.agentName} is a listen-mode agent of this hub (DD_AGENT_*)`,
      };
    }
    if (!verdict.ok) {
      // Unknown keys come from anyone who can reach the port (scanners): not worth a warning each.
      const level = verdict.code === EDGE_CLOSE.signInFailed ? 'debug' : 'warn';
      this.logger[level](
        `edge sign-in of ${hello.agentName} with key id ${hello.keyId} refused (${verdict.code}): ${verdict.message}`,
        {
          address: session.address,
        },
      );
    }
    return verdict;
  }

  welcomed(session: EdgeSession, hello: HelloFrame): void {
    this.slots.get(session)?.release();
    clearTimeout(this.deadlines.get(session));
    if (this.keys.get(hello.keyId)?.revokedAt !== null) {
      session.close(EDGE_CLOSE.keyRevoked, 'key revoked');
      return;
    }
    const runtime = this.deps.directory.connected(hello.agentName, session, {
      keyId: hello.keyId,
      info: hello.agent,
      watchers: hello.watchers,
      ...(session.address !== undefined && { address: session.address }),
    });
    if (!runtime) {
      session.close(EDGE_CLOSE.goingAway, 'hub shutting down');
      return;
    }
    this.beginInventory(session);
  }

  frame(session: EdgeSession, frame: InventoryFrame): CloseVerdict | undefined {
    return this.inventoryFrame(session, frame);
  }

  /** An inventory frame of a linked agent, applied to its watchers; a verdict closes the link. */
  inventoryFrame(session: InventorySource, frame: InventoryFrame): CloseVerdict | undefined {
    const name = session.agentName as string;
    const { directory, expectations } = this.deps;
    const runtime = directory.runtime(name);
    if (!runtime) return { code: EDGE_CLOSE.internalError, reason: 'hub internal error' };
    if (frame.type === 'info') {
      directory.infoChanged(name, frame.agent);
      return undefined;
    }
    const entry = runtime.get(frame.watcher);
    if (!entry) return { code: EDGE_CLOSE.invalidFrame, reason: `watcher ${frame.watcher} was not announced in hello` };
    if (frame.type === 'container.changed' || frame.type === 'container.removed') {
      if (frame.type === 'container.changed') entry.host.applyChanged(frame.container, frame.image);
      else entry.host.applyRemoved(frame.containerId);
      // A resumed session's first delta: the host's mirror was lost with the hibernated object, so
      // the agent sends its whole inventory again (an inventory request without operationId is a full sync).
      if (runtime.takeResync(frame.watcher)) this.requestFullSync(session, frame.watcher);
    } else if (frame.type === 'operation') entry.host.applyOperation(frame.operation);
    else {
      const step = this.assemblers.get(session)?.add(frame);
      if (!step || 'error' in step)
        return { code: EDGE_CLOSE.invalidFrame, reason: step?.error ?? 'no snapshot in progress' };
      if ('done' in step) {
        const { operationId, containers, images } = step.done;
        if (operationId !== undefined && !expectations.isAwaited(name, frame.watcher, operationId)) {
          this.logger.debug('ignored a snapshot of an expired or unknown inventory operation', {
            agent: name,
            watcher: frame.watcher,
          });
          return undefined;
        }
        runtime.applySnapshot(frame.watcher, containers, images, operationId === undefined);
      }
    }
    return undefined;
  }

  closed(session: EdgeSession, code: number, signedIn: boolean): void {
    this.sessions.delete(session);
    this.slots.get(session)?.release();
    clearTimeout(this.deadlines.get(session));
    const name = session.agentName;
    if (!signedIn || name === undefined) return;
    this.deps.directory.disconnected(name, session, {
      status: String(code),
      why: `close code ${code}`,
      brief: String(code),
    });
  }

  private requestFullSync(session: InventorySource, watcher: string): void {
    session.request({ method: 'inventory', watcher }).catch((error: unknown) =>
      this.logger.warn('full sync after a resumed session failed', {
        agent: session.agentName,
        watcher,
        error: String(error),
      }),
    );
  }

  private newSession(
    ws: WSContext,
    connection: Pick<EdgeConnection, 'protocol' | 'address'>,
    options: Partial<EdgeSessionOptions>,
  ): EdgeSession {
    const session = new EdgeSession({
      ws,
      protocol: connection.protocol,
      address: connection.address,
      hubVersion: this.deps.version,
      timings: this.timings,
      owner: this,
      logger: this.logger,
      now: this.deps.now,
      stalledMs: this.stalledMs,
      ...(this.pace && { pace: this.pace, pauseReading: this.deps.pauseReading }),
      ...options,
    });
    this.sessions.add(session);
    return session;
  }

  /**
   * Sign-in deadlines, pings and silence of every session: on a ticker, or where sockets hibernate
   * from the scheduled `edge.liveness` job and the sign-in timers.
   */
  sweep(): void {
    const now = this.deps.now();
    for (const session of [...this.sessions]) session.tick(now);
    // Sessions past the deadline were closed just above; this frees upgrades that never opened.
    this.signingIn.expire(now - this.timings.signInDeadlineMs);
  }
}
