import type { WSContext } from 'hono/ws';

interface WsReceiver {
  _maxPayload: number;
}

/**
 * HubDeps.setWebSocketFrameLimit on Node: sets one socket's frame cap in ws's parser.
 *
 * The edge protocol needs two caps: 32 KiB before sign-in, so a stranger cannot make the hub
 * buffer megabytes (600 unsigned sockets sending one 3.9 MiB frame each took the hub from 437 MiB
 * to 2.1 GiB and stalled /health for 10 s), and 4 MiB for a signed-in agent's snapshot parts. ws
 * takes `maxPayload` once per server and documents no per-socket setting, so the server is created
 * with the small cap and a signed-in agent's socket is raised here, through the internal
 * `_receiver._maxPayload` that ws's Receiver compares with each frame's announced length before it
 * buffers a byte of it (a larger frame closes with 1009). Enforcing the small cap only after ws
 * had assembled a frame would buffer the whole frame first.
 *
 * The server has no permessage-deflate (ws's default), so the receiver is the only cap to move.
 * ws-frame-limit.test.ts fails if a ws release renames the field; this throws rather than leave a
 * signed-in agent at 32 KiB, and the session then closes with 1011 and logs why.
 */
export function setWsFrameLimit(ws: WSContext, maxBytes: number): void {
  const receiver = (ws.raw as { _receiver?: Partial<WsReceiver> | null } | undefined)?._receiver;
  if (typeof receiver?._maxPayload !== 'number') {
    throw new Error(
      'ws: no per-socket frame cap (_receiver._maxPayload) on this socket; see hub/src/adapter/node/ws-frame-limit.ts',
    );
  }
  receiver._maxPayload = maxBytes;
}
