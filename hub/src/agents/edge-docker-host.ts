import * as v from 'valibot';
import {
  DockerConflictError,
  type DockerContainerDetails,
  type DockerContainerSummary,
  type DockerEventHandlers,
  type DockerHost,
  type DockerImageDetails,
  type DockerLogLine,
  type DockerLogOptions,
  DockerNotFoundError,
  type DockerStats,
  type DockerSubscription,
  type RegistryPullAuth,
} from '../../../shared/docker/docker-host';
import { ImageDetailsSchema, StatsSchema } from '../../../shared/edge/docker-schemas';
import { type EdgeRequest, type ImageListResult, ImageListResultSchema } from '../../../shared/edge/protocol';
import { type UpdateOperation, UpdateOperationSchema } from '../../../shared/update-engine';
import { AgentOperations } from './agent-operations';
import { ChunkQueue } from './chunk-queue';
import { EdgeRequestError, type EdgeRequestOptions } from './edge-requests';
import { LineQueue } from './line-queue';
import type { SharedImages } from './shared-images';

/** What the host needs of the agent's live session; undefined while the agent is away. */
export interface EdgeLink {
  request(request: EdgeRequest, options?: EdgeRequestOptions): Promise<unknown>;
}

export class AgentNotConnectedError extends Error {
  constructor(agentName: string) {
    super(`agent ${agentName} is not connected`);
    this.name = 'AgentNotConnectedError';
  }
}

export interface EdgeDockerHostOptions {
  agentName: string;
  watcherName: string;
  /** Masked endpoint the agent reported (`unix:///var/run/docker.sock`). */
  endpoint: string;
  /** Deadline of a command (start, stop, stats, …); an export's idle deadline. */
  requestTimeoutMs: number;
  /** An export larger than this is stopped (EDGE_EXPORT_MAX_BYTES when absent). */
  exportMaxBytes?: number;
  /** The hub's clock: the time its events carry. */
  now: () => number;
  /** Where agents' identical image descriptions become one object; absent, each host keeps its own. */
  sharedImages?: SharedImages | undefined;
}

type ContainerAction = 'container.start' | 'container.stop' | 'container.restart' | 'container.remove';

/** A followed log whose reader fell this far behind is cut off rather than buffered without end. */
const MAX_BUFFERED_LOG_LINES = 50_000;
/** Chunks of an export the hub lets the agent send ahead of its reader: at most 4 MiB buffered per export. */
export const EXPORT_WINDOW_CHUNKS = 4;
/** No image the hub reads is larger; a larger export is stopped rather than read on and on. */
export const EDGE_EXPORT_MAX_BYTES = 8 * 1024 ** 3;
/** A pull may take minutes (large layers, a slow registry); the scanner waits this long at most. */
const PULL_TIMEOUT_MS = 10 * 60_000;

/**
 * One watcher of an edge agent seen as a Docker host (shared/docker/docker-host.ts), so the hub's
 * ordinary DockerWatcher runs it: reads answer from the inventory the agent keeps current
 * (snapshots and deltas), commands travel as `request` frames. While the agent is away every call
 * throws AgentNotConnectedError, which makes an observation non-authoritative: the last-known
 * records stay.
 */
export class EdgeDockerHost implements DockerHost {
  readonly endpoint: string;
  readonly inspectsInMemory = true;
  private link: EdgeLink | undefined;
  private containers = new Map<string, DockerContainerDetails>();
  private images = new Map<string, DockerImageDetails>();
  /** True once a full snapshot arrived in the current session; reads before that would be partial. */
  private synced = false;
  private readonly listeners = new Set<DockerEventHandlers>();
  private readonly syncWaiters = new Set<() => void>();
  private linkChanges = 0;
  /** The update operations the agent runs on this watcher, as its `operation` frames report them. */
  readonly operations = new AgentOperations();

  constructor(private readonly options: EdgeDockerHostOptions) {
    this.endpoint = options.endpoint;
  }

  get connected(): boolean {
    return this.link !== undefined;
  }

  /** A new session (or none): the inventory must be sent afresh before reads are answered again. */
  setLink(link: EdgeLink | undefined): void {
    this.link = link;
    this.synced = false;
    this.linkChanges += 1;
  }

  /** Counts link changes: a different value means the session a request went out on is gone. */
  get linkGeneration(): number {
    return this.linkChanges;
  }

  /**
   * True once this session's first snapshot arrived. The agent reports every operation it knows
   * right after the welcome, before any snapshot, so by then an operation it has not reported is
   * one it never received (or forgot long ago).
   */
  get inventorySynced(): boolean {
    return this.synced;
  }

  /** A complete snapshot replaces the whole inventory. No events: the caller runs one full observation. */
  applySnapshot(containers: readonly DockerContainerDetails[], images: readonly DockerImageDetails[]): void {
    // Images first: a container's image id is then the shared image's own string.
    this.images = new Map(images.map((image) => [image.id, this.shared(image)]));
    this.containers = new Map(containers.map((container) => [container.id, this.sharedTexts(container)]));
    this.synced = true;
    const waiters = [...this.syncWaiters];
    this.syncWaiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves true at the next complete snapshot, false if `signal` aborts first. */
  nextSnapshot(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      const onAbort = () => {
        this.syncWaiters.delete(wake);
        resolve(false);
      };
      this.syncWaiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  applyChanged(container: DockerContainerDetails, image: DockerImageDetails | undefined): void {
    if (image) this.images.set(image.id, this.shared(image));
    this.containers.set(container.id, this.sharedTexts(container));
    this.emit(container.id, 'changed');
  }

  applyRemoved(containerId: string): void {
    this.containers.delete(containerId);
    this.emit(containerId, 'removed');
  }

  applyOperation(operation: UpdateOperation): void {
    this.operations.apply(operation);
  }

  /**
   * Has the agent run the update engine on this watcher (`container.update`); resolves with the
   * settled operation. No deadline: a health gate may take minutes, and the phases arrive meanwhile
   * as `operation` frames. Rejects with EdgeRequestError (`disconnected`, `aborted`, the agent's codes).
   */
  async runUpdate(
    operation: UpdateOperation,
    options: Extract<EdgeRequest, { method: 'container.update' }>['options'],
    signal: AbortSignal,
  ): Promise<UpdateOperation> {
    const result = await this.requireLink().request(
      { method: 'container.update', watcher: this.options.watcherName, operation, options },
      { signal },
    );
    const parsed = v.safeParse(UpdateOperationSchema, result);
    if (!parsed.success) throw new Error(`agent ${this.options.agentName}: malformed update reply`);
    this.operations.apply(parsed.output);
    return parsed.output;
  }

  /** Counts of the inventory as the agent reported it. */
  inventory(): DockerContainerDetails[] {
    return [...this.containers.values()];
  }

  async ping(): Promise<void> {
    this.readable();
  }

  async listContainers(all: boolean): Promise<DockerContainerSummary[]> {
    this.readable();
    const listed: DockerContainerSummary[] = [];
    for (const {
      env: _env,
      health: _health,
      startedAt: _startedAt,
      restartCount: _restarts,
      ...summary
    } of this.containers.values()) {
      if (all || summary.state === 'running') listed.push(summary);
    }
    return listed;
  }

  async inspectContainer(id: string): Promise<DockerContainerDetails | undefined> {
    this.readable();
    return this.containers.get(id);
  }

  async inspectImage(id: string): Promise<DockerImageDetails | undefined> {
    this.readable();
    return this.images.get(id);
  }

  subscribeEvents(handlers: DockerEventHandlers): DockerSubscription {
    // The deltas arrive over the session; there is no stream of our own to fail, so onClose is never called.
    this.listeners.add(handlers);
    return { close: () => this.listeners.delete(handlers) };
  }

  start(id: string): Promise<void> {
    return this.act('container.start', id);
  }

  stop(id: string): Promise<void> {
    return this.act('container.stop', id);
  }

  restart(id: string): Promise<void> {
    return this.act('container.restart', id);
  }

  remove(id: string): Promise<void> {
    return this.act('container.remove', id);
  }

  /**
   * Has the agent remove an image (`image.remove`, never forced): DockerConflictError while a
   * container of the agent's host uses it, as a local host answers Docker's 409; gone already is
   * not an error. The inventory forgets it at once.
   */
  async removeImage(imageId: string): Promise<void> {
    try {
      await this.requireLink().request(
        { method: 'image.remove', watcher: this.options.watcherName, imageId },
        { timeoutMs: this.options.requestTimeoutMs },
      );
    } catch (error) {
      if (error instanceof EdgeRequestError && error.code === 'conflict') throw new DockerConflictError(error.message);
      if (error instanceof EdgeRequestError && error.code === 'disconnected')
        throw new AgentNotConnectedError(this.options.agentName);
      throw error;
    }
    this.images.delete(imageId);
  }

  /**
   * The images of the agent's host as its Docker lists them (`image.list`), cut by the agent at
   * EDGE_IMAGE_LIST_MAX (`truncated`). An agent that predates the request answers `unsupported`
   * (EdgeRequestError); a listen-mode agent has no such call and answers nothing usable.
   */
  async listImages(): Promise<ImageListResult> {
    let result: unknown;
    try {
      result = await this.requireLink().request(
        { method: 'image.list', watcher: this.options.watcherName },
        { timeoutMs: this.options.requestTimeoutMs },
      );
    } catch (error) {
      if (error instanceof EdgeRequestError && error.code === 'disconnected')
        throw new AgentNotConnectedError(this.options.agentName);
      throw error;
    }
    const parsed = v.safeParse(ImageListResultSchema, result);
    if (!parsed.success) throw new Error(`agent ${this.options.agentName}: no usable image list in its reply`);
    return parsed.output;
  }

  /**
   * The image as the agent's Docker saves it (`image.export`): chunk frames under the hub's credit,
   * granted as this iterable is read (ChunkQueue), so a slow reader slows the agent's Docker read
   * down instead of filling memory. Leaving the loop early, or `signal`, cancels the agent's read.
   * DockerNotFoundError when the image is gone; an agent that predates the request answers
   * `unsupported` (EdgeRequestError).
   */
  async *exportImage(imageId: string, signal: AbortSignal): AsyncIterable<Uint8Array> {
    const link = this.requireLink();
    const queue = new ChunkQueue(EXPORT_WINDOW_CHUNKS);
    const stop = new AbortController();
    const abort = () => stop.abort();
    signal.addEventListener('abort', abort, { once: true });
    link
      .request(
        { method: 'image.export', watcher: this.options.watcherName, imageId, credit: EXPORT_WINDOW_CHUNKS },
        { timeoutMs: this.options.requestTimeoutMs, idle: true, signal: stop.signal, chunks: queue },
      )
      .then(
        () => queue.end(),
        (error: unknown) => queue.fail(this.translate(error, imageId, 'image')),
      );
    const maxBytes = this.options.exportMaxBytes ?? EDGE_EXPORT_MAX_BYTES;
    let total = 0;
    try {
      for await (const chunk of queue) {
        total += chunk.length;
        if (total > maxBytes)
          throw new Error(`agent ${this.options.agentName}: the export of ${imageId} exceeds ${maxBytes} bytes`);
        yield chunk;
      }
    } finally {
      signal.removeEventListener('abort', abort);
      // The reader left early (done, failed, or gave up): the agent stops reading Docker.
      stop.abort();
    }
  }

  /**
   * Pulls an image on the agent's host (`image.pull`) with the hub's credentials for it, as an
   * update would; answers the pulled image. The scanner reads an update candidate this way.
   */
  async pullImage(reference: string, auth?: RegistryPullAuth): Promise<DockerImageDetails> {
    const result = await this.call(
      { method: 'image.pull', watcher: this.options.watcherName, reference, ...(auth && { auth }) },
      { timeoutMs: PULL_TIMEOUT_MS },
      reference,
      'image',
    );
    const parsed = v.safeParse(ImageDetailsSchema, result);
    if (!parsed.success) throw new Error(`agent ${this.options.agentName}: malformed pull reply`);
    this.images.set(parsed.output.id, this.shared(parsed.output));
    return parsed.output;
  }

  async stats(id: string): Promise<DockerStats> {
    const result = await this.call(
      { method: 'container.stats', watcher: this.options.watcherName, containerId: id },
      { timeoutMs: this.options.requestTimeoutMs },
      id,
    );
    const parsed = v.safeParse(StatsSchema, result);
    if (!parsed.success) throw new Error(`agent ${this.options.agentName}: malformed stats reply`);
    return parsed.output;
  }

  async *logs(id: string, options: DockerLogOptions, signal: AbortSignal): AsyncIterable<DockerLogLine> {
    const link = this.requireLink();
    const queue = new LineQueue<DockerLogLine>(MAX_BUFFERED_LOG_LINES);
    const stop = new AbortController();
    const abort = () => stop.abort();
    signal.addEventListener('abort', abort, { once: true });
    const request: EdgeRequest = {
      method: 'container.logs',
      watcher: this.options.watcherName,
      containerId: id,
      options: { ...options },
    };
    link
      .request(request, {
        // A followed log may stay quiet for hours; a one-off read must keep moving.
        timeoutMs: options.follow ? undefined : this.options.requestTimeoutMs,
        idle: true,
        signal: stop.signal,
        onStream: (lines) => {
          if (!queue.push(lines)) stop.abort();
        },
      })
      .then(
        () => queue.end(),
        (error: unknown) => queue.fail(this.translate(error, id)),
      );
    try {
      for await (const line of queue) yield line;
    } finally {
      signal.removeEventListener('abort', abort);
      // The reader left early (client gone, download cancelled): the agent stops reading Docker.
      stop.abort();
    }
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private async act(method: ContainerAction, id: string): Promise<void> {
    await this.call(
      { method, watcher: this.options.watcherName, containerId: id },
      { timeoutMs: this.options.requestTimeoutMs },
      id,
    );
  }

  private async call(
    request: EdgeRequest,
    options: EdgeRequestOptions,
    containerId: string,
    what: 'container' | 'image' = 'container',
  ): Promise<unknown> {
    const link = this.requireLink();
    try {
      return await link.request(request, options);
    } catch (error) {
      throw this.translate(error, containerId, what);
    }
  }

  private translate(error: unknown, id: string, what: 'container' | 'image' = 'container'): Error {
    if (error instanceof EdgeRequestError) {
      if (error.code === 'not-found') return new DockerNotFoundError(`${what} ${id.slice(0, 80)}`);
      if (error.code === 'disconnected') return new AgentNotConnectedError(this.options.agentName);
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  private shared(image: DockerImageDetails): DockerImageDetails {
    return this.options.sharedImages?.share(image) ?? image;
  }

  private sharedTexts(container: DockerContainerDetails): DockerContainerDetails {
    return this.options.sharedImages?.shareTexts(container) ?? container;
  }

  private requireLink(): EdgeLink {
    if (!this.link) throw new AgentNotConnectedError(this.options.agentName);
    return this.link;
  }

  private readable(): void {
    this.requireLink();
    if (!this.synced)
      throw new Error(`agent ${this.options.agentName} has not sent the inventory of ${this.options.watcherName} yet`);
  }

  private emit(id: string, action: string): void {
    const event = { id, action, time: this.options.now(), attributes: {} };
    for (const listener of this.listeners) listener.onEvent(event);
  }
}
