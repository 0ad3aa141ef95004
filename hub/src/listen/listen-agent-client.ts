import * as v from 'valibot';
import {
  AGENT_EVENT_TYPES,
  AGENT_SECRET_HEADER,
  type AgentAck,
  AgentContainerSchema,
  type AgentEvent,
  AgentEventSchema,
  AgentOperationsSchema,
  AgentWatcherSchema,
} from '../../../shared/agent-api/listen-schemas';
import { EDGE_CLOSE } from '../../../shared/edge/protocol';
import type { Logger } from '../../../shared/logging/logger';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import type { AgentDirectory } from '../agents/agent-directory';
import type { InventoryExpectations } from '../agents/inventory-expectations';
import { describeListenAgent } from './listen-ack';
import { type ListenAgentConfig, listenAgentUrl } from './listen-agent-config';
import { causeOf, ListenLink, revisionOf } from './listen-link';
import { ListenReplica } from './listen-replica';
import { readSseMessages, type SseMessage } from './listen-sse';

export interface ListenTimings {
  /** No byte on the event stream for this long (the agent sends a keepalive every 15 s) drops it. */
  silenceLimitMs: number;
  /** Deadline of the dd:ack and of each request of the resync. */
  requestTimeoutMs: number;
  /** Reconnect delays: exponential from min to max, with jitter. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

export interface ListenAgentClientOptions {
  config: ListenAgentConfig;
  directory: AgentDirectory;
  expectations: InventoryExpectations;
  fetch: FetchLike;
  logger: Logger;
  now: () => number;
  timings: ListenTimings;
}

const WatchersSchema = v.array(AgentWatcherSchema);
const ContainersSchema = v.array(AgentContainerSchema);

/** A failure of one connection attempt, with what to log. */
class ConnectionFailure extends Error {}

/**
 * The hub's side of one listen-mode agent (decisions §1): it opens the agent's event stream
 * (GET /api/events with X-Dd-Agent-Secret), reads dd:ack, takes the agent's watchers, whole
 * inventory and update operations, and from then on mirrors the stream into the agent's runtime,
 * which the agent directory lists and routes exactly as an edge agent. A dropped or silent stream
 * is reopened with backoff and jitter (1 s to 60 s), and every reconnect is a full resync.
 */
export class ListenAgentClient {
  readonly name: string;
  private readonly baseUrl: string;
  private readonly stopping = new AbortController();
  private current: AbortController | undefined;
  private running: Promise<void> | undefined;
  private step: number;
  private lastFailure: string | undefined;

  constructor(private readonly options: ListenAgentClientOptions) {
    this.name = options.config.name;
    this.baseUrl = listenAgentUrl(options.config);
    this.step = options.timings.reconnectMinMs;
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.current?.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { logger } = this.options;
    while (!this.stopping.signal.aborted) {
      let outcome: string;
      try {
        outcome = await this.connectOnce();
      } catch (error) {
        outcome = error instanceof ConnectionFailure ? error.message : causeOf(error);
      }
      if (this.stopping.signal.aborted) return;
      const delayMs = this.nextDelay();
      const text = `listen-mode agent ${this.name} at ${this.baseUrl}: ${outcome}; reconnecting in ${delayMs} ms`;
      // The same failure again (an agent that stays down) is logged once, then at debug.
      if (outcome !== this.lastFailure) logger.warn(text, { agent: this.name });
      else logger.debug(text, { agent: this.name });
      this.lastFailure = outcome;
      await sleep(delayMs, this.stopping.signal);
    }
  }

  /** One connection, from the event stream's request to its end; resolves with why it ended. */
  private async connectOnce(): Promise<string> {
    const { directory, expectations, timings, logger, now } = this.options;
    const controller = new AbortController();
    this.current = controller;
    if (this.stopping.signal.aborted) controller.abort();
    let lastActivity = now();
    let silent = false;
    const watchdog = setInterval(
      () => {
        if (now() - lastActivity <= timings.silenceLimitMs) return;
        silent = true;
        controller.abort();
      },
      Math.max(10, Math.min(1000, Math.floor(timings.silenceLimitMs / 4))),
    );
    let link: ListenLink | undefined;
    let reason = 'the event stream ended';
    const fail = (why: string) => {
      reason = why;
      controller.abort();
    };
    try {
      const response = await this.get('/api/events', controller.signal, undefined, { accept: 'text/event-stream' });
      if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) {
        throw new ConnectionFailure('GET /api/events did not answer an event stream');
      }
      const messages = readSseMessages(response.body, () => {
        // Keepalives included: lastSeen is the latest sign of life, as for an edge agent.
        lastActivity = now();
        if (link) link.lastFrameAt = lastActivity;
      })[Symbol.asyncIterator]();
      const ack = await this.readAck(messages, fail);
      // Events that arrive while the inventory is fetched wait, then go through the revision check.
      const backlog: { event: AgentEvent; revision: number | undefined }[] = [];
      let deliver: (event: AgentEvent, revision: number | undefined) => void = (event, revision) =>
        backlog.push({ event, revision });
      const pump = (async () => {
        for (;;) {
          const next = await messages.next();
          if (next.done) return;
          const parsed = this.eventOf(next.value);
          if (parsed) deliver(parsed.event, parsed.revision);
        }
      })();
      // The pump's failure is seen when it is awaited below; meanwhile it must not go unhandled.
      pump.catch(() => undefined);

      const { watchers, containers, revision, operations } = await this.fetchInventory(controller.signal, fail);

      link = new ListenLink(
        {
          agentName: this.name,
          baseUrl: this.baseUrl,
          secret: this.options.config.secret,
          fetch: this.options.fetch,
          now,
        },
        fail,
      );
      const runtime = directory.connected(this.name, link, describeListenAgent(ack, watchers, this.options.config));
      if (!runtime) return 'the hub is stopping';
      const replica = new ListenReplica(
        this.name,
        runtime,
        (watcher, operationId) => expectations.isAwaited(this.name, watcher, operationId),
        logger,
      );
      replica.applyOperations(operations);
      replica.applyFull(containers, revision);
      link.replica = replica;
      for (const { event, revision: at } of backlog.splice(0)) replica.applyEvent(event, at);
      deliver = (event, at) => replica.applyEvent(event, at);
      this.step = timings.reconnectMinMs;
      this.lastFailure = undefined;
      logger.info(
        `listen-mode agent ${this.name} synced: ${containers.length} container(s), ${watchers.length} watcher(s)`,
        {
          agent: this.name,
        },
      );
      await pump;
      return reason;
    } catch (error) {
      if (silent) return `no data for ${timings.silenceLimitMs} ms`;
      if (controller.signal.aborted) return reason;
      throw error;
    } finally {
      clearInterval(watchdog);
      controller.abort();
      if (link) {
        link.close(EDGE_CLOSE.goingAway, reason);
        const why = silent ? `no data for ${timings.silenceLimitMs} ms` : reason;
        directory.disconnected(this.name, link, { status: 'disconnected', why, brief: why });
      }
    }
  }

  /** The agent's watchers, and its whole inventory with the revision it reflects. */
  private async fetchInventory(signal: AbortSignal, fail: (why: string) => void) {
    const watchers = this.parse(
      WatchersSchema,
      await (await this.get('/api/watchers', signal, fail)).json(),
      'watcher list',
    );
    const inventory = await this.get('/api/containers', signal, fail);
    const containers = this.parse(ContainersSchema, await inventory.json(), 'container list');
    // An agent that predates the update routes answers 404: it runs no update to report.
    const reported = await this.get('/api/operations', signal, fail, {}, [404]);
    if (reported.status === 404) {
      await reported.body?.cancel();
      return { watchers, containers, revision: revisionOf(inventory), operations: [] };
    }
    const operations = this.parse(AgentOperationsSchema, await reported.json(), 'operation list');
    return { watchers, containers, revision: revisionOf(inventory), operations };
  }

  /** The first message must be dd:ack, within the request deadline. */
  private async readAck(messages: AsyncIterator<SseMessage>, fail: (why: string) => void): Promise<AgentAck> {
    const { requestTimeoutMs } = this.options.timings;
    const timer = setTimeout(() => fail(`no dd:ack within ${requestTimeoutMs} ms`), requestTimeoutMs);
    try {
      const first = await messages.next();
      if (first.done) throw new ConnectionFailure('the event stream ended before dd:ack');
      const parsed = this.eventOf(first.value);
      if (parsed?.event.type !== 'dd:ack')
        throw new ConnectionFailure('the event stream did not begin with a valid dd:ack');
      return parsed.event.data;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A message as an event of http-interface §6.2; undefined (and logged) for one that is not. Unknown types are skipped. */
  private eventOf(message: SseMessage): { event: AgentEvent; revision: number | undefined } | undefined {
    let value: unknown;
    try {
      value = JSON.parse(message.data);
    } catch {
      this.options.logger.warn(`listen-mode agent ${this.name} sent an event that is not JSON`, { agent: this.name });
      return undefined;
    }
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !AGENT_EVENT_TYPES.has(type)) return undefined;
    const result = v.safeParse(AgentEventSchema, value);
    if (!result.success) {
      this.options.logger.warn(`listen-mode agent ${this.name} sent a malformed ${type} event`, {
        agent: this.name,
        issue: result.issues[0]?.message,
      });
      return undefined;
    }
    const revision = message.id !== undefined && /^\d{1,15}$/.test(message.id) ? Number(message.id) : undefined;
    return { event: result.output, revision };
  }

  /** A GET of the agent; `fail` (the connection's) ends everything when it takes longer than the request deadline. */
  private async get(
    path: string,
    signal: AbortSignal,
    fail: ((why: string) => void) | undefined,
    headers: Record<string, string> = {},
    /** Statuses answered to the caller rather than failing the connection. */
    accepted: readonly number[] = [],
  ): Promise<Response> {
    const { requestTimeoutMs } = this.options.timings;
    const timer =
      fail && setTimeout(() => fail(`GET ${path} took longer than ${requestTimeoutMs} ms`), requestTimeoutMs);
    try {
      const response = await this.options.fetch(`${this.baseUrl}${path}`, {
        headers: { [AGENT_SECRET_HEADER]: this.options.config.secret, ...headers },
        signal,
      });
      if (response.status === 401) {
        throw new ConnectionFailure(
          `the agent refused the secret (401): DD_AGENT_${this.name.replaceAll('-', '_').toUpperCase()}_SECRET must equal its DD_AGENT_SECRET`,
        );
      }
      if (!response.ok && !accepted.includes(response.status))
        throw new ConnectionFailure(`GET ${path} answered ${response.status}`);
      return response;
    } finally {
      clearTimeout(timer);
    }
  }

  private parse<T>(schema: v.GenericSchema<unknown, T>, value: unknown, what: string): T {
    const result = v.safeParse(schema, value);
    if (!result.success) throw new ConnectionFailure(`malformed ${what}: ${result.issues[0]?.message ?? 'invalid'}`);
    return result.output;
  }

  /** Between half and all of the current step; the step doubles up to the maximum. */
  private nextDelay(): number {
    const { reconnectMaxMs } = this.options.timings;
    const delay = Math.round(this.step / 2 + (Math.random() * this.step) / 2);
    this.step = Math.min(reconnectMaxMs, this.step * 2);
    return delay;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
