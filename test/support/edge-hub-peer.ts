import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  type AgentFrame,
  AgentFrameSchema,
  EDGE_CLOSE,
  EDGE_PROTOCOL,
  type EdgeRequest,
  edgeSubprotocol,
} from '../../shared/edge/protocol';
import { edgeKeyId, newChallenge, verifySignIn } from '../../shared/edge/sign-in';

/**
 * The hub's side of edge/1.0, small and strict, for testing the agent: a real ws server on
 * 127.0.0.1:0 that sends a challenge, verifies the hello's signature with shared/edge/sign-in.ts,
 * welcomes, validates every frame the agent sends against AgentFrameSchema, and lets the test send
 * requests and read replies. Not the hub: no storage, no routes.
 */
export interface HubPeerOptions {
  /** Registered public keys; a hello with another key gets error 4001 and close 4001. */
  publicKeys: Uint8Array[];
  heartbeatMs?: number;
  /** Answer the agent's pings (default true); false plays a hub gone silent. */
  answerPings?: boolean;
  /** Refuse the upgrade with this HTTP status and JSON body instead of speaking the protocol. */
  refuseWith?: { status: number; error: string; headers?: Record<string, string> };
}

export type Hello = Extract<AgentFrame, { type: 'hello' }>;
export type Reply = Extract<AgentFrame, { type: 'reply' }>;
export type Stream = Extract<AgentFrame, { type: 'stream' }>;

export class PeerConnection {
  readonly frames: AgentFrame[] = [];
  /** Frames that failed AgentFrameSchema (a test asserts there are none). */
  readonly invalid: unknown[] = [];
  readonly challenge = newChallenge();
  readonly closed: Promise<{ code: number; reason: string }>;
  hello: Hello | undefined;
  signedIn = false;
  private waiters = new Set<() => void>();
  private nextId = 1;

  constructor(
    readonly socket: WebSocket,
    private readonly options: HubPeerOptions,
  ) {
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on('message', (data) => void this.onMessage(String(data)));
    this.send({ type: 'challenge', protocol: EDGE_PROTOCOL, challenge: this.challenge, hubVersion: '0.0.0-peer' });
  }

  send(frame: unknown): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** Resolves with the first frame from index `from` on that matches; rejects after timeoutMs. */
  async waitFor<T extends AgentFrame>(
    match: (frame: AgentFrame) => frame is T,
    timeoutMs?: number,
    from?: number,
  ): Promise<T>;
  async waitFor(match: (frame: AgentFrame) => boolean, timeoutMs?: number, from?: number): Promise<AgentFrame>;
  async waitFor(match: (frame: AgentFrame) => boolean, timeoutMs = 10_000, from = 0): Promise<AgentFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching frame within ${timeoutMs} ms; got: ${this.frames.map((f) => f.type).join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends a request; resolves with its reply and the stream frames that came before it. */
  async request(
    request: EdgeRequest | Record<string, unknown>,
    timeoutMs = 10_000,
  ): Promise<{ id: string; reply: Reply; streams: Stream[] }> {
    const id = this.start(request);
    return { id, ...(await this.result(id, timeoutMs)) };
  }

  /** Sends a request and returns its id at once (for streams to be cancelled). */
  start(request: EdgeRequest | Record<string, unknown>): string {
    const id = `r${this.nextId++}`;
    this.send({ type: 'request', id, request });
    return id;
  }

  async result(id: string, timeoutMs = 10_000): Promise<{ reply: Reply; streams: Stream[] }> {
    const reply = await this.waitFor((f): f is Reply => f.type === 'reply' && f.id === id, timeoutMs);
    const streams = this.frames.filter((f): f is Stream => f.type === 'stream' && f.id === id);
    return { reply, streams };
  }

  /** Every snapshot part of one sync, once its last part is in. */
  async snapshot(watcher: string, from = 0, timeoutMs = 10_000): Promise<Extract<AgentFrame, { type: 'snapshot' }>[]> {
    const last = await this.waitFor(
      (f): f is Extract<AgentFrame, { type: 'snapshot' }> => f.type === 'snapshot' && f.watcher === watcher && f.last,
      timeoutMs,
      from,
    );
    return this.frames.filter(
      (f): f is Extract<AgentFrame, { type: 'snapshot' }> => f.type === 'snapshot' && f.syncId === last.syncId,
    );
  }

  private async onMessage(text: string): Promise<void> {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.invalid.push(text);
      return;
    }
    const parsed = v.safeParse(AgentFrameSchema, raw);
    if (!parsed.success) {
      this.invalid.push(raw);
      return;
    }
    const frame = parsed.output;
    if (frame.type === 'hello' && !this.hello) {
      this.hello = frame;
      const known = this.options.publicKeys.find((key) => edgeKeyId(key) === frame.keyId);
      const valid = known
        ? await verifySignIn(known, frame.signature, this.challenge, frame.protocol, frame.keyId, frame.agentName)
        : false;
      if (!valid) {
        this.send({ type: 'error', code: EDGE_CLOSE.signInFailed, message: 'sign-in failed' });
        this.socket.close(EDGE_CLOSE.signInFailed, 'sign-in failed');
      } else {
        this.signedIn = true;
        this.send({
          type: 'welcome',
          agentName: frame.agentName,
          keyId: frame.keyId,
          heartbeatMs: this.options.heartbeatMs ?? 15_000,
          hubVersion: '0.0.0-peer',
        });
      }
    } else if (frame.type === 'ping' && this.options.answerPings !== false) {
      this.send({ type: 'pong' });
    }
    this.frames.push(frame);
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }
}

export interface HubPeer {
  url: string;
  connections: PeerConnection[];
  /** The next connection (or the n-th overall when `index` is given). */
  connection(index?: number, timeoutMs?: number): Promise<PeerConnection>;
  /** HTTP upgrade requests seen, with the subprotocols offered. */
  upgrades: { protocols: string[] }[];
  /** From now on refuse upgrades with this HTTP answer (undefined: accept again). */
  refuse(answer: HubPeerOptions['refuseWith']): void;
  close(): Promise<void>;
}

export async function startHubPeer(options: HubPeerOptions): Promise<HubPeer> {
  const connections: PeerConnection[] = [];
  const upgrades: { protocols: string[] }[] = [];
  const server = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    path: '/api/v1/edge/ws',
    handleProtocols: (protocols) =>
      protocols.has(edgeSubprotocol(EDGE_PROTOCOL)) ? edgeSubprotocol(EDGE_PROTOCOL) : false,
    verifyClient: (info, done) => {
      upgrades.push({ protocols: String(info.req.headers['sec-websocket-protocol'] ?? '').split(/,\s*/) });
      if (options.refuseWith)
        done(false, options.refuseWith.status, options.refuseWith.error, options.refuseWith.headers);
      else done(true);
    },
  });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => connections.push(new PeerConnection(socket, options)));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    connections,
    upgrades,
    refuse(answer) {
      if (answer) options.refuseWith = answer;
      else delete options.refuseWith;
    },
    async connection(index = connections.length, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!connections[index]) {
        if (Date.now() > deadline) throw new Error(`connection ${index} did not come within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return connections[index];
    },
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
