import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import { errorBody } from '../../http/http-error';

type NodeFetch = (request: Request, env?: unknown) => Response | Promise<Response>;

// Hop-by-hop and handshake headers are never copied from the refusal's Response.
const SKIPPED_HEADERS = new Set(['connection', 'content-length', 'keep-alive', 'transfer-encoding', 'upgrade']);

/**
 * @hono/node-server writes a refused WebSocket upgrade (401, 403, 426, 429, ...) as its status and
 * headers with `Content-Length: 0`, dropping the JSON body every 4xx must carry (http-interface §2.15). It
 * leaves the refusal to the application when the server has another `upgrade` listener, so this
 * adds one (which does nothing) and writes each refusal itself: status, headers and body.
 *
 * An upgrade the application accepted is recognised by the tracked upgradeWebSocket having run
 * for that request; node-server then completes the handshake as usual.
 */
export function answerRefusedUpgrades(
  fetch: NodeFetch,
  upgradeWebSocket: UpgradeWebSocket<unknown>,
): { fetch: NodeFetch; upgradeWebSocket: UpgradeWebSocket<unknown>; attach(server: Server): void } {
  const accepting = new WeakSet<IncomingMessage>();
  // UpgradeWebSocket is overloaded: (events) → middleware, or (c, events, options) → Response.
  // This wrapper only notes the request as accepted and passes its arguments through.
  const upgrade = upgradeWebSocket as unknown as (...args: unknown[]) => unknown;
  const accept = (c: Context) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (incoming) accepting.add(incoming);
  };
  const tracked = ((...args: unknown[]) => {
    const [first] = args;
    if (typeof first === 'object' && first !== null && 'req' in first) {
      accept(first as Context);
      return upgrade(...args);
    }
    const handler = upgrade(...args) as MiddlewareHandler;
    return (c: Context, next: Next) => {
      accept(c);
      return handler(c, next);
    };
  }) as UpgradeWebSocket<unknown>;

  return {
    upgradeWebSocket: tracked,
    async fetch(request, env) {
      const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
      if (incoming?.headers.upgrade?.toLowerCase() !== 'websocket') return fetch(request, env);
      let response: Response;
      try {
        response = await fetch(request, env);
      } catch {
        response = Response.json(errorBody(500), { status: 500 });
      }
      if (accepting.has(incoming) && response.status < 300) return response;
      if (response.status < 300) {
        // A route that is no WebSocket (an SSE stream, say) answered the upgrade: its body may never
        // end, so it is dropped, and the upgrade refused with a fixed 400.
        await response.body?.cancel().catch(() => undefined);
        const body = JSON.stringify(errorBody(400, 'This route is not a WebSocket'));
        writeRefusal(incoming, 400, new Headers({ 'content-type': 'application/json' }), body);
        return response;
      }
      writeRefusal(incoming, response.status, response.headers, await boundedText(response));
      return response;
    },
    attach(server) {
      // Its presence is what makes node-server leave the refusal to fetch() above.
      server.on('upgrade', () => undefined);
    },
  };
}

/** An error body is a small JSON object; more than this is cut (and the rest never read). */
const MAX_REFUSAL_BODY_BYTES = 64 * 1024;

async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < MAX_REFUSAL_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, MAX_REFUSAL_BODY_BYTES).toString('utf8');
}

function writeRefusal(incoming: IncomingMessage, status: number, headers: Headers, body: string): void {
  const socket = incoming.socket;
  if (socket.destroyed) return;
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  headers.forEach((value, key) => {
    if (!SKIPPED_HEADERS.has(key.toLowerCase())) lines.push(`${key}: ${value}`);
  });
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
