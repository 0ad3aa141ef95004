import {
  canUpdateContainers,
  DockerConflictError,
  type DockerLogLine,
  type DockerLogOptions,
  DockerNotFoundError,
} from '../../../shared/docker/docker-host';
import type { EdgeRequest, ImageListResult } from '../../../shared/edge/protocol';
import { errorMessage } from '../../../shared/error-message';
import type { LogRing } from '../../../shared/logging/log-ring';
import type { WatcherRuntime } from '../feed/watcher-runtime';
import { shortText } from '../link/frame-checks';
import type { Timers } from '../link/timers';
import type { AgentUpdates } from '../updates/agent-updates';
import { exportImage, pullImage } from './image-export';
import { cutImageList } from './image-list';
import { type EdgeErrorCode, EdgeRequestError } from './request-error';

type EdgeLogOptions = Extract<EdgeRequest, { method: 'container.logs' }>['options'];

export interface RequestContext {
  watcher(name: string): WatcherRuntime | undefined;
  ring: LogRing;
  timers: Timers;
  updates?: AgentUpdates | undefined;
  /** Aborted by a `cancel` of this request, or when the session ends. */
  signal: AbortSignal;
  /** Sends log lines as one `stream` frame of this request, after waiting for room in the send queue. */
  stream(lines: DockerLogLine[]): Promise<void>;
  /** Sends the next `chunk` frame of this export, after waiting for the hub's credit and room in the send queue. */
  chunk(bytes: Uint8Array): Promise<void>;
  /** A fresh observation of the watcher sent as snapshot parts (echoing operationId); resolves when all are sent. */
  inventory(watcher: WatcherRuntime, operationId: string | undefined): Promise<{ syncId: string; containers: number }>;
}

/** What the image requests need of a watcher (a listen-mode agent's watchers serve them too). */
export type ImageWatcher = Pick<WatcherRuntime, 'name' | 'host'>;

/** The abort reason when the session ended rather than the hub cancelling: an update goes on regardless. */
export const SESSION_ENDED = 'the session ended';

/** http-interface §4.6: the entries query returns the last 100 when no tail is given. */
const DEFAULT_LOG_TAIL = 100;
const STREAM_MAX_LINES = 1000;
const STREAM_MAX_BYTES = 512 * 1024;
const STREAM_FLUSH_MS = 50;

/** Runs one hub request; resolves with the reply's result (undefined for none), throws EdgeRequestError. */
export async function runRequest(request: EdgeRequest, context: RequestContext): Promise<unknown> {
  if (request.method === 'log.entries') {
    const entries = context.ring.query({
      level: request.level,
      component: request.component,
      since: request.since,
      tail: request.tail ?? DEFAULT_LOG_TAIL,
    });
    return { entries };
  }
  const watcher = context.watcher(request.watcher);
  if (!watcher) throw new EdgeRequestError('not-found', `no watcher ${request.watcher} on this agent`);
  const { host } = watcher;
  switch (request.method) {
    case 'inventory':
      return context.inventory(watcher, request.operationId);
    case 'container.start':
    case 'container.stop':
    case 'container.restart':
    case 'container.remove': {
      const action = request.method.slice('container.'.length) as 'start' | 'stop' | 'restart' | 'remove';
      await host[action](request.containerId);
      // The changed (or removed) record goes out before the reply (docs/edge-protocol.md).
      await watcher.feed.reportNow(request.containerId);
      return undefined;
    }
    case 'container.stats':
      return host.stats(request.containerId);
    case 'container.logs':
      return void (await streamLogs(watcher, request.containerId, request.options, context));
    case 'image.remove':
      return void (await removeImage(watcher, request.imageId));
    case 'image.list':
      return listImages(watcher);
    case 'image.export':
      return void (await exportImage(watcher, request.imageId, context.signal, context.chunk));
    case 'image.pull':
      return pullImage(watcher, request.reference, request.auth, context.signal);
    case 'container.update': {
      const { updates, signal } = context;
      if (!updates) throw new EdgeRequestError('unsupported', 'this agent does not run updates');
      const cancel = () => {
        if (signal.reason !== SESSION_ENDED) updates.cancel(request.operation.id, 'cancelled by the hub');
      };
      signal.addEventListener('abort', cancel, { once: true });
      try {
        return await updates.run(watcher, request);
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    }
  }
}

/**
 * The hub's prune (docs/edge-protocol.md `image.remove`): never forced, and refused with `conflict`
 * while any container (running or not) was created from the image. Docker refuses that itself for
 * an image id, but a tag of an image with several would only be untagged, so the check is ours.
 */
export async function removeImage(watcher: ImageWatcher, imageId: string): Promise<void> {
  const { host } = watcher;
  if (!canUpdateContainers(host))
    throw new EdgeRequestError('unsupported', `watcher ${watcher.name} cannot remove images`);
  const image = await host.inspectImage(imageId);
  if (!image) return;
  const users = (await host.listContainers(true)).filter((container) => container.imageId === image.id);
  if (users.length > 0) {
    throw new EdgeRequestError(
      'conflict',
      `the image ${imageId} is used by ${users.map((container) => container.name).join(', ')}`,
    );
  }
  try {
    await host.removeImage(imageId);
  } catch (error) {
    // Only this request answers `conflict`: a hub that predates it never asks, so never sees the code.
    if (error instanceof DockerConflictError) throw new EdgeRequestError('conflict', error.message);
    throw error;
  }
}

/** The hub's image list (docs/edge-protocol.md `image.list`): the host's images as Docker lists them, cut to fit a reply. */
export async function listImages(watcher: ImageWatcher): Promise<ImageListResult> {
  const { host } = watcher;
  if (!canUpdateContainers(host))
    throw new EdgeRequestError('unsupported', `watcher ${watcher.name} cannot list images`);
  return cutImageList(await host.listImages());
}

/**
 * Log lines in `stream` frames of at most 1,000 lines and about 512 kB; a partial batch goes out
 * after 50 ms, so a followed log shows up promptly. Each frame waits for room in the send queue,
 * which slows the Docker stream down instead of letting lines pile up in memory.
 */
async function streamLogs(
  watcher: WatcherRuntime,
  id: string,
  options: EdgeLogOptions,
  context: RequestContext,
): Promise<void> {
  const dockerOptions: DockerLogOptions = {
    stdout: options.stdout,
    stderr: options.stderr,
    timestamps: options.timestamps,
    follow: options.follow,
    ...(options.tail !== undefined ? { tail: options.tail } : {}),
    ...(options.since !== undefined ? { since: options.since } : {}),
  };
  let batch: DockerLogLine[] = [];
  let bytes = 0;
  let timer: unknown;
  let chain = Promise.resolve();
  const flush = (): Promise<void> => {
    if (timer !== undefined) context.timers.clearTimeout(timer);
    timer = undefined;
    if (batch.length > 0) {
      const lines = batch;
      batch = [];
      bytes = 0;
      chain = chain.then(() => (context.signal.aborted ? undefined : context.stream(lines)));
    }
    return chain;
  };
  try {
    for await (const line of watcher.host.logs(id, dockerOptions, context.signal)) {
      batch.push(line);
      bytes += line.line.length + 64;
      if (batch.length >= STREAM_MAX_LINES || bytes >= STREAM_MAX_BYTES) await flush();
      else timer ??= context.timers.setTimeout(() => void flush(), STREAM_FLUSH_MS);
    }
  } finally {
    await flush();
  }
}

/** The reply's error for anything a handler threw. */
export function replyError(error: unknown): { code: EdgeErrorCode; message: string } {
  if (error instanceof EdgeRequestError) return { code: error.code, message: shortText(error.message) };
  if (error instanceof DockerNotFoundError) return { code: 'not-found', message: shortText(error.message) };
  return { code: 'failed', message: shortText(errorMessage(error)) };
}
