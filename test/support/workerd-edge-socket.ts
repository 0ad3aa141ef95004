import { expect } from 'vitest';
import { type EdgeIdentity, newEdgeIdentity } from './edge-peer';
import type { WorkersHub } from './workers-hub';

/** Miniflare's WebSocket (accept() before use). */
export type WorkerdWebSocket = NonNullable<Awaited<ReturnType<WorkersHub['fetch']>>['webSocket']>;

/**
 * An edge agent's first steps against the hub under workerd: its key registered through the API,
 * then the edge/1.0 WebSocket opened (not yet accepted, so the caller attaches its listeners first).
 */
export async function openWorkerdEdgeSocket(
  hub: WorkersHub,
  label: string,
): Promise<{ identity: EdgeIdentity; socket: WorkerdWebSocket }> {
  const identity = await newEdgeIdentity();
  const registered = await hub.fetch('/api/v1/edge/keys', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ publicKey: identity.publicKeyBase64, label }),
  });
  expect(registered.status).toBe(201);
  const response = await hub.fetch('/api/v1/edge/ws', {
    headers: { upgrade: 'websocket', 'sec-websocket-protocol': 'edge.1.0' },
  });
  const socket = response.webSocket;
  if (!socket) throw new Error(`no WebSocket (status ${response.status})`);
  return { identity, socket };
}
