import type { WSContext, WSEvents } from 'hono/ws';
import { type DockerLogLine, type DockerLogOptions, DockerNotFoundError } from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { type ContainerLogFrame, LOG_STREAM_CLOSE } from '../../../shared/schemas/container-log-stream';
import { HttpError } from '../http/http-error';
import { qBool, qInt } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { WebSocketGate } from '../http/websocket-upgrade';
import type { ContainerStore } from '../store/container-store';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { acceptsGzip, logFileName, logText, qSince } from './container-log-query';
import { actionableWatcherOf, type ContainerHosts, findContainer, watcherOf } from './container-target';

const MAX_TAIL = 100_000;
const streamParams = {
  stdout: qBool({ default: true, description: 'Include standard output' }),
  stderr: qBool({ default: true, description: 'Include standard error' }),
  since: qSince(),
};
// A socket's unsent bytes beyond this pause the Docker stream until the client catches up.
const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;
const DRAIN_POLL_MS = 25;
// A follow on a paused container is still a live log: it resumes with the container.
const LIVE_STATES = new Set(['running', 'paused']);

/** CompressionStream's writable side is typed BufferSource, which a Uint8Array stream is. */
function gzipped(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return stream.pipeThrough(new CompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
}

function requireOneStream(query: { stdout: boolean; stderr: boolean }): void {
  if (!query.stdout && !query.stderr)
    throw new HttpError(400, 'Choose at least one of stdout and stderr', { parameter: 'stdout' });
}

/**
 * Waits while the socket holds more than the high-water mark. Only where the runtime's socket
 * reports bufferedAmount (ws on Node does); there is no portable drain event, hence the polling.
 */
async function drained(ws: WSContext, signal: AbortSignal): Promise<void> {
  const raw = ws.raw as { bufferedAmount?: unknown } | undefined;
  while (!signal.aborted && typeof raw?.bufferedAmount === 'number' && raw.bufferedAmount > SOCKET_HIGH_WATER_BYTES) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  }
}

/** Container logs: the records, the hosts that read them, and the WebSocket gate of the live stream. */
export interface ContainerLogRoutesDeps extends ContainerHosts {
  webSockets: WebSocketGate;
  containers: Pick<ContainerStore, 'get'>;
  logger: Logger;
}

/** GET /containers/{id}/logs (a text file) and WS /containers/{id}/logs/stream (http-interface §4.8). */
export function registerContainerLogRoutes(api: RouteGroup, deps: ContainerLogRoutesDeps): void {
  const logger = deps.logger.child('containers.logs');

  api.add(
    {
      method: 'get',
      path: '/containers/:id/logs',
      access: 'read',
      tag: 'containers',
      summary: 'The container log as a text file attachment; gzip when Accept-Encoding asks',
      query: {
        ...streamParams,
        tail: qInt({ min: 0, max: MAX_TAIL, default: 1000, description: 'Most recent lines' }),
        timestamps: qBool({ default: true, description: "Prefix each line with Docker's timestamp" }),
      },
      statuses: {
        400: 'Invalid query',
        404: 'Unknown container, or gone from Docker',
        409: 'A record of a watcher type without container actions (swarm, file, dockerfile)',
        500: 'Docker failed',
        503: 'Its watcher is not available',
      },
    },
    async (c, { query }) => {
      requireOneStream(query);
      const container = findContainer(deps.containers, c.req.param('id') ?? '');
      const watcher = actionableWatcherOf(deps, container);
      const gzip = acceptsGzip(c.req.header('accept-encoding'));
      const headers: Record<string, string> = {
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Disposition': `attachment; filename="${logFileName(container.name)}"`,
        'Cache-Control': 'no-store',
        Vary: 'Accept-Encoding',
        ...(gzip && { 'Content-Encoding': 'gzip' }),
      };
      // Hono answers HEAD from this handler and drops the body unread: open no Docker stream for it.
      if (c.req.method === 'HEAD') return c.body(null, 200, headers);
      const controller = new AbortController();
      // Timestamps always: they cost nothing and the prefix is written here, not by Docker.
      const options: DockerLogOptions = { ...query, timestamps: true, follow: false };
      const lines = watcher.host.logs(container.id, options, controller.signal)[Symbol.asyncIterator]();
      let first: IteratorResult<DockerLogLine>;
      try {
        // Before any header: an unknown container or a Docker failure still gets a JSON error.
        first = await lines.next();
      } catch (error) {
        if (error instanceof DockerNotFoundError)
          throw new HttpError(404, `The container ${container.name} no longer exists in Docker`);
        logger.warn('log download failed', { container: container.name, error: errorMessage(error) });
        throw new HttpError(500, 'Docker could not read the container log', { reason: errorMessage(error) });
      }
      const text = logText(lines, first, {
        timestamps: query.timestamps,
        onCancel: () => controller.abort(),
        onError: (error) =>
          logger.warn('log download cut short', { container: container.name, error: errorMessage(error) }),
      });
      return c.body(gzip ? gzipped(text) : text, 200, headers);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/containers/:id/logs/stream',
      access: 'session',
      tag: 'containers',
      websocket: true,
      summary:
        'WebSocket: the container log as JSON frames {type, ts, line}; closes 1000 at the end, 4001 not running, 4004 not found, 1011 on failure',
      query: {
        ...streamParams,
        tail: qInt({ min: 0, max: MAX_TAIL, default: 100, description: 'Most recent lines before live ones' }),
        follow: qBool({ default: true, description: 'Keep streaming new lines; false fetches once and closes' }),
      },
      statuses: { 400: 'Invalid query', 403: 'Origin does not match the server', 426: 'Not a WebSocket upgrade' },
    },
    (c, { query }) => {
      const upgrade = deps.webSockets.accept(c);
      requireOneStream(query);
      return upgrade(c, logStreamSession(deps, c.req.param('id') ?? '', { ...query, timestamps: true }));
    },
  );
}

/**
 * One socket's session. The id is resolved once the socket is open, so an unknown container is
 * told apart by its close code (4004) as http-interface §4.8 lists it, not by a refused upgrade.
 */
function logStreamSession(
  deps: Pick<ContainerLogRoutesDeps, 'containers' | 'logger' | 'fleet' | 'agents'>,
  id: string,
  options: DockerLogOptions,
): WSEvents {
  const logger = deps.logger.child('containers.logs');
  const controller = new AbortController();
  const { signal } = controller;

  async function pump(ws: WSContext): Promise<void> {
    const close = (code: number, reason: string) => {
      if (!signal.aborted && ws.readyState === 1) ws.close(code, reason);
      controller.abort();
    };
    const container = deps.containers.get(id);
    if (!container) return close(LOG_STREAM_CLOSE.notFound, 'container not found');
    let watcher: DockerWatcher;
    try {
      watcher = watcherOf(deps, container);
    } catch {
      return close(LOG_STREAM_CLOSE.error, 'watcher unavailable');
    }
    try {
      if (options.follow) {
        const details = await watcher.host.inspectContainer(id);
        if (!details) return close(LOG_STREAM_CLOSE.notFound, 'container not found');
        if (!LIVE_STATES.has(details.state)) return close(LOG_STREAM_CLOSE.notRunning, 'container not running');
      }
      for await (const line of watcher.host.logs(id, options, signal)) {
        if (signal.aborted) return;
        const frame: ContainerLogFrame = { type: line.stream, ts: line.ts, line: line.line };
        ws.send(JSON.stringify(frame));
        await drained(ws, signal);
      }
      close(LOG_STREAM_CLOSE.normal, options.follow ? 'the container stopped' : 'end of log');
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof DockerNotFoundError) return close(LOG_STREAM_CLOSE.notFound, 'container not found');
      logger.warn('container log stream failed', { container: container.name, error: errorMessage(error) });
      close(LOG_STREAM_CLOSE.error, 'log stream failed');
    }
  }

  return {
    onOpen(_event, ws) {
      pump(ws).catch((error: unknown) => {
        logger.error('container log stream crashed', { error: errorMessage(error) });
        controller.abort();
      });
    },
    // The client left (or the hub is stopping): stop reading the Docker log.
    onClose: () => controller.abort(),
    onError: () => controller.abort(),
  };
}
