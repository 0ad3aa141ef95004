import { expect } from 'vitest';
import { EDGE_PROTOCOL, type EdgeWatcher, type HubFrame } from '../../shared/edge/protocol';
import { signChallenge } from '../../shared/edge/sign-in';
import { type EdgeIdentity, newEdgeIdentity, sampleAgentInfo, waitFor } from './edge-peer';
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

/** An agent signed in over a workerd socket, answering and sending heartbeats as a real agent does. */
export interface WorkerdAgent {
  /** Every frame the hub sent, in order. */
  frames: HubFrame[];
  send(frame: unknown): void;
  /** Stops the heartbeats and closes the socket (1000). */
  close(): void;
}

/**
 * Registers a key, opens the socket, signs in with the given watchers and waits for the welcome;
 * from then on it pings every welcome.heartbeatMs (on Workers the hub sends none, and closes a
 * silent agent) and answers the hub's pings.
 */
export async function signInWorkerdAgent(
  hub: WorkersHub,
  name: string,
  watchers: EdgeWatcher[],
): Promise<WorkerdAgent> {
  const { identity, socket } = await openWorkerdEdgeSocket(hub, name);
  const frames: HubFrame[] = [];
  const send = (frame: unknown) => socket.send(JSON.stringify(frame));
  socket.addEventListener('message', (event) => {
    const frame = JSON.parse(String(event.data)) as HubFrame;
    if (frame.type === 'ping') send({ type: 'pong' });
    frames.push(frame);
  });
  socket.accept();
  const challenge = await waitFor(() => frames.find((frame) => frame.type === 'challenge'), 5_000, 'the challenge');
  if (challenge.type !== 'challenge') throw new Error('unreachable');
  send({
    type: 'hello',
    protocol: EDGE_PROTOCOL,
    keyId: identity.keyId,
    agentName: name,
    signature: await signChallenge(identity.secretKey, challenge.challenge, EDGE_PROTOCOL, identity.keyId, name),
    agent: sampleAgentInfo(),
    watchers,
  });
  const welcome = await waitFor(() => frames.find((frame) => frame.type === 'welcome'), 5_000, 'the welcome');
  if (welcome.type !== 'welcome') throw new Error('unreachable');
  const heartbeat = setInterval(() => send({ type: 'ping' }), welcome.heartbeatMs);
  return {
    frames,
    send,
    close: () => {
      clearInterval(heartbeat);
      socket.close(1000);
    },
  };
}
