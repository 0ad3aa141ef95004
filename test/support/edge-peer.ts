import WebSocket from 'ws';
import type { DockerContainerDetails, DockerImageDetails } from '../../shared/docker/docker-host';
import {
  type AgentInfo,
  EDGE_PROTOCOL,
  EDGE_SUBPROTOCOLS,
  type EdgeWatcher,
  type HubFrame,
} from '../../shared/edge/protocol';
import { edgeKeyId, generateEdgeKeyPair, signChallenge, toBase64 } from '../../shared/edge/sign-in';

/**
 * A minimal edge/1.0 peer for tests: a real ws client of the hub's real endpoint that sends
 * exactly what a test tells it (well-formed or not) and records what the hub answers. It is not
 * the agent (edge-agent/ is): it has no Docker and no reconnect, so a test controls every frame.
 */
export interface EdgePeer {
  ws: WebSocket;
  /** Every frame the hub sent, parsed, in order. */
  received: HubFrame[];
  /** Resolves with the next frame of this type (one already received and not yet taken counts). */
  next<T extends HubFrame['type']>(type: T, timeoutMs?: number): Promise<Extract<HubFrame, { type: T }>>;
  send(frame: unknown): void;
  /** The close the hub (or the network) ended the socket with. */
  closed: Promise<{ code: number; reason: string }>;
  close(code?: number): void;
}

export interface EdgeIdentity {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  /** Standard base64 of the raw public key: the body of POST /api/v1/edge/keys. */
  publicKeyBase64: string;
  keyId: string;
}

export async function newEdgeIdentity(): Promise<EdgeIdentity> {
  const { secretKey, publicKey } = await generateEdgeKeyPair();
  return { secretKey, publicKey, publicKeyBase64: toBase64(publicKey), keyId: edgeKeyId(publicKey) };
}

/** `http://host:port` → `ws://host:port/api/v1/edge/ws`. */
export function edgeUrl(hubUrl: string): string {
  return `${hubUrl.replace(/^http/, 'ws')}/api/v1/edge/ws`;
}

/** `localAddress`: a loopback source (127.0.0.x) other than 127.0.0.1, to be counted as another client address. */
export function connectEdgePeer(
  hubUrl: string,
  protocols: readonly string[] = EDGE_SUBPROTOCOLS,
  options: { localAddress?: string } = {},
): Promise<EdgePeer> {
  const ws = new WebSocket(edgeUrl(hubUrl), [...protocols], options);
  const received: HubFrame[] = [];
  const taken = new Set<number>();
  const waiters = new Set<() => void>();
  let closeInfo: { code: number; reason: string } | undefined;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      closeInfo = { code, reason: reason.toString() };
      resolve(closeInfo);
      for (const wake of waiters) wake();
    });
  });
  ws.on('message', (data) => {
    received.push(JSON.parse(data.toString()) as HubFrame);
    for (const wake of waiters) wake();
  });
  ws.on('error', () => undefined);

  const peer: EdgePeer = {
    ws,
    received,
    closed,
    next(type, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const index = received.findIndex((frame, i) => frame.type === type && !taken.has(i));
          if (index >= 0) {
            taken.add(index);
            cleanup();
            resolve(received[index] as never);
          } else if (closeInfo) {
            cleanup();
            reject(new Error(`closed (${closeInfo.code} ${closeInfo.reason}) before a ${type} frame`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${type} frame within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    send(frame) {
      ws.send(typeof frame === 'string' || frame instanceof Buffer ? frame : JSON.stringify(frame));
    },
    close(code = 1000) {
      ws.close(code);
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(peer));
    ws.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused: ${response.statusCode}`)),
    );
    ws.once('error', reject);
  });
}

export const sampleAgentInfo = (overrides: Partial<AgentInfo> = {}): AgentInfo => ({
  version: '1.4.0-rc.2',
  hostname: 'nas.example',
  os: 'linux',
  arch: 'x64',
  cpus: 4,
  memoryGb: 7.5,
  uptimeSeconds: 3600,
  logLevel: 'info',
  ...overrides,
});

export const sampleWatcher = (overrides: Partial<EdgeWatcher> = {}): EdgeWatcher => ({
  name: 'local',
  endpoint: 'unix:///var/run/docker.sock',
  cron: '0 * * * *',
  jitterSeconds: 0,
  watchAll: false,
  watchByDefault: true,
  ...overrides,
});

/** A signed hello for the challenge this peer received. */
export async function helloFor(
  peer: EdgePeer,
  identity: EdgeIdentity,
  agentName: string,
  extra: { watchers?: EdgeWatcher[]; agent?: AgentInfo; challenge?: string } = {},
) {
  const challenge = extra.challenge ?? (await peer.next('challenge')).challenge;
  return {
    type: 'hello',
    protocol: EDGE_PROTOCOL,
    keyId: identity.keyId,
    agentName,
    signature: await signChallenge(identity.secretKey, challenge, EDGE_PROTOCOL, identity.keyId, agentName),
    agent: extra.agent ?? sampleAgentInfo(),
    watchers: extra.watchers ?? [sampleWatcher()],
  };
}

/** Connects, signs in and waits for the welcome. */
export async function signedInPeer(
  hubUrl: string,
  identity: EdgeIdentity,
  agentName: string,
  extra: { watchers?: EdgeWatcher[]; agent?: AgentInfo } = {},
): Promise<EdgePeer> {
  const peer = await connectEdgePeer(hubUrl);
  peer.send(await helloFor(peer, identity, agentName, extra));
  await peer.next('welcome');
  return peer;
}

let counter = 0;

/** An inspected container as an agent would send it (64 hex id, running). */
export function sampleContainer(name: string, overrides: Partial<DockerContainerDetails> = {}): DockerContainerDetails {
  counter += 1;
  const id = `${counter.toString(16).padStart(8, '0')}${'ab'.repeat(28)}`;
  return {
    id,
    name,
    image: 'nginx:1.27.0',
    imageId: 'sha256:1111111111111111111111111111111111111111111111111111111111111111',
    state: 'running',
    labels: {},
    createdAt: Date.UTC(2026, 0, 1),
    env: ['PATH=/usr/bin', 'DB_PASSWORD=hunter2'],
    restartCount: 0,
    ...overrides,
  };
}

export const sampleImage = (overrides: Partial<DockerImageDetails> = {}): DockerImageDetails => ({
  id: 'sha256:1111111111111111111111111111111111111111111111111111111111111111',
  repoTags: ['nginx:1.27.0'],
  repoDigests: [],
  os: 'linux',
  architecture: 'amd64',
  ...overrides,
});

/** The snapshot frames of one watcher's whole inventory, in parts of `partSize`. */
export function snapshotFrames(
  watcher: string,
  containers: DockerContainerDetails[],
  images: DockerImageDetails[],
  options: { syncId?: string; operationId?: string; partSize?: number } = {},
) {
  const size = options.partSize ?? 200;
  const parts = Math.max(1, Math.ceil(containers.length / size));
  return Array.from({ length: parts }, (_, part) => ({
    type: 'snapshot',
    watcher,
    syncId: options.syncId ?? 'sync-1',
    ...(options.operationId !== undefined && { operationId: options.operationId }),
    part,
    last: part === parts - 1,
    containers: containers.slice(part * size, (part + 1) * size),
    images: part === 0 ? images : [],
  }));
}

/** Polls until the probe returns something other than undefined (an awaited condition, not a sleep of a guessed length). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
