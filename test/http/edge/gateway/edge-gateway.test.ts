import { createStorage, type Storage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EDGE_TIMINGS } from '../../../../hub/src/edge/edge-sessions';
import { EdgeGateway, type GatewayHub, type GatewaySocket } from '../../../../hub/src/edge/gateway/edge-gateway';
import { GATEWAY_PATHS } from '../../../../hub/src/edge/gateway/gateway-messages';
import { answerGatewayRequest } from '../../../../hub/src/edge/gateway/gateway-requests';
import { DEFAULT_SIGN_IN_LIMITS } from '../../../../hub/src/edge/sign-in-slots';
import type { EdgeGatewayPort } from '../../../../hub/src/hub-deps';
import { EDGE_CLOSE, EDGE_PROTOCOL, type HubFrame } from '../../../../shared/edge/protocol';
import { signChallenge } from '../../../../shared/edge/sign-in';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { createLogger } from '../../../../shared/logging/logger';
import {
  type EdgeIdentity,
  newEdgeIdentity,
  sampleAgentInfo,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  snapshotFrames,
  waitFor,
} from '../../../support/edge-peer';
import { createMemoryHub, type HubClient, jsonInit } from '../../../support/hub-harness';

/**
 * Edge gateways in memory (docs/workers.md "Edge gateways"): a gateway and the hub wired to each
 * other through the same messages the Workers objects exchange, every one a JSON round trip, with
 * sockets the test plays the agent on. workers-gateways.test.ts runs the same under workerd with
 * real agents.
 */

interface FakeSocket extends GatewaySocket {
  frames: HubFrame[];
  closedWith: number | undefined;
}

let counter = 0;
function fakeSocket(): FakeSocket {
  counter += 1;
  const socket: FakeSocket = {
    sessionId: `session-${counter}`,
    frames: [],
    closedWith: undefined,
    send: (text) => socket.frames.push(JSON.parse(text) as HubFrame),
    close: (code) => {
      socket.closedWith ??= code;
    },
    saveRecord: () => undefined,
    loadRecord: () => undefined,
    autoAnsweredAt: () => undefined,
  };
  return socket;
}

const roundTrip = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const silentLogger = () => createLogger({ level: 'error', ring: createLogRing(1, false), sink: () => undefined });

interface Bed {
  hub: HubClient;
  gateway: EdgeGateway;
  /** Makes the hub refuse the next batches (as a hub object restarting mid-request would). */
  failBatches(count: number): void;
  /**
   * A new hub on the same storage, the gateway (and the sockets in it) kept, as when the platform
   * re-creates the hub object. The old hub is cut off from the gateway, not stopped: an evicted
   * object never runs its stop.
   */
  recreateHub(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function bedOn(storage: Storage): Promise<Bed> {
  let failing = 0;
  let gateway: EdgeGateway | undefined;
  const portOf = (live: () => boolean): EdgeGatewayPort => ({
    send: async (_name, session, frames) => (live() && gateway?.send(session, roundTrip(frames))) ?? false,
    close: async (_name, session, code, reason) => void (live() && gateway?.close(session, code, reason)),
    revoked: async (keyId) => void (live() && gateway?.revoked(keyId)),
    registered: async (keyId) => void (live() && gateway?.registered(keyId)),
  });
  let generation = 0;
  const hubs: HubClient[] = [];
  const newHub = async () => {
    generation += 1;
    const mine = generation;
    const hub = await createMemoryHub({}, { storage, edgeGateways: portOf(() => mine === generation) });
    hubs.push(hub);
    return hub;
  };
  let hub = await newHub();
  const post = async (path: string, body: unknown) => {
    const request = new Request(`https://internal.invalid${path}`, jsonInit('POST', body));
    const response = await answerGatewayRequest(hub.hub.parts.edge?.gateways, request);
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return response.json();
  };
  const toHub: GatewayHub = {
    key: async (keyId) => (await post(GATEWAY_PATHS.key, { keyId })) as never,
    claim: async (keyId, agentName) => (await post(GATEWAY_PATHS.claim, { keyId, agentName })) as never,
    batch: async (batch) => {
      if (failing > 0) {
        failing -= 1;
        throw new Error('Your worker restarted mid-request');
      }
      return (await post(GATEWAY_PATHS.batch, batch)) as never;
    },
  };
  gateway = new EdgeGateway({
    name: () => 'edge-gateway-0',
    hub: toHub,
    logger: silentLogger(),
    now: Date.now,
    version: 'test',
    timings: DEFAULT_EDGE_TIMINGS,
    signInLimits: DEFAULT_SIGN_IN_LIMITS,
  });
  const bed: Bed = {
    hub,
    gateway,
    failBatches: (count) => {
      failing = count;
    },
    recreateHub: async () => {
      hub = await newHub();
      bed.hub = hub;
    },
  };
  closers.push(async () => {
    generation += 1;
    await Promise.all(hubs.map((client) => client.close()));
  });
  return bed;
}

async function registered(bed: Bed, label = 'nas'): Promise<EdgeIdentity> {
  const identity = await newEdgeIdentity();
  const response = await bed.hub.request(
    '/api/v1/edge/keys',
    jsonInit('POST', { publicKey: identity.publicKeyBase64, label }),
  );
  expect(response.status).toBe(201);
  return identity;
}

/** The agent's side of a sign-in through the gateway: challenge, signed hello. */
async function helloThrough(bed: Bed, identity: EdgeIdentity, name = 'nas'): Promise<FakeSocket> {
  const socket = fakeSocket();
  bed.gateway.sockets.open(socket, { protocol: EDGE_PROTOCOL, address: '192.0.2.7' });
  const challenge = socket.frames.find((frame) => frame.type === 'challenge');
  if (challenge?.type !== 'challenge') throw new Error('no challenge');
  const hello = {
    type: 'hello',
    protocol: EDGE_PROTOCOL,
    keyId: identity.keyId,
    agentName: name,
    signature: await signChallenge(identity.secretKey, challenge.challenge, EDGE_PROTOCOL, identity.keyId, name),
    agent: sampleAgentInfo(),
    watchers: [sampleWatcher()],
  };
  bed.gateway.sockets.message(socket, JSON.stringify(hello));
  await waitFor(
    () => socket.frames.find((frame) => frame.type === 'welcome' || frame.type === 'error') ?? socket.closedWith,
  );
  return socket;
}

const send = (bed: Bed, socket: FakeSocket, frame: unknown) =>
  bed.gateway.sockets.message(socket, JSON.stringify(frame));

async function containerNames(bed: Bed, agent = 'nas'): Promise<string[]> {
  const body = (await (await bed.hub.request(`/api/v1/containers?agent=${agent}`)).json()) as {
    data: { name: string }[];
  };
  return body.data.map((container) => container.name).sort();
}

async function connected(bed: Bed, name = 'nas'): Promise<boolean | undefined> {
  const body = (await (await bed.hub.request('/api/v1/agents')).json()) as {
    data: { name: string; connected: boolean }[];
  };
  return body.data.find((agent) => agent.name === name)?.connected;
}

async function syncedAgent(bed: Bed): Promise<{ identity: EdgeIdentity; socket: FakeSocket }> {
  const identity = await registered(bed);
  const socket = await helloThrough(bed, identity);
  expect(socket.frames.map((frame) => frame.type)).toEqual(['challenge', 'welcome']);
  const before = sampleContainer('before', { labels: { 'dd.watch': 'false' } });
  for (const frame of snapshotFrames('local', [before], [sampleImage()])) send(bed, socket, frame);
  await waitFor(async () => ((await containerNames(bed)).includes('before') ? true : undefined));
  return { identity, socket };
}

describe('edge gateways, in memory', () => {
  it('signs an agent in at the gateway, lists it connected at the hub, and applies its snapshot', async () => {
    const bed = await bedOn(createStorage());
    await syncedAgent(bed);
    expect(await connected(bed)).toBe(true);
    expect(bed.gateway.list()).toEqual([expect.objectContaining({ agentName: 'nas' })]);
    expect(bed.hub.hub.parts.edge?.gateways?.size).toBe(1);
  });

  it('relays a command of the hub and the agent reply', async () => {
    const bed = await bedOn(createStorage());
    const { socket } = await syncedAgent(bed);
    const answer = bed.hub.hub.parts.agents.request('nas', { method: 'image.list', watcher: 'local' } as never);
    const request = await waitFor(() => socket.frames.find((frame) => frame.type === 'request'));
    if (request.type !== 'request') throw new Error('unreachable');
    send(bed, socket, { type: 'reply', id: request.id, ok: true, result: { images: [] } });
    await expect(answer).resolves.toEqual({ images: [] });
  });

  it('answers an unknown key and a bad signature alike (4001), and a name bound to another key with 4003', async () => {
    const bed = await bedOn(createStorage());
    const stranger = await newEdgeIdentity();
    expect((await helloThrough(bed, stranger)).closedWith).toBe(EDGE_CLOSE.signInFailed);
    const owner = await registered(bed, 'owner');
    expect((await helloThrough(bed, owner, 'nas')).frames.at(-1)?.type).toBe('welcome');
    const other = await registered(bed, 'other');
    const refused = await helloThrough(bed, other, 'nas');
    expect(refused.closedWith).toBe(EDGE_CLOSE.nameTaken);
  });

  it('signs in at once an agent whose key is registered after its refused attempt (no stale unknown-key cache)', async () => {
    const bed = await bedOn(createStorage());
    const identity = await newEdgeIdentity();
    expect((await helloThrough(bed, identity)).closedWith).toBe(EDGE_CLOSE.signInFailed);
    const response = await bed.hub.request(
      '/api/v1/edge/keys',
      jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'late' }),
    );
    expect(response.status).toBe(201);
    // Well within the gateway's 5 s memory of unknown keys: the registration told it.
    expect((await helloThrough(bed, identity)).frames.at(-1)?.type).toBe('welcome');
  });

  it('closes the sessions of a batch the hub did not take (1001), so the agent reconnects and syncs again', async () => {
    const bed = await bedOn(createStorage());
    const { socket } = await syncedAgent(bed);
    bed.failBatches(1);
    send(bed, socket, {
      type: 'container.changed',
      watcher: 'local',
      container: sampleContainer('lost', { labels: { 'dd.watch': 'false' } }),
    });
    await waitFor(() => socket.closedWith);
    expect(socket.closedWith).toBe(EDGE_CLOSE.goingAway);
    // The detach went in the next batch: the hub lists the agent disconnected, its records kept.
    await waitFor(async () => ((await connected(bed)) === false ? true : undefined));
    expect(await containerNames(bed)).toEqual(['before']);
  });

  it('drops a link the gateway census no longer has', async () => {
    const bed = await bedOn(createStorage());
    await syncedAgent(bed);
    const links = bed.hub.hub.parts.edge?.gateways;
    await links?.batch({ gateway: 'edge-gateway-0', items: [], census: {} });
    expect(await connected(bed)).toBe(false);
    expect(links?.size).toBe(0);
  });

  it('links the agents again in a hub re-created on the same storage, which asks for the inventory it lost', async () => {
    const bed = await bedOn(createStorage());
    const { socket } = await syncedAgent(bed);
    await bed.recreateHub();
    expect(await connected(bed)).toBe(true);
    expect(bed.hub.hub.parts.edge?.gateways?.size).toBe(1);
    // The agent's next delta reaches the new hub, which asks for the whole inventory its lost mirror needs.
    const after = sampleContainer('after', { labels: { 'dd.watch': 'false' } });
    send(bed, socket, { type: 'container.changed', watcher: 'local', container: after });
    const request = await waitFor(() =>
      socket.frames.find((frame) => frame.type === 'request' && frame.request.method === 'inventory'),
    );
    if (request.type !== 'request') throw new Error('unreachable');
    for (const frame of snapshotFrames('local', [after], [sampleImage()], { syncId: 'resync' }))
      send(bed, socket, frame);
    send(bed, socket, { type: 'reply', id: request.id, ok: true, result: { syncId: 'resync', containers: 1 } });
    await waitFor(async () => ((await containerNames(bed)).includes('after') ? true : undefined));
    expect(socket.closedWith).toBeUndefined();
    // No second sign-in: the socket saw one welcome.
    expect(socket.frames.filter((frame) => frame.type === 'welcome')).toHaveLength(1);
  });

  it('closes a revoked key agent with 4002 through its gateway', async () => {
    const bed = await bedOn(createStorage());
    const { identity, socket } = await syncedAgent(bed);
    const revoked = await bed.hub.request(`/api/v1/edge/keys/${identity.keyId}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    await waitFor(() => socket.closedWith);
    expect(socket.closedWith).toBe(EDGE_CLOSE.keyRevoked);
    await waitFor(async () => ((await connected(bed)) === false ? true : undefined));
    // And the gateway forgot the key: a new sign-in with it is refused (4002, the signature is good).
    expect((await helloThrough(bed, identity)).closedWith).toBe(EDGE_CLOSE.keyRevoked);
  });
});
