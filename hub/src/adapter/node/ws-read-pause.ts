import type { WSContext } from 'hono/ws';

interface PausableSocket {
  pause(): void;
  resume(): void;
}

/**
 * HubDeps.pauseWebSocketReading on Node: ws's own pause and resume of one socket (ws 8), which
 * stop and restart reading its TCP socket. An edge session pauses while its frames wait for the
 * pacer, so an agent that sends faster than the hub handles waits in the kernel's buffers and TCP
 * flow control, not in the hub's heap.
 */
export function pauseWsReading(ws: WSContext, paused: boolean): void {
  const raw = ws.raw as Partial<PausableSocket> | undefined;
  if (typeof raw?.pause !== 'function' || typeof raw.resume !== 'function')
    throw new Error('ws: this socket has no pause/resume; see hub/src/adapter/node/ws-read-pause.ts');
  if (paused) raw.pause();
  else raw.resume();
}
