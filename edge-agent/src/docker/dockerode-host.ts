/**
 * The DockerHost over the real Engine API, through dockerode (the only module that imports it).
 * Seen against dockerd 20.10 (API 1.41): see dockerode-host.test.ts for the behaviour it relies on.
 */
import type { IncomingMessage } from 'node:http';
import type DockerModem from 'docker-modem';
import Docker from 'dockerode';
import {
  type ContainerSpec,
  DockerConflictError,
  type DockerContainerDetails,
  type DockerContainerSummary,
  type DockerEventHandlers,
  type DockerImageDetails,
  type DockerImageSummary,
  type DockerLogLine,
  type DockerLogOptions,
  DockerNotFoundError,
  type DockerStats,
  type DockerSubscription,
  type RegistryPullAuth,
  type UpdatableDockerHost,
} from '../../../shared/docker/docker-host';
import { pullReference, splitReference } from '../../../shared/docker/image-names';
import { errorMessage } from '../../../shared/error-message';
import {
  endpointOf,
  type InspectedContainer,
  type RawConfig,
  toContainerSpec,
  toCreateRequest,
} from './container-spec';
import {
  EVENT_FILTERS,
  toContainerEvent,
  toDetails,
  toImageDetails,
  toImageSummary,
  toStats,
  toSummary,
} from './engine-mapping';
import { demultiplex, jsonLines, logLines, rawFrames } from './engine-streams';
import type { ListingPrefetch } from './listing-prefetch';

export interface DockerHostOptions {
  /** Default `/var/run/docker.sock` when no `host` is given. */
  socketPath?: string;
  /** A TCP Engine (`dockerd -H tcp://…`); takes precedence over socketPath. */
  host?: string;
  /** Default 2375, or 2376 for https. */
  port?: number;
  protocol?: 'http' | 'https';
  /** The first listing, asked for already (listing-prefetch.ts): used if it is of this socket and asks the same. */
  listing?: ListingPrefetch | undefined;
}

// Container ids and names; anything else (a `/` or `..` above all) would address another endpoint.
const CONTAINER_REF = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
// Image ids and references (`ghcr.io/a/b:1.2@sha256:…`), without path traversal.
const IMAGE_REF = /^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9][A-Za-z0-9_.:/@-]*$/;

export function createDockerHost(options: DockerHostOptions = {}): UpdatableDockerHost {
  return new DockerodeHost(options);
}

/** A dockerode client for the Engine the options name, and that Engine as logs show it. */
export function createEngineClient(options: DockerHostOptions): { docker: Docker; endpoint: string } {
  const https = options.protocol === 'https';
  const port = options.port ?? (https ? 2376 : 2375);
  const socketPath = options.host ? undefined : (options.socketPath ?? '/var/run/docker.sock');
  const endpoint = socketPath ? `unix://${socketPath}` : `${https ? 'https' : 'tcp'}://${options.host}:${port}`;
  // Every key is set, undefined included: docker-modem fills unset keys from DOCKER_HOST and
  // DOCKER_CERT_PATH, which would silently send this host's calls to another Engine.
  const modem: DockerModem.ConstructorOptions = {
    socketPath,
    host: socketPath ? undefined : options.host,
    port: socketPath ? undefined : port,
    protocol: https ? 'https' : 'http',
    ca: undefined,
    cert: undefined,
    key: undefined,
    timeout: undefined,
    // No agent of its own: docker-modem util.inspect()s the request options on every call, debug
    // off or not, and an Agent with open sockets made that cost 1 to 15 ms of CPU per request.
    // Node's global agent keeps connections alive, and its idle sockets never hold the process.
  };
  return { docker: new Docker(modem as Docker.DockerOptions), endpoint };
}

class DockerodeHost implements UpdatableDockerHost {
  readonly endpoint: string;
  readonly eventsCoverChanges = true;
  /** `Config.Image` of the containers the listing names by image id (see summaryOf). */
  private readonly createdWith = new Map<string, string>();
  private readonly docker: Docker;
  /** The streams open now (events, logs): close() aborts them. */
  private readonly streams = new Set<AbortController>();
  private closed = false;
  private prefetched: ListingPrefetch | undefined;

  constructor(options: DockerHostOptions) {
    const { docker, endpoint } = createEngineClient(options);
    this.endpoint = endpoint;
    this.docker = docker;
    const { listing } = options;
    if (listing && endpoint === `unix://${listing.socketPath}`) this.prefetched = listing;
    else listing?.discard();
  }

  async ping(): Promise<void> {
    await this.call('ping', () => this.docker.ping());
  }

  async listContainers(all: boolean): Promise<DockerContainerSummary[]> {
    const entries = await this.call('list containers', () => this.listEntries(all));
    const summaries = await Promise.all(entries.map((entry) => this.summaryOf(entry)));
    // Only listed containers are remembered (one not listed costs one inspect if it comes back).
    const listed = new Set(entries.map((entry) => entry.Id));
    for (const id of this.createdWith.keys()) if (!listed.has(id)) this.createdWith.delete(id);
    return summaries;
  }

  /** The prefetched listing if it asked the same (once); else, or when it failed, the Engine's answer now. */
  private listEntries(all: boolean): Promise<Docker.ContainerInfo[]> {
    const prefetched = this.prefetched;
    this.prefetched = undefined;
    if (!prefetched || prefetched.all !== all) {
      prefetched?.discard();
      return this.docker.listContainers({ all });
    }
    const listed = prefetched.take() as Promise<Docker.ContainerInfo[]>;
    return listed.catch(() => this.docker.listContainers({ all }));
  }

  /**
   * The list names a container's image by id instead of `Config.Image` once that reference points
   * to another image (a newer pull of the same tag: the very case an update monitor looks for).
   * Only then is the container inspected for the name it was created with, once: a container's
   * `Config.Image` never changes, so later listings take it from `createdWith`.
   */
  private async summaryOf(entry: Docker.ContainerInfo): Promise<DockerContainerSummary> {
    const summary = toSummary(entry);
    if (!summary.image.startsWith('sha256:') && summary.image !== summary.imageId) return summary;
    const known = this.createdWith.get(summary.id);
    if (known) return { ...summary, image: known };
    const details = await this.inspectContainer(summary.id);
    if (!details) return summary;
    this.createdWith.set(summary.id, details.image);
    return { ...summary, image: details.image };
  }

  async inspectContainer(id: string): Promise<DockerContainerDetails | undefined> {
    if (!CONTAINER_REF.test(id)) return undefined;
    const info = await this.call(`inspect ${id}`, () => this.docker.getContainer(id).inspect(), {
      notFound: () => undefined,
    });
    return info && toDetails(info);
  }

  async inspectImage(id: string): Promise<DockerImageDetails | undefined> {
    if (!IMAGE_REF.test(id)) return undefined;
    const info = await this.call(`inspect image ${id}`, () => this.docker.getImage(id).inspect(), {
      notFound: () => undefined,
    });
    return info && toImageDetails(info);
  }

  subscribeEvents(handlers: DockerEventHandlers): DockerSubscription {
    const tracked = this.track();
    void this.pumpEvents(handlers, tracked.signal).finally(tracked.release);
    // After close() no handler is called again: the caller asked for the end, it needs no report of it.
    return { close: () => tracked.abort() };
  }

  /**
   * Container lifecycle events only (EVENT_FILTERS): health checks alone would otherwise send three
   * exec events per probe and container. A clean end of the stream is reported as an error too: the
   * stream is endless, so it ends only when the Engine goes away. An onEvent that throws ends the
   * subscription the same way instead of taking the process down.
   */
  private async pumpEvents(handlers: DockerEventHandlers, signal: AbortSignal): Promise<void> {
    // Replayed from the moment of subscribing, so events between this call and the stream's first
    // byte are not lost (the Engine keeps its recent events). Date.now() / 1000 prints at most ms.
    const since = Date.now() / 1000;
    let stream: IncomingMessage | undefined;
    let failure: Error;
    try {
      const options = { since, filters: EVENT_FILTERS, abortSignal: signal } as Docker.GetEventsOptions;
      stream = (await this.docker.getEvents(options)) as IncomingMessage;
      for await (const message of jsonLines(stream)) {
        if (signal.aborted) return;
        handlers.onEvent(toContainerEvent(message));
      }
      failure = this.fail('events', new Error('the event stream ended'));
    } catch (error) {
      failure = this.fail('events', error);
    } finally {
      stream?.destroy();
    }
    if (!signal.aborted) handlers.onClose(failure);
  }

  /** Ends quietly when the signal aborts (or the host closes); a failure of the stream itself is thrown. */
  async *logs(id: string, options: DockerLogOptions, signal: AbortSignal): AsyncGenerator<DockerLogLine> {
    const tracked = this.track(signal);
    try {
      const logs = await this.openLogs(id, options, tracked.signal);
      if (!logs) return;
      const { stream, tty } = logs;
      tracked.signal.addEventListener('abort', () => stream.destroy(), { once: true });
      try {
        // A TTY merges stdout and stderr into one raw stream; without one Docker multiplexes them.
        yield* logLines(tty ? rawFrames(stream) : demultiplex(stream), {
          timestamps: options.timestamps,
          framed: !tty,
        });
      } catch (error) {
        if (!tracked.signal.aborted) throw this.fail(`logs ${id}`, error);
      } finally {
        stream.destroy();
      }
    } finally {
      tracked.release();
    }
  }

  /** `docker save` of one image, streamed as the Engine sends it; an abort ends it quietly. */
  async *exportImage(imageId: string, signal: AbortSignal): AsyncGenerator<Uint8Array> {
    const missing = () => new DockerNotFoundError(`docker(${this.endpoint}): image ${imageId}`);
    if (!IMAGE_REF.test(imageId)) throw missing();
    // Docker 20.10 answers a missing image's export with 500, not 404: ask first.
    const known = await this.call(`inspect ${imageId}`, () => this.docker.getImage(imageId).inspect(), {
      notFound: () => undefined,
    });
    if (!known) throw missing();
    const tracked = this.track(signal);
    try {
      let stream: IncomingMessage;
      try {
        stream = await this.openStream(`/images/${encodeURIComponent(imageId)}/get?`, {}, tracked.signal);
      } catch (error) {
        if (tracked.signal.aborted) return;
        if (statusOf(error) === 404) throw missing();
        throw this.fail(`export ${imageId}`, error);
      }
      tracked.signal.addEventListener('abort', () => stream.destroy(), { once: true });
      try {
        for await (const chunk of stream) yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      } catch (error) {
        if (!tracked.signal.aborted) throw this.fail(`export ${imageId}`, error);
      } finally {
        stream.destroy();
      }
    } finally {
      tracked.release();
    }
  }

  /** Undefined when aborted before the stream opened. */
  private async openLogs(id: string, options: DockerLogOptions, signal: AbortSignal) {
    if (!CONTAINER_REF.test(id)) throw this.notFound(id);
    const info = await this.call(`logs ${id}`, () => this.docker.getContainer(id).inspect(), {
      notFound: () => undefined,
    });
    if (!info) throw this.notFound(id);
    const query = {
      follow: options.follow,
      stdout: options.stdout,
      stderr: options.stderr,
      timestamps: options.timestamps,
      tail: options.tail ?? 'all',
      ...(options.since !== undefined ? { since: options.since } : {}),
    };
    try {
      const stream = await this.openStream(`/containers/${id}/logs?`, query, signal);
      return { stream, tty: info.Config?.Tty === true };
    } catch (error) {
      if (signal.aborted) return undefined;
      throw statusOf(error) === 404 ? this.notFound(id) : this.fail(`logs ${id}`, error);
    }
  }

  /**
   * A stream's own abort controller, also aborted by `outer` and by close(). Plain listeners rather
   * than AbortSignal.any, and released when the stream ends, so a long-lived host or caller signal
   * never accumulates references to finished streams.
   */
  private track(outer?: AbortSignal): { signal: AbortSignal; abort(): void; release(): void } {
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (this.closed || outer?.aborted) abort();
    outer?.addEventListener('abort', abort, { once: true });
    this.streams.add(controller);
    const release = () => {
      outer?.removeEventListener('abort', abort);
      this.streams.delete(controller);
    };
    return { signal: controller.signal, abort, release };
  }

  /** dockerode buffers non-following logs whole; a raw dial streams them either way. */
  private openStream(path: string, query: Record<string, unknown>, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const statusCodes = { 200: true, 404: 'no such container', 500: 'server error' };
      this.docker.modem.dial(
        { path, method: 'GET', options: query, isStream: true, abortSignal: signal, statusCodes },
        (error, result) => (error ? reject(error) : resolve(result as IncomingMessage)),
      );
    });
  }

  start(id: string): Promise<void> {
    return this.lifecycle('start', id, (container) => container.start());
  }

  stop(id: string): Promise<void> {
    return this.lifecycle('stop', id, (container) => container.stop());
  }

  restart(id: string): Promise<void> {
    return this.lifecycle('restart', id, (container) => container.restart());
  }

  remove(id: string): Promise<void> {
    return this.lifecycle('remove', id, (container) => container.remove());
  }

  async stats(id: string): Promise<DockerStats> {
    if (!CONTAINER_REF.test(id)) throw this.notFound(id);
    // Not one-shot: the Engine then waits for a second sample, which the CPU share is computed from.
    const stats = await this.call(`stats ${id}`, () => this.docker.getContainer(id).stats({ stream: false }), {
      notFound: () => {
        throw this.notFound(id);
      },
    });
    return toStats(stats);
  }

  async pullImage(reference: string, auth?: RegistryPullAuth, signal?: AbortSignal): Promise<DockerImageDetails> {
    const target = pullReference(reference);
    if (!IMAGE_REF.test(target))
      throw new Error(`docker(${this.endpoint}): pull: not an image reference: ${reference.slice(0, 200)}`);
    const authconfig = auth && { username: auth.username, password: auth.password, serveraddress: auth.serverAddress };
    const stopped = () => new Error(`docker(${this.endpoint}): pull ${target}: stopped before it finished`);
    if (signal?.aborted) throw stopped();
    // The signal closes the request: the wait ends here (dockerd carries on with a pull whose client
    // left, up to its own registry timeouts: agent-security-scan.test.ts saw it wait 40 s for a manifest).
    const stream = (await this.call(`pull ${target}`, () =>
      this.docker.pull(target, { ...(authconfig && { authconfig }), ...(signal && { abortSignal: signal }) }),
    )) as IncomingMessage;
    // The Engine answers 200 at once and reports a failed pull as the last progress message.
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(
        stream,
        (error: Error | null, messages: Array<{ error?: string; errorDetail?: { message?: string } }>) => {
          // A closed stream also ends "without error": an aborted pull is not a finished one.
          if (signal?.aborted) return reject(stopped());
          const failed = error?.message ?? messages.find((message) => message.error)?.error;
          if (failed) reject(this.fail(`pull ${target}`, new Error(failed)));
          else resolve();
        },
      );
    });
    const pulled = await this.inspectImage(target);
    if (!pulled) throw new Error(`docker(${this.endpoint}): pull ${target}: the image is not there after the pull`);
    return pulled;
  }

  async tagImage(imageId: string, reference: string): Promise<void> {
    const { repository, tag = 'latest' } = splitReference(reference);
    if (!IMAGE_REF.test(imageId) || !IMAGE_REF.test(repository))
      throw new Error(`docker(${this.endpoint}): tag: bad reference`);
    await this.call(
      `tag ${imageId} as ${reference}`,
      () => this.docker.getImage(imageId).tag({ repo: repository, tag }),
      {
        notFound: () => {
          throw new DockerNotFoundError(`docker(${this.endpoint}): image ${imageId}`);
        },
      },
    );
  }

  async inspectContainerSpec(id: string): Promise<ContainerSpec | undefined> {
    if (!CONTAINER_REF.test(id)) return undefined;
    const info = await this.call(`inspect ${id}`, () => this.docker.getContainer(id).inspect(), {
      notFound: () => undefined,
    });
    if (!info) return undefined;
    // The image's own configuration tells what the container set explicitly; a missing image (it
    // cannot be removed while the container exists, but an Engine may still say so) makes all of it explicit.
    const image = await this.call(`inspect image ${info.Image}`, () => this.docker.getImage(info.Image).inspect(), {
      notFound: () => undefined,
    });
    return toContainerSpec(info as unknown as InspectedContainer, image?.Config as RawConfig | undefined);
  }

  /** Created with its first network, then connected to the others; a failed connect removes it again. */
  async createContainer(spec: ContainerSpec): Promise<string> {
    if (!CONTAINER_REF.test(spec.name))
      throw new Error(`docker(${this.endpoint}): create: bad container name ${spec.name.slice(0, 100)}`);
    const { body, laterNetworks } = toCreateRequest(spec);
    const created = await this.call(
      `create ${spec.name}`,
      () => this.docker.createContainer({ ...body, name: spec.name } as Docker.ContainerCreateOptions),
      {
        conflict: () => {
          throw new DockerConflictError(`docker(${this.endpoint}): create: the name ${spec.name} is taken`);
        },
      },
    );
    try {
      for (const network of laterNetworks) {
        const EndpointConfig = endpointOf(network);
        await this.call(`connect ${spec.name} to ${network.name}`, () =>
          this.docker.getNetwork(network.name).connect({ Container: created.id, EndpointConfig }),
        );
      }
    } catch (error) {
      await this.forceRemoveContainer(created.id).catch(() => undefined);
      throw error;
    }
    return created.id;
  }

  async renameContainer(id: string, name: string): Promise<void> {
    if (!CONTAINER_REF.test(id)) throw this.notFound(id);
    if (!CONTAINER_REF.test(name))
      throw new Error(`docker(${this.endpoint}): rename: bad container name ${name.slice(0, 100)}`);
    await this.call(`rename ${id} to ${name}`, () => this.docker.getContainer(id).rename({ name }), {
      notFound: () => {
        throw this.notFound(id);
      },
      conflict: () => {
        throw new DockerConflictError(`docker(${this.endpoint}): rename ${id}: the name ${name} is taken`);
      },
    });
  }

  /** Volumes are never removed with it (`v` false): a new container may be using them. */
  async forceRemoveContainer(id: string): Promise<void> {
    if (!CONTAINER_REF.test(id)) return;
    await this.call(`remove ${id}`, () => this.docker.getContainer(id).remove({ force: true, v: false }), {
      notFound: () => undefined,
    });
  }

  async listImages(): Promise<DockerImageSummary[]> {
    const images = await this.call('list images', () => this.docker.listImages({ all: false }));
    return images.map(toImageSummary);
  }

  async removeImage(reference: string): Promise<void> {
    if (!IMAGE_REF.test(reference)) return;
    await this.call(`remove image ${reference}`, () => this.docker.getImage(reference).remove(), {
      notFound: () => undefined,
      conflict: () => {
        throw new DockerConflictError(`docker(${this.endpoint}): the image ${reference} is in use`);
      },
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.prefetched?.discard();
    for (const controller of this.streams) controller.abort();
  }

  /** 304 ("already started", "already stopped") is the state the caller asked for, not a failure. */
  private async lifecycle(
    operation: string,
    id: string,
    action: (container: Docker.Container) => Promise<unknown>,
  ): Promise<void> {
    if (!CONTAINER_REF.test(id)) throw this.notFound(id);
    await this.call(`${operation} ${id}`, () => action(this.docker.getContainer(id)), {
      notFound: () => {
        throw this.notFound(id);
      },
      notModified: () => undefined,
    });
  }

  private async call<T, F = never>(
    operation: string,
    run: () => Promise<T>,
    on: { notFound?: () => F; notModified?: () => F; conflict?: () => F } = {},
  ): Promise<T | F> {
    try {
      return await run();
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 && on.notFound) return on.notFound();
      if (status === 409 && on.conflict) return on.conflict();
      if (status === 304 && on.notModified) return on.notModified();
      throw this.fail(operation, error);
    }
  }

  private notFound(id: string): DockerNotFoundError {
    return new DockerNotFoundError(`docker(${this.endpoint}): container ${id}`);
  }

  /** The message names the Engine and the operation; dockerode's own message says what went wrong. */
  private fail(operation: string, error: unknown): Error {
    const message = errorMessage(error);
    return new Error(`docker(${this.endpoint}): ${operation}: ${message.trim()}`, { cause: error });
  }
}

function statusOf(error: unknown): number | undefined {
  const status =
    typeof error === 'object' && error !== null ? (error as { statusCode?: unknown }).statusCode : undefined;
  return typeof status === 'number' ? status : undefined;
}
