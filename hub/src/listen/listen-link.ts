import * as v from 'valibot';
import {
  AGENT_REVISION_HEADER,
  AGENT_SECRET_HEADER,
  AgentActionResultSchema,
  AgentInventoryResultSchema,
} from '../../../shared/agent-api/listen-schemas';
import { StatsSchema } from '../../../shared/edge/docker-schemas';
import type { EdgeRequest } from '../../../shared/edge/protocol';
import type { FetchLike } from '../../../shared/registry/registry-transport';
import { LogEntrySchema } from '../../../shared/schemas/log-entry';
import type { EdgeLink } from '../agents/edge-docker-host';
import {
  type ChunkSink,
  EdgeRequestError,
  type EdgeRequestFailure,
  type EdgeRequestOptions,
} from '../agents/edge-requests';
import { readLogLines } from './listen-log-lines';
import type { ListenReplica } from './listen-replica';

export interface ListenLinkOptions {
  agentName: string;
  /** `http://host:port` of the agent. */
  baseUrl: string;
  secret: string;
  fetch: FetchLike;
  now: () => number;
}

const EntriesSchema = v.array(LogEntrySchema);
/** The cancel of an update is one short call; the update's end comes on the stream. */
const CANCEL_TIMEOUT_MS = 10_000;

/** The agent error codes a listen-mode agent names in `details.code` (busy and conflict share 409). */
const AGENT_CODES: ReadonlySet<string> = new Set(['not-found', 'unsupported', 'invalid', 'busy', 'failed', 'conflict']);

/**
 * The hub's requests to a listen-mode agent as calls of its HTTP interface (http-interface §4.5 and
 * this agent's additions: start, stop, restart, stats, followed logs, updates, image list,
 * removal, export and pull). It is the EdgeLink of the agent's EdgeDockerHosts while the event stream is up, so
 * the hub's routes and watchers reach a listen-mode agent exactly as they reach an edge agent.
 * Closing it fails what is in flight with `disconnected` (503 at the API).
 */
export class ListenLink implements EdgeLink {
  lastFrameAt: number;
  /** Set once the inventory is mirrored: answers that carry containers are applied through it. */
  replica: ListenReplica | undefined;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly options: ListenLinkOptions,
    private readonly onClose: (reason: string) => void,
  ) {
    this.lastFrameAt = options.now();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Ends the link (the stream dropped, or the hub asked): pending requests fail with `disconnected`. */
  close(_code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.inFlight) controller.abort();
    this.onClose(reason);
  }

  async request(request: EdgeRequest, options: EdgeRequestOptions = {}): Promise<unknown> {
    const watcher = 'watcher' in request ? `watcher=${encodeURIComponent(request.watcher)}` : '';
    switch (request.method) {
      case 'inventory': {
        const operationId = request.operationId ?? crypto.randomUUID();
        const path = `/api/watchers/docker/${encodeURIComponent(request.watcher)}/inventory`;
        return this.call('POST', path, options, { operationId }, async (response) => {
          const result = parse(
            AgentInventoryResultSchema,
            await response.json(),
            this.options.agentName,
            'inventory result',
          );
          if (!result.authoritative)
            throw new EdgeRequestError('failed', result.errors[0]?.message ?? 'the agent could not observe');
          this.replica?.applyInventory(request.watcher, operationId, result.containers, revisionOf(response));
          return { syncId: operationId, containers: result.containers.length };
        });
      }
      case 'container.start':
      case 'container.stop':
      case 'container.restart': {
        const action = request.method.slice('container.'.length);
        const path = `/api/containers/${encodeURIComponent(request.containerId)}/${action}?${watcher}`;
        return this.call('POST', path, options, undefined, async (response) => {
          const result = parse(
            AgentActionResultSchema,
            await response.json(),
            this.options.agentName,
            `${action} result`,
          );
          this.replica?.applyAction(result, revisionOf(response));
          return undefined;
        });
      }
      case 'container.remove':
        // The agent's DELETE (http-interface §4.5) drops a record, it does not remove the container.
        throw new EdgeRequestError(
          'unsupported',
          `agent ${this.options.agentName}: a listen-mode agent does not remove containers`,
        );
      case 'container.update':
        return this.update(request, options);
      case 'image.pull': {
        // The answer is the pulled image; EdgeDockerHost.pullImage checks it.
        const body = { reference: request.reference, ...(request.auth && { auth: request.auth }) };
        try {
          return await this.call('POST', `/api/images/pull?${watcher}`, options, body, (response) => response.json());
        } catch (error) {
          // An agent that predates the route answers its 404 for an unknown route: not the image's.
          if (error instanceof EdgeRequestError && error.code === 'not-found' && error.message.includes('No route'))
            throw new EdgeRequestError(
              'unsupported',
              `agent ${this.options.agentName} predates POST /api/images/pull: update it to pull (and scan) update candidates`,
            );
          throw error;
        }
      }
      case 'image.export': {
        const path = `/api/images/${encodeURIComponent(request.imageId)}/export?${watcher}`;
        return this.call('GET', path, options, undefined, (response, rearm) =>
          readExport(response, options.chunks, rearm),
        );
      }
      case 'image.list':
        return this.call('GET', `/api/images?${watcher}`, options, undefined, (response) => response.json());
      case 'image.remove': {
        const path = `/api/images/${encodeURIComponent(request.imageId)}?${watcher}`;
        return this.call('DELETE', path, options, undefined, async () => undefined);
      }
      case 'container.stats': {
        const path = `/api/containers/${encodeURIComponent(request.containerId)}/stats?${watcher}`;
        return this.call('GET', path, options, undefined, async (response) =>
          parse(StatsSchema, await response.json(), this.options.agentName, 'stats'),
        );
      }
      case 'container.logs': {
        const { options: log } = request;
        const query = new URLSearchParams({
          watcher: request.watcher,
          stdout: String(log.stdout),
          stderr: String(log.stderr),
          timestamps: 'true',
          follow: String(log.follow),
          format: 'jsonl',
          // The agent's default is 1,000 lines; "everything" is its cap.
          tail: String(log.tail ?? 100_000),
          ...(log.since !== undefined && { since: String(log.since) }),
        });
        const path = `/api/containers/${encodeURIComponent(request.containerId)}/logs?${query}`;
        return this.call('GET', path, options, undefined, (response, rearm) =>
          readLogLines(response, options.onStream, rearm),
        );
      }
      case 'log.entries': {
        const query = new URLSearchParams({
          ...(request.level !== undefined && { level: request.level }),
          ...(request.component !== undefined && { component: request.component }),
          ...(request.tail !== undefined && { tail: String(request.tail) }),
          ...(request.since !== undefined && { since: String(request.since) }),
        });
        return this.call('GET', `/api/log/entries?${query}`, options, undefined, async (response) => ({
          entries: parse(EntriesSchema, await response.json(), this.options.agentName, 'log entries'),
        }));
      }
    }
  }

  /**
   * The agent runs the update engine and answers the settled operation (EdgeDockerHost.runUpdate
   * checks it); its phases arrive meanwhile as dd:operation events. The caller's abort is a user's
   * cancel (agent-update-runner.ts): the agent is told, as an edge agent is by `cancel`, since a
   * dropped request alone does not stop an update.
   */
  private async update(
    request: Extract<EdgeRequest, { method: 'container.update' }>,
    options: EdgeRequestOptions,
  ): Promise<unknown> {
    const { operation } = request;
    const path = `/api/containers/${encodeURIComponent(operation.containerId)}/update?watcher=${encodeURIComponent(request.watcher)}`;
    const cancel = () => {
      const cancelPath = `/api/operations/${encodeURIComponent(operation.id)}/cancel`;
      void this.call('POST', cancelPath, { timeoutMs: CANCEL_TIMEOUT_MS }, undefined, async () => undefined).catch(
        () => undefined,
      );
    };
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      const body = { operation, options: request.options };
      return await this.call('POST', path, options, body, (response) => response.json());
    } finally {
      options.signal?.removeEventListener('abort', cancel);
    }
  }

  /**
   * One HTTP call under the request's deadline (restarted by `rearm` for an idle deadline), its
   * abort signal and the link's life; a non-2xx answer becomes the matching request error.
   */
  private async call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options: EdgeRequestOptions,
    body: unknown,
    read: (response: Response, rearm: () => void) => Promise<T>,
  ): Promise<T> {
    const label = `agent ${this.options.agentName}`;
    if (this.closed) throw new EdgeRequestError('disconnected', `${label}: the link closed`);
    if (options.signal?.aborted) throw new EdgeRequestError('aborted', `${label}: aborted`);
    const controller = new AbortController();
    let why: EdgeRequestFailure | undefined;
    const abort = (reason: EdgeRequestFailure) => {
      why ??= reason;
      controller.abort();
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const rearm = () => {
      if (timer) clearTimeout(timer);
      if (options.timeoutMs !== undefined) timer = setTimeout(() => abort('timeout'), options.timeoutMs);
    };
    const onCallerAbort = () => abort('aborted');
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    this.inFlight.add(controller);
    rearm();
    try {
      const response = await this.options.fetch(`${this.options.baseUrl}${path}`, {
        method,
        headers: {
          [AGENT_SECRET_HEADER]: this.options.secret,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: controller.signal,
      });
      this.lastFrameAt = this.options.now();
      if (!response.ok) throw await failureOf(response, label);
      return await read(response, rearm);
    } catch (error) {
      if (controller.signal.aborted) {
        const reason = why ?? (this.closed ? 'disconnected' : 'aborted');
        const message =
          reason === 'timeout'
            ? `no answer within ${options.timeoutMs} ms`
            : reason === 'disconnected'
              ? 'the link closed'
              : 'aborted';
        throw new EdgeRequestError(reason, `${label}: ${path.split('?')[0]}: ${message}`);
      }
      if (error instanceof EdgeRequestError) throw error;
      if (error instanceof SyntaxError)
        throw new EdgeRequestError('failed', `${label}: malformed answer to ${path.split('?')[0]}`);
      // The agent cannot be reached (refused, reset): it is away, as far as this request goes.
      throw new EdgeRequestError('disconnected', `${label}: ${causeOf(error)}`);
    } finally {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
      this.inFlight.delete(controller);
    }
  }
}

function parse<T>(schema: v.GenericSchema<unknown, T>, value: unknown, agent: string, what: string): T {
  const result = v.safeParse(schema, value);
  if (!result.success) throw new EdgeRequestError('failed', `agent ${agent}: malformed ${what}`);
  return result.output;
}

export function revisionOf(response: Response): number | undefined {
  const text = response.headers.get(AGENT_REVISION_HEADER);
  const revision = text === null ? Number.NaN : Number(text);
  return Number.isSafeInteger(revision) && revision >= 0 ? revision : undefined;
}

/** The agent's error status as the request error the hub's routes already answer for. */
async function failureOf(response: Response, label: string): Promise<EdgeRequestError> {
  let message = `HTTP ${response.status}`;
  let named: unknown;
  try {
    const body = (await response.json()) as { error?: unknown; details?: { code?: unknown } };
    if (typeof body.error === 'string') message = body.error.slice(0, 300);
    named = body.details?.code;
  } catch {
    // Not JSON: a proxy's page.
  }
  const code: EdgeRequestFailure =
    typeof named === 'string' && AGENT_CODES.has(named)
      ? (named as EdgeRequestFailure)
      : response.status === 404
        ? 'not-found'
        : response.status === 400
          ? 'invalid'
          : response.status === 403
            ? 'unsupported'
            : response.status === 409
              ? 'conflict'
              : 'failed';
  const hint = response.status === 401 ? ' (the agent refused the secret: check DD_AGENT_<NAME>_SECRET)' : '';
  return new EdgeRequestError(code, `${label}: ${message}${hint}`);
}

export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Web fetch says "fetch failed"; the cause names the problem (ECONNREFUSED, a TLS error).
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

/**
 * The raw tar of `GET /api/images/{id}/export`, handed on as the body delivers it; each piece waits
 * for room at the reader (the HTTP connection's own flow control then slows the agent down), and
 * restarts the idle deadline.
 */
async function readExport(response: Response, sink: ChunkSink | undefined, rearm: () => void): Promise<undefined> {
  if (!response.body || !sink) return undefined;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rearm();
      await sink.push(value);
      rearm();
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return undefined;
}
