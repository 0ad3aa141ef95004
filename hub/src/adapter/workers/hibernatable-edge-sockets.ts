import type { GatewaySocket } from '../../edge/gateway/edge-gateway';
import type { HibernatableEdgeUpgrader } from '../../hub-deps';

/** A server socket of the Durable Object's WebSocket Hibernation API. */
export interface HibernationWebSocket extends WebSocket {
  serializeAttachment(value: unknown): void;
  deserializeAttachment(): unknown;
}

/** The part of a Durable Object's state the hibernatable edge sockets use. */
export interface WebSocketHibernationState {
  acceptWebSocket(ws: WebSocket, tags?: string[]): void;
  getWebSockets(tag?: string): WebSocket[];
  getWebSocketAutoResponseTimestamp(ws: WebSocket): Date | null;
}

declare const WebSocketPair: new () => { 0: WebSocket; 1: HibernationWebSocket };

/** Every edge socket carries this tag, so getWebSockets(EDGE_SOCKET_TAG) finds them after a wake (and nothing else). */
export const EDGE_SOCKET_TAG = 'edge';

export interface HibernatableEdgeSockets extends HibernatableEdgeUpgrader {
  /** The hub's view of a socket the runtime hands to a handler: the same object for the same socket while in memory. */
  socketOf(ws: WebSocket): GatewaySocket;
  /** Every edge socket the object holds, hibernated with it or not. */
  all(): GatewaySocket[];
}

/** Where the attachment keeps the socket's session id, beside the session's record (an edge gateway addresses sessions by it). */
const SESSION_ID_KEY = 'socketSession';

function sessionIdIn(attachment: unknown): string | undefined {
  const id = (attachment as Record<string, unknown> | null)?.[SESSION_ID_KEY];
  return typeof id === 'string' ? id : undefined;
}

/**
 * Edge sockets on the Durable Object's WebSocket Hibernation API (docs/workers.md "Edge sockets";
 * issue 16 item 2): the runtime holds the connection while the object sleeps, and calls the
 * object's webSocketMessage/webSocketClose, which come back here through socketOf. The session's
 * record rides in the socket's attachment; this file only translates.
 */
export function hibernatableEdgeSockets(state: WebSocketHibernationState): HibernatableEdgeSockets {
  const views = new WeakMap<WebSocket, GatewaySocket>();
  const socketOf = (ws: WebSocket, newSessionId?: string): GatewaySocket => {
    const known = views.get(ws);
    if (known) return known;
    const server = ws as HibernationWebSocket;
    const sessionId = newSessionId ?? sessionIdIn(server.deserializeAttachment());
    const view: GatewaySocket = {
      sessionId,
      send: (text) => server.send(text),
      close: (code, reason) => {
        try {
          server.close(code, reason);
        } catch {
          // Already closed or closing.
        }
      },
      saveRecord: (record) => server.serializeAttachment({ ...record, [SESSION_ID_KEY]: sessionId }),
      loadRecord: () => server.deserializeAttachment(),
      autoAnsweredAt: () => state.getWebSocketAutoResponseTimestamp(server)?.getTime(),
    };
    views.set(ws, view);
    return view;
  };
  return {
    socketOf,
    all: () => state.getWebSockets(EDGE_SOCKET_TAG).map((ws) => socketOf(ws)),
    upgrade(_c, subprotocolToken, open) {
      const { 0: client, 1: server } = new WebSocketPair();
      // Accepted by the object, not by the socket: the runtime may then hibernate the object.
      state.acceptWebSocket(server, [EDGE_SOCKET_TAG]);
      const socket = socketOf(server, crypto.randomUUID());
      // The id is in the attachment from the start: a socket that hibernates before its first record keeps it.
      socket.saveRecord({});
      open(socket);
      return new Response(null, {
        status: 101,
        webSocket: client,
        headers: { 'Sec-WebSocket-Protocol': subprotocolToken },
      } as ResponseInit);
    },
  };
}
