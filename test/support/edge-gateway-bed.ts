import type { Storage } from 'unstorage';
import { expect } from 'vitest';
import { DEFAULT_EDGE_TIMINGS } from '../../hub/src/edge/edge-sessions';
import { EdgeGateway, type GatewayHub, type GatewaySocket } from '../../hub/src/edge/gateway/edge-gateway';
import { GATEWAY_PATHS } from '../../hub/src/edge/gateway/gateway-messages';
import { answerGatewayRequest } from '../../hub/src/edge/gateway/gateway-requests';
import { DEFAULT_SIGN_IN_LIMITS } from '../../hub/src/edge/sign-in-slots';
import type { EdgeGatewayPort } from '../../hub/src/hub-deps';
import { EDGE_PROTOCOL, type EdgeWatcher, type HubFrame } from '../../shared/edge/protocol';
import { signChallenge } from '../../shared/edge/sign-in';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger } from '../../shared/logging/logger';
import { type EdgeIdentity, newEdgeIdentity, sampleAgentInfo, sampleWatcher, waitFor } from './edge-peer';
import { createMemoryHub, type HubClient, jsonInit } from './hub-harness';

/**
 * Edge gateways in memory (docs/workers.md "Edge gateways"): a gateway and the hub wired to each
 * other through the same messages the Workers objects exchange, every one a JSON round trip, with
 * sockets the test plays the agent on. The suites: test/http/edge/gateway/, test/fuzz/gateway-fuzz.
 */

/** A gateway socket the test plays the agent on. */
export interface FakeSocket extends GatewaySocket {
  frames: HubFrame[];
  closedWith: number | undefined;
}

let counter = 0;
export function fakeSocket(): FakeSocket {
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

const GATEWAY_NAME = 'edge-gateway-0';
const roundTrip = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const silentLogger = () => createLogger({ level: 'error', ring: createLogRing(1, false), sink: () => undefined });

/** A gateway and a hub in memory, wired through the messages the Workers objects exchange. */
export interface GatewayBed {
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

/** Closes every bed opened since the last call (a suite's afterEach). */
export async function closeGatewayBeds(): Promise<void> {
  await Promise.all(closers.splice(0).map((close) => close()));
}

export async function gatewayBed(storage: Storage): Promise<GatewayBed> {
  let failing = 0;
  let gateway: EdgeGateway | undefined;
  const portOf = (live: () => boolean): EdgeGatewayPort => ({
    send: async (_name, session, frames) => (live() && gateway?.send(session, roundTrip(frames))) ?? false,
    close: async (_name, session, code, reason) => void (live() && gateway?.close(session, code, reason)),
    revoked: async (keyId) => void (live() && gateway?.revoked(keyId)),
    registered: async (keyId, gateways) =>
      void (live() && (gateways === 'all' || gateways.includes(GATEWAY_NAME)) && gateway?.registered(keyId)),
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
    key: async (keyId, name) => (await post(GATEWAY_PATHS.key, { keyId, gateway: name })) as never,
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
    name: () => GATEWAY_NAME,
    hub: toHub,
    logger: silentLogger(),
    now: Date.now,
    version: 'test',
    timings: DEFAULT_EDGE_TIMINGS,
    signInLimits: DEFAULT_SIGN_IN_LIMITS,
  });
  const bed: GatewayBed = {
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

export async function registeredIdentity(bed: GatewayBed, label = 'nas'): Promise<EdgeIdentity> {
  const identity = await newEdgeIdentity();
  const response = await bed.hub.request(
    '/api/v1/edge/keys',
    jsonInit('POST', { publicKey: identity.publicKeyBase64, label }),
  );
  expect(response.status).toBe(201);
  return identity;
}

/** The agent's side of a sign-in through the gateway: challenge, signed hello. */
export async function helloThrough(
  bed: GatewayBed,
  identity: EdgeIdentity,
  name = 'nas',
  watchers: EdgeWatcher[] = [sampleWatcher()],
): Promise<FakeSocket> {
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
    watchers,
  };
  bed.gateway.sockets.message(socket, JSON.stringify(hello));
  await waitFor(
    () => socket.frames.find((frame) => frame.type === 'welcome' || frame.type === 'error') ?? socket.closedWith,
  );
  return socket;
}

export const sendFrame = (bed: GatewayBed, socket: FakeSocket, frame: unknown) =>
  bed.gateway.sockets.message(socket, JSON.stringify(frame));
