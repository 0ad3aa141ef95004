import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { errorMessage } from '../../../../shared/error-message';
import { errorBody, statusText } from '../../http/http-error';
import { clip } from '../../http/route-group';
import { withListenBacklog } from './listen-backlog';

type FetchCallback = Parameters<typeof getRequestListener>[0];

function rawJsonResponse(status: number, message: string): string {
  const body = JSON.stringify(errorBody(status, message));
  return [
    `HTTP/1.1 ${status} ${statusText(status)}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * node-server's `createServer` hook, so that requests it refuses before the app sees them (a
 * backslash in the path, a bad Host header) still get an http-interface §2.15 JSON body instead of an empty 400.
 */
export function jsonErrorServerFactory(
  fetch: FetchCallback,
  hostname: string,
  wrap: (listener: RequestListener) => RequestListener = (listener) => listener,
) {
  const listener = getRequestListener(fetch, {
    hostname,
    errorHandler: (error) =>
      Response.json(errorBody(400, `Malformed request: ${clip(errorMessage(error))}`), { status: 400 }),
  });
  // node-server calls it as createServer(options, itsListener); ours replaces its listener.
  return ((options: ServerOptions) =>
    withListenBacklog(createServer(options, wrap(listener as RequestListener)))) as unknown as typeof createServer;
}

/**
 * Node's HTTP parser rejects some requests before any handler (unknown or lower-case methods,
 * duplicate Content-Length, NUL in a header, over 16 KB of headers) with a bare status line, and
 * drops CONNECT without a word. Answer both in JSON like every other error.
 */
export function answerParserErrorsInJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    socket.end(
      rawJsonResponse(tooLarge ? 431 : 400, tooLarge ? 'Request headers are too large' : 'Malformed HTTP request'),
    );
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.end(rawJsonResponse(405, 'CONNECT is not supported'));
  });
}
