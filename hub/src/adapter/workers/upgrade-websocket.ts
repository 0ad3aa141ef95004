import { defineWebSocketHelper, WSContext, type WSReadyState } from 'hono/ws';

interface AcceptableWebSocket extends WebSocket {
  accept(): void;
}
declare const WebSocketPair: new () => { 0: WebSocket; 1: AcceptableWebSocket };

/** `protocol`: the subprotocol the route selected (the edge endpoint), sent back in the 101. */
export interface WorkersUpgradeOptions {
  protocol?: string;
}

/**
 * Not hono/cloudflare-workers' helper: it never calls onOpen (its types omit it), and the log
 * stream subscribes there, so it would stay silent. An accepted server socket can send at once.
 */
export const upgradeWebSocket = defineWebSocketHelper<WebSocket, WorkersUpgradeOptions>((c, events, options) => {
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return;
  const { 0: client, 1: server } = new WebSocketPair();
  const ws = new WSContext<WebSocket>({
    send: (data) => server.send(data),
    close: (code, reason) => server.close(code, reason),
    raw: server,
    get readyState() {
      return server.readyState as WSReadyState;
    },
  });
  server.addEventListener('message', (event) => events.onMessage?.(event, ws));
  server.addEventListener('error', (event) => events.onError?.(event, ws));
  server.addEventListener('close', (event) => {
    events.onClose?.(event, ws);
    // workerd completes the closing handshake only when the server side closes too.
    try {
      server.close(1000);
    } catch {
      // Already closed.
    }
  });
  server.accept();
  events.onOpen?.(new Event('open'), ws);
  const headers = options?.protocol ? { 'Sec-WebSocket-Protocol': options.protocol } : undefined;
  return new Response(null, { status: 101, webSocket: client, headers } as ResponseInit);
});
