import type { WSEvents } from 'hono/ws';
import {
  type AgentInfo,
  EDGE_CLOSE,
  EDGE_HEARTBEAT_MS,
  EDGE_SIGN_IN_DEADLINE_MS,
  EDGE_SILENCE_LIMIT_MS,
  type EdgeRequest,
  type EdgeWatcher,
} from '../../../shared/edge/protocol';
import type { Agent } from '../../../shared/schemas/agent';
import type { Container } from '../../../shared/schemas/container';
import type { EdgeKey } from '../../../shared/schemas/edge-key';
import type { HubServices } from '../hub-services';
import { createAgentRegistry } from './agent-registry';
import { AgentRuntime } from './agent-runtime';
import { type AgentDescription, agentView, containerCounts } from './agent-view';
import type { AuthorizedKey } from './authorized-keys';
import { AgentNotConnectedError, type EdgeLink } from './edge-docker-host';
import { createEdgeKeyStore, type EdgeKeyStore } from './edge-key-store';
import type { EdgeRequestOptions } from './edge-requests';
import { EdgeSession, type EdgeTimings, type HelloFrame, type InventoryFrame, type SessionOwner, type SignInVerdict } from './edge-session';
import type { CloseVerdict } from './frame-reader';
import { createSignInCheck } from './sign-in-check';
import { type SignInSlot, SignInSlots, type SlotRefusal } from './sign-in-slots';
import { SnapshotAssembler } from './snapshot-assembler';
import { createStatsNotifier } from './stats-notifier';

export const EDGE_REQUEST_TIMEOUT_MS = 30_000;
/** lastSeen reaches storage at most this often per agent (and at disconnect and stop). */
const LAST_SEEN_FLUSH_MS = 5 * 60_000;

export const DEFAULT_EDGE_TIMINGS: EdgeTimings = {
  heartbeatMs: EDGE_HEARTBEAT_MS,
  silenceLimitMs: EDGE_SILENCE_LIMIT_MS,
  signInDeadlineMs: EDGE_SIGN_IN_DEADLINE_MS,
  requestTimeoutMs: EDGE_REQUEST_TIMEOUT_MS,
};

/** A live connection to an agent, whatever carries it: an edge session, or a listen-mode agent's event stream. */
export interface AgentLink extends EdgeLink {
  /** Unix ms of the latest sign of life. */
  readonly lastFrameAt: number;
  close(code: number, reason: string): void;
}

export interface EdgeConnection {
  protocol: string;
  address: string | undefined;
  /** Its place among the connections not yet signed in (admit()), freed at sign-in, close or the sign-in deadline. */
  slot?: SignInSlot | undefined;
}

/**
 * The hub's side of edge/1.0: the key registry, every connection from sign-in to close, the
 * agents the hub knows (live or not), and their watchers. Routes reach agents only through here.
 */
export class EdgeHub implements SessionOwner {
  readonly keys: EdgeKeyStore;
  readonly timings: EdgeTimings;
  private readonly registry;
  private readonly runtimes = new Map<string, AgentRuntime>();
  private readonly live = new Map<string, AgentLink>();
  /** Listen-mode agents (DD_AGENT_<NAME>_*): an edge agent may not sign in under one of their names. */
  private readonly listenNames = new Set<string>();
  private readonly sessions = new Set<EdgeSession>();
  private readonly assemblers = new WeakMap<EdgeSession, SnapshotAssembler>();
  private readonly signingIn: SignInSlots;
  private readonly slots = new WeakMap<EdgeSession, SignInSlot>();
  /** The inventory refresh each agent watcher waits for (`agent/watcher` → operationId); others' snapshots are ignored. */
  private readonly expected = new Map<string, string>();
  private readonly stats;
  private readonly checkSignIn;
  private readonly logger;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private lastFlush = 0;
  private stopping = false;
  /** Keys and agents loaded: before that every sign-in would fail, so upgrades are refused (503). */
  ready = false;

  constructor(
    private readonly services: HubServices,
    timings: Partial<EdgeTimings> = {},
  ) {
    this.timings = { ...DEFAULT_EDGE_TIMINGS, ...timings };
    this.logger = services.logger.child('edge');
    const storeLogger = services.logger.child('store.edge');
    this.keys = createEdgeKeyStore(services.deps.storage, services.now, storeLogger);
    this.registry = createAgentRegistry(services.deps.storage, storeLogger);
    this.checkSignIn = createSignInCheck(this.keys);
    this.signingIn = new SignInSlots(services.config.edge.signInLimits);
    this.stats = createStatsNotifier({
      countsOf: (name) => JSON.stringify(containerCounts(this.recordsOf(name))),
      publish: (agentName) => services.publish('dd:agent-stats-changed', { agentName }),
    });
  }

  /** Stored keys, bindings and agents; the authorized-keys file's keys registered if new; known agents' watchers listed. */
  async load(authorized: readonly AuthorizedKey[] = []): Promise<void> {
    await this.keys.load();
    await this.registry.load();
    let added = 0;
    for (const key of authorized) if ((await this.keys.register(key)) !== 'exists') added += 1;
    if (authorized.length > 0) this.logger.info(`DD_EDGE_AUTHORIZED_KEYS: ${added} new of ${authorized.length} keys registered`);
    for (const description of this.registry.all()) this.runtimeOf(description.name, description.watchers);
    const tickMs = Math.max(10, Math.min(1000, Math.floor(Math.min(this.timings.heartbeatMs, this.timings.signInDeadlineMs) / 4)));
    this.ticker = setInterval(() => this.tick(), tickMs);
    this.ready = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.ready = false;
    if (this.ticker) clearInterval(this.ticker);
    this.stats.stop();
    for (const session of [...this.sessions]) session.close(EDGE_CLOSE.goingAway, 'hub shutting down');
    // Listen-mode agents' links too (their clients are normally stopped before).
    for (const link of [...this.live.values()]) link.close(EDGE_CLOSE.goingAway, 'hub shutting down');
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.stop()));
    await this.registry.flushLastSeen(this.services.now(), 0).catch(() => undefined);
  }

  /**
   * A place for an upgrade among the connections not yet signed in, or the cap that refuses it
   * (the endpoint answers 429). Taken before the upgrade, so a burst of upgrades cannot all pass
   * the check before any of them is counted.
   */
  admit(address: string | undefined): SignInSlot | SlotRefusal {
    return this.signingIn.take(address, this.services.now());
  }

  /** Connections counted as not yet signed in (tests). */
  get signingInCount(): number {
    return this.signingIn.size;
  }

  /** The socket events of one accepted upgrade. */
  connect(connection: EdgeConnection): WSEvents {
    let session: EdgeSession | undefined;
    return {
      onOpen: (_event, ws) => {
        if (this.stopping) {
          connection.slot?.release();
          ws.close(EDGE_CLOSE.goingAway, 'hub shutting down');
          return;
        }
        session = new EdgeSession({
          ws,
          protocol: connection.protocol,
          address: connection.address,
          hubVersion: this.services.deps.version,
          timings: this.timings,
          owner: this,
          logger: this.logger,
          now: this.services.now,
          setFrameLimit: this.services.deps.setWebSocketFrameLimit,
        });
        if (connection.slot) this.slots.set(session, connection.slot);
        this.sessions.add(session);
        session.open();
      },
      onMessage: (event) => session?.message(event.data),
      onClose: (event) => session?.socketClosed((event as CloseEvent).code ?? 1006),
      onError: () => session?.socketClosed(1006),
    };
  }

  // ---- what routes ask --------------------------------------------------------------------

  agents(): Agent[] {
    // Records grouped once: a fleet of 1,000 agents must not scan every container per agent.
    const byAgent = new Map<string, Container[]>();
    for (const container of this.services.containers.all()) {
      if (container.agent === undefined) continue;
      const list = byAgent.get(container.agent);
      if (list) list.push(container);
      else byAgent.set(container.agent, [container]);
    }
    return this.registry.all().map((description) => this.viewOf(description, byAgent.get(description.name) ?? []));
  }

  agent(name: string): Agent | undefined {
    const description = this.registry.get(name);
    return description && this.viewOf(description);
  }

  /** What the agent said of itself and its watchers at its last sign-in (or info frame). */
  agentDetails(name: string): { info: AgentInfo; watchers: readonly EdgeWatcher[] } | undefined {
    const description = this.registry.get(name);
    return description && { info: description.info, watchers: description.watchers };
  }

  isConnected(name: string): boolean {
    return this.live.has(name);
  }

  runtime(name: string): AgentRuntime | undefined {
    return this.runtimes.get(name);
  }

  /** A command to a connected agent; AgentNotConnectedError when it is away. */
  request(agentName: string, request: EdgeRequest, options: EdgeRequestOptions = {}): Promise<unknown> {
    const session = this.live.get(agentName);
    if (!session) return Promise.reject(new AgentNotConnectedError(agentName));
    return session.request(request, { timeoutMs: this.timings.requestTimeoutMs, ...options });
  }

  /** From now on only this operation's snapshot of the watcher is applied (spec 4.3: a superseded one never writes). */
  expectInventory(agentName: string, watcherName: string, operationId: string): void {
    this.expected.set(`${agentName}/${watcherName}`, operationId);
  }

  /** The operation ended (answered, timed out, failed): a late snapshot of it is ignored. */
  forgetInventory(agentName: string, watcherName: string, operationId: string): void {
    const key = `${agentName}/${watcherName}`;
    if (this.expected.get(key) === operationId) this.expected.delete(key);
  }

  async registerKey(key: AuthorizedKey): Promise<EdgeKey | 'exists'> {
    return this.keys.register(key);
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
    return stored;
  }

  // ---- SessionOwner -------------------------------------------------------------------------

  async signIn(session: EdgeSession, hello: HelloFrame): Promise<SignInVerdict> {
    let verdict = await this.checkSignIn(hello, session.challenge, session.protocol);
    if (verdict.ok && this.listenNames.has(hello.agentName)) {
      verdict = { ok: false, code: EDGE_CLOSE.nameTaken, message: `${hello.agentName} is a listen-mode agent of this hub (DD_AGENT_*)` };
    }
    if (!verdict.ok) {
      // Unknown keys come from anyone who can reach the port (scanners): not worth a warning each.
      const level = verdict.code === EDGE_CLOSE.signInFailed ? 'debug' : 'warn';
      this.logger[level](`edge sign-in of ${hello.agentName} with key id ${hello.keyId} refused (${verdict.code}): ${verdict.message}`, {
        address: session.address,
      });
    }
    return verdict;
  }

  welcomed(session: EdgeSession, hello: HelloFrame): void {
    this.slots.get(session)?.release();
    if (this.keys.get(hello.keyId)?.revokedAt !== null) {
      session.close(EDGE_CLOSE.keyRevoked, 'key revoked');
      return;
    }
    this.attach(hello.agentName, session, {
      keyId: hello.keyId,
      info: hello.agent,
      watchers: hello.watchers,
      ...(session.address !== undefined && { address: session.address }),
    });
    this.assemblers.set(session, new SnapshotAssembler());
  }

  frame(session: EdgeSession, frame: InventoryFrame): CloseVerdict | undefined {
    const name = session.agentName as string;
    const runtime = this.runtimes.get(name);
    if (!runtime) return { code: EDGE_CLOSE.internalError, reason: 'hub internal error' };
    if (frame.type === 'info') {
      const description = this.registry.get(name);
      if (description) this.save({ ...description, info: frame.agent, infoAt: this.services.now() });
      this.services.publish('dd:agent-stats-changed', { agentName: name });
      return undefined;
    }
    const entry = runtime.get(frame.watcher);
    if (!entry) return { code: EDGE_CLOSE.invalidFrame, reason: `watcher ${frame.watcher} was not announced in hello` };
    if (frame.type === 'container.changed') entry.host.applyChanged(frame.container, frame.image);
    else if (frame.type === 'container.removed') entry.host.applyRemoved(frame.containerId);
    else if (frame.type === 'operation') entry.host.applyOperation(frame.operation);
    else {
      const step = this.assemblers.get(session)?.add(frame);
      if (!step || 'error' in step) return { code: EDGE_CLOSE.invalidFrame, reason: step?.error ?? 'no snapshot in progress' };
      if ('done' in step) {
        const { operationId, containers, images } = step.done;
        if (operationId !== undefined && this.expected.get(`${name}/${frame.watcher}`) !== operationId) {
          this.logger.debug('ignored a snapshot of an expired or unknown inventory operation', { agent: name, watcher: frame.watcher });
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
    const name = session.agentName;
    if (!signedIn || name === undefined) return;
    this.detach(name, session, session.lastFrameAt, { status: String(code), why: `close code ${code}`, brief: String(code) });
  }

  // ---- listen-mode agents (hub/src/edge/listen-agents.ts) -------------------------------------

  reserveListenNames(names: Iterable<string>): void {
    for (const name of names) this.listenNames.add(name);
  }

  /**
   * A listen-mode agent's event stream is up and its dd:ack read: the bookkeeping of an edge
   * welcome (listed connected, watchers reconciled and linked, events). Undefined while stopping.
   */
  listenConnected(
    name: string,
    link: AgentLink,
    agent: { info: AgentInfo; watchers: EdgeWatcher[]; listen: { host: string; port: number } },
  ): AgentRuntime | undefined {
    if (this.stopping) return undefined;
    return this.attach(name, link, agent);
  }

  /** Its stream ended: listed disconnected, with the event, audit entry and notification of an edge disconnect. */
  listenDisconnected(name: string, link: AgentLink, reason: string): void {
    this.detach(name, link, link.lastFrameAt, { status: 'disconnected', why: reason, brief: reason });
  }

  /** Whether this inventory operation of the agent's watcher is the one awaited (spec 6.2: others are ignored). */
  isAwaitedInventory(agentName: string, watcherName: string, operationId: string): boolean {
    return this.expected.get(`${agentName}/${watcherName}`) === operationId;
  }

  // ---- internals ----------------------------------------------------------------------------

  private attach(
    name: string,
    link: AgentLink,
    parts: Pick<AgentDescription, 'info' | 'watchers'> & Partial<Pick<AgentDescription, 'keyId' | 'address' | 'listen'>>,
  ): AgentRuntime {
    const previous = this.live.get(name);
    const known = this.registry.get(name) !== undefined;
    // Registered before the old one closes, so its close is seen as superseded, not as a disconnect.
    this.live.set(name, link);
    previous?.close(EDGE_CLOSE.superseded, 'superseded by a newer session');
    const now = this.services.now();
    const description: AgentDescription = { name, ...parts, infoAt: now, lastSeen: new Date(now).toISOString() };
    this.save(description);
    const runtime = this.runtimeOf(name, parts.watchers);
    runtime.setLink(link);
    this.logger.info(`agent ${name} connected`, { agent: name, address: parts.address, watchers: parts.watchers.length });
    this.services.publish('dd:agent-connected', this.viewOf(description));
    if (known && !previous) this.services.agentEvents.emit({ event: 'agent-reconnect', agent: this.viewOf(description), at: now });
    return runtime;
  }

  private detach(name: string, link: AgentLink, lastSeenAt: number, cause: { status: string; why: string; brief: string }): void {
    if (this.live.get(name) !== link) return;
    this.live.delete(name);
    for (const key of [...this.expected.keys()]) if (key.startsWith(`${name}/`)) this.expected.delete(key);
    this.runtimes.get(name)?.setLink(undefined);
    this.registry.touch(name, lastSeenAt);
    const description = this.registry.get(name);
    if (description) this.save(description);
    // A hub going down is not an agent going away: no audit entry or notification for every agent.
    if (this.stopping || !description) return;
    const view = this.viewOf(description);
    this.logger.warn(`agent ${name} disconnected (${cause.brief})`, { agent: name, status: cause.status });
    this.services.publish('dd:agent-disconnected', view);
    this.services.audit
      .append({ action: 'agent-disconnect', status: cause.status, details: `agent ${name} disconnected (${cause.why})` })
      .catch((error: unknown) => this.logger.warn('could not audit an agent disconnect', { error: String(error) }));
    this.services.agentEvents.emit({ event: 'agent-disconnect', agent: view, at: this.services.now() });
  }

  private viewOf(description: AgentDescription, containers: readonly Container[] = this.recordsOf(description.name)): Agent {
    const session = this.live.get(description.name);
    const current = session ? { ...description, lastSeen: new Date(session.lastFrameAt).toISOString() } : description;
    return agentView(current, { connected: session !== undefined, now: this.services.now(), containers });
  }

  private recordsOf(name: string) {
    return this.services.containers.all().filter((container) => container.agent === name);
  }

  private runtimeOf(name: string, watchers: AgentDescription['watchers']): AgentRuntime {
    let runtime = this.runtimes.get(name);
    if (!runtime) {
      runtime = new AgentRuntime(name, {
        services: this.services,
        requestTimeoutMs: this.timings.requestTimeoutMs,
        onRecordsChanged: () => this.stats.changed(name),
      });
      this.runtimes.set(name, runtime);
    }
    const { added, removed } = runtime.reconcile(watchers);
    const list = this.services.watchers;
    for (const watcher of removed) {
      const index = list.indexOf(watcher);
      if (index >= 0) list.splice(index, 1);
    }
    list.push(...added);
    return runtime;
  }

  private save(description: AgentDescription): void {
    this.registry
      .save(description)
      .catch((error: unknown) => this.logger.error(`could not store agent ${description.name}`, { error: String(error) }));
  }

  private tick(): void {
    const now = this.services.now();
    for (const session of [...this.sessions]) session.tick(now);
    // Sessions past the deadline were closed just above; this frees upgrades that never opened.
    this.signingIn.expire(now - this.timings.signInDeadlineMs);
    if (now - this.lastFlush < 60_000) return;
    this.lastFlush = now;
    for (const [name, session] of this.live) this.registry.touch(name, session.lastFrameAt);
    this.registry
      .flushLastSeen(now, LAST_SEEN_FLUSH_MS)
      .catch((error: unknown) => this.logger.warn('could not store agents lastSeen', { error: String(error) }));
  }
}
