import { type AgentInfo, EDGE_CLOSE, type EdgeRequest, type EdgeWatcher } from '../../../shared/edge/protocol';
import type { Logger } from '../../../shared/logging/logger';
import type { Agent } from '../../../shared/schemas/agent';
import type { Container } from '../../../shared/schemas/container';
import type { Publish } from '../events/event-bus';
import { repeatWork } from '../schedule/periodic-work';
import type { Scheduler } from '../schedule/scheduler';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { Fleet } from '../watchers/fleet';
import type { WatcherFactory } from '../watchers/watcher-factory';
import type { AgentEvents } from './agent-events';
import type { AgentRegistry } from './agent-registry';
import { AgentRuntime } from './agent-runtime';
import { type AgentDescription, agentView, containerCounts } from './agent-view';
import { AgentNotConnectedError, type EdgeLink } from './edge-docker-host';
import type { EdgeRequestOptions } from './edge-requests';
import type { InventoryExpectations } from './inventory-expectations';
import { SharedImages } from './shared-images';
import { createStatsNotifier } from './stats-notifier';

/** lastSeen reaches storage at most this often per agent (and at disconnect and stop). */
const LAST_SEEN_FLUSH_MS = 5 * 60_000;
/** How often live links' lastSeen is gathered for that flush. */
const LAST_SEEN_TICK_MS = 60_000;

/** A live connection to an agent, whatever carries it: an edge session, or a listen-mode agent's event stream. */
export interface AgentLink extends EdgeLink {
  /** Unix ms of the latest sign of life. */
  readonly lastFrameAt: number;
  close(code: number, reason: string): void;
}

/** What the directory stores, announces and builds for every agent. */
export interface AgentDirectoryDeps {
  /** The agents' stored descriptions. */
  registry: AgentRegistry;
  logger: Logger;
  now: () => number;
  containers: ContainerStore;
  audit: Pick<AuditStore, 'append' | 'appendMany'>;
  publish: Publish;
  /** agent-disconnect and agent-reconnect, for the notification rules. */
  agentEvents: Pick<AgentEvents, 'emit'>;
  /** Agents' watchers join it while announced and leave it when the agent drops them. */
  fleet: Fleet;
  newWatcher: WatcherFactory;
  expectations: InventoryExpectations;
  /** A command's deadline when its caller gives none. */
  requestTimeoutMs: number;
  /**
   * The lastSeen flush runs on the hub's scheduler (job `agents.last-seen`, the Durable Object
   * alarm), not on a ticker of its own: a pending interval keeps a Durable Object from hibernating.
   */
  scheduledLastSeen?: Pick<Scheduler, 'job'> | undefined;
}

export interface AgentCause {
  /** The audit entry's status: a close code, or `disconnected`. */
  status: string;
  /** The reason, for the audit trail. */
  why: string;
  /** The reason, short, for the log. */
  brief: string;
}

/**
 * Every agent the hub knows, edge or listen mode, live or not: its description (stored), its
 * link while connected, and its watchers. Both transports report here; routes, updates and
 * watchers ask here. The transports themselves (sign-in, frames, streams) live elsewhere.
 */
export class AgentDirectory {
  private readonly registry: AgentRegistry;
  private readonly runtimes = new Map<string, AgentRuntime>();
  private readonly live = new Map<string, AgentLink>();
  /** Listen-mode agents (DD_AGENT_<NAME>_*): an edge agent may not sign in under one of their names. */
  private readonly listenNames = new Set<string>();
  private readonly stats;
  private readonly logger;
  /** Every agent's hosts hold the images they share as one object (issue 30 item 3). */
  private readonly sharedImages = new SharedImages();
  private stopFlushing: (() => void) | undefined;
  private stopping = false;

  constructor(private readonly deps: AgentDirectoryDeps) {
    this.logger = deps.logger.child('edge');
    this.registry = deps.registry;
    this.stats = createStatsNotifier({
      countsOf: (name) => JSON.stringify(containerCounts(this.recordsOf(name))),
      publish: (agentName) => deps.publish('dd:agent-stats-changed', { agentName }),
    });
  }

  /** Stored agents, their watchers listed in the fleet (standing still until the agent is back). */
  async load(): Promise<void> {
    await this.registry.load();
    for (const description of this.registry.all()) this.runtimeOf(description.name, description.watchers);
    // Once per flush period on the scheduler: a connected agent's listed lastSeen is live (its link),
    // so the stored one is only read after a restart, and each wake-up of the object is worth saving.
    this.stopFlushing = repeatWork(() => this.flushLastSeen(), {
      scheduler: this.deps.scheduledLastSeen,
      job: 'agents.last-seen',
      everyMs: LAST_SEEN_FLUSH_MS,
      intervalMs: LAST_SEEN_TICK_MS,
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopFlushing?.();
    this.stats.stop();
    for (const link of [...this.live.values()]) link.close(EDGE_CLOSE.goingAway, 'hub shutting down');
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.stop()));
    await this.registry.flushLastSeen(this.deps.now(), 0).catch(() => undefined);
  }

  // ---- what routes, updates and transports ask ------------------------------------------------

  agents(): Agent[] {
    // Records grouped once: a fleet of 1,000 agents must not scan every container per agent.
    const byAgent = new Map<string, Container[]>();
    for (const container of this.deps.containers.all()) {
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
    const link = this.live.get(agentName);
    if (!link) return Promise.reject(new AgentNotConnectedError(agentName));
    return link.request(request, { timeoutMs: this.deps.requestTimeoutMs, ...options });
  }

  reserveListenNames(names: Iterable<string>): void {
    for (const name of names) this.listenNames.add(name);
  }

  isListenName(name: string): boolean {
    return this.listenNames.has(name);
  }

  // ---- what transports report ------------------------------------------------------------------

  /**
   * A link is up and the agent identified: listed connected, its watchers reconciled and linked,
   * and the events told. Undefined while the hub stops. `resumed`: the same session, rebuilt after
   * the hub woke from hibernation (docs/workers.md "Edge sockets"): linked again without an event,
   * since for the agent and the fleet nothing happened.
   */
  connected(
    name: string,
    link: AgentLink,
    parts: Pick<AgentDescription, 'info' | 'watchers'> &
      Partial<Pick<AgentDescription, 'keyId' | 'address' | 'listen'>>,
    options: { resumed?: boolean } = {},
  ): AgentRuntime | undefined {
    if (this.stopping) return undefined;
    const previous = this.live.get(name);
    const known = this.registry.get(name) !== undefined;
    // Registered before the old one closes, so its close is seen as superseded, not as a disconnect.
    this.live.set(name, link);
    previous?.close(EDGE_CLOSE.superseded, 'superseded by a newer session');
    const now = this.deps.now();
    const description: AgentDescription = { name, ...parts, infoAt: now, lastSeen: new Date(now).toISOString() };
    // Resumed, the stored description is the one read back: nothing to write for each agent at every wake.
    if (!options.resumed) this.save(description);
    const runtime = this.runtimeOf(name, parts.watchers);
    runtime.setLink(link);
    if (options.resumed) {
      this.logger.debug(`agent ${name}: session resumed after hibernation`, { agent: name });
      return runtime;
    }
    this.logger.info(`agent ${name} connected`, {
      agent: name,
      address: parts.address,
      watchers: parts.watchers.length,
    });
    this.deps.publish('dd:agent-connected', this.viewOf(description));
    if (known && !previous)
      this.deps.agentEvents.emit({ event: 'agent-reconnect', agent: this.viewOf(description), at: now });
    return runtime;
  }

  /** The link is gone (unless a newer one superseded it): listed disconnected, with its event, audit entry and notification. */
  disconnected(name: string, link: AgentLink, cause: AgentCause): void {
    if (this.live.get(name) !== link) return;
    this.live.delete(name);
    this.deps.expectations.forgetAgent(name);
    this.runtimes.get(name)?.setLink(undefined);
    this.registry.touch(name, link.lastFrameAt);
    const description = this.registry.get(name);
    if (description) this.save(description);
    // A hub going down is not an agent going away: no audit entry or notification for every agent.
    if (this.stopping || !description) return;
    const view = this.viewOf(description);
    this.logger.warn(`agent ${name} disconnected (${cause.brief})`, { agent: name, status: cause.status });
    this.deps.publish('dd:agent-disconnected', view);
    this.deps.audit
      .append({
        action: 'agent-disconnect',
        status: cause.status,
        details: `agent ${name} disconnected (${cause.why})`,
      })
      .catch((error: unknown) => this.logger.warn('could not audit an agent disconnect', { error: String(error) }));
    this.deps.agentEvents.emit({ event: 'agent-disconnect', agent: view, at: this.deps.now() });
  }

  /** The agent told the hub about itself again (edge `info` frame). */
  infoChanged(name: string, info: AgentInfo): void {
    const description = this.registry.get(name);
    if (description) this.save({ ...description, info, infoAt: this.deps.now() });
    this.deps.publish('dd:agent-stats-changed', { agentName: name });
  }

  // ---- internals -------------------------------------------------------------------------------

  private viewOf(
    description: AgentDescription,
    containers: readonly Container[] = this.recordsOf(description.name),
  ): Agent {
    const link = this.live.get(description.name);
    const current = link ? { ...description, lastSeen: new Date(link.lastFrameAt).toISOString() } : description;
    return agentView(current, { connected: link !== undefined, now: this.deps.now(), containers });
  }

  private recordsOf(name: string): Container[] {
    return this.deps.containers.ofSource(name);
  }

  private runtimeOf(name: string, watchers: AgentDescription['watchers']): AgentRuntime {
    let runtime = this.runtimes.get(name);
    if (!runtime) {
      runtime = new AgentRuntime(name, {
        newWatcher: this.deps.newWatcher,
        containers: this.deps.containers,
        audit: this.deps.audit,
        publish: this.deps.publish,
        logger: this.deps.logger,
        now: this.deps.now,
        requestTimeoutMs: this.deps.requestTimeoutMs,
        sharedImages: this.sharedImages,
        onRecordsChanged: () => this.stats.changed(name),
      });
      this.runtimes.set(name, runtime);
    }
    const { added, removed } = runtime.reconcile(watchers);
    for (const watcher of removed) this.deps.fleet.remove(watcher);
    for (const watcher of added) this.deps.fleet.add(watcher);
    return runtime;
  }

  private save(description: AgentDescription): void {
    this.registry
      .save(description)
      .catch((error: unknown) =>
        this.logger.error(`could not store agent ${description.name}`, { error: String(error) }),
      );
  }

  private flushLastSeen(): void {
    const now = this.deps.now();
    for (const [name, link] of this.live) this.registry.touch(name, link.lastFrameAt);
    this.registry
      .flushLastSeen(now, LAST_SEEN_FLUSH_MS)
      .catch((error: unknown) => this.logger.warn('could not store agents lastSeen', { error: String(error) }));
  }
}
