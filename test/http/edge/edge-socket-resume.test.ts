import { createStorage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import type { HibernatableEdgeSocket, HibernatableEdgeUpgrader } from '../../../hub/src/hub-deps';
import { EDGE_CLOSE, EDGE_PROTOCOL, type HubFrame } from '../../../shared/edge/protocol';
import { signChallenge } from '../../../shared/edge/sign-in';
import {
  newEdgeIdentity,
  sampleAgentInfo,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  snapshotFrames,
  waitFor,
} from '../../support/edge-peer';
import { createMemoryHub, type HubClient, jsonInit } from '../../support/hub-harness';

/**
 * Edge sessions on hibernatable sockets (docs/workers.md "Edge sockets"), in memory: a second hub
 * on the same storage stands for the object re-created after hibernation, with nothing of the
 * first one's memory, and the same sockets handed to it as the runtime would.
 */

interface FakeSocket extends HibernatableEdgeSocket {
  frames: HubFrame[];
  closedWith: number | undefined;
  attachment: unknown;
}

function fakeSocket(): FakeSocket {
  const socket: FakeSocket = {
    frames: [],
    closedWith: undefined,
    attachment: undefined,
    send: (text) => socket.frames.push(JSON.parse(text) as HubFrame),
    close: (code) => {
      socket.closedWith ??= code;
    },
    saveRecord: (record) => {
      // As serializeAttachment: a structured copy.
      socket.attachment = structuredClone(record);
    },
    loadRecord: () => socket.attachment,
    autoAnsweredAt: () => undefined,
  };
  return socket;
}

const opened: FakeSocket[] = [];
const upgrader: HibernatableEdgeUpgrader = {
  upgrade: (_c, _token, open) => {
    const socket = fakeSocket();
    opened.push(socket);
    open(socket);
    return new Response(null, { status: 200 });
  },
};
const hubs: HubClient[] = [];

afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  opened.length = 0;
});

async function hubOn(storage: ReturnType<typeof createStorage>): Promise<HubClient> {
  const hub = await createMemoryHub({}, { storage, edgeSockets: upgrader });
  hubs.push(hub);
  return hub;
}

const sockets = (client: HubClient) => {
  const edge = client.hub.parts.edge;
  if (!edge) throw new Error('edge disabled');
  return edge.sockets;
};

async function containerNames(client: HubClient): Promise<string[]> {
  const body = (await (await client.request('/api/v1/containers?agent=nas')).json()) as { data: { name: string }[] };
  return body.data.map((container) => container.name).sort();
}

async function signedIn(client: HubClient): Promise<FakeSocket> {
  const identity = await newEdgeIdentity();
  const registered = await client.request(
    '/api/v1/edge/keys',
    jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'nas' }),
  );
  expect(registered.status).toBe(201);
  const upgrade = await client.request('/api/v1/edge/ws', {
    headers: { upgrade: 'websocket', 'sec-websocket-protocol': 'edge.1.0' },
  });
  expect(upgrade.status).toBe(200);
  const socket = opened.at(-1) as FakeSocket;
  const challenge = socket.frames.find((frame) => frame.type === 'challenge');
  if (challenge?.type !== 'challenge') throw new Error('no challenge');
  const hello = {
    type: 'hello',
    protocol: EDGE_PROTOCOL,
    keyId: identity.keyId,
    agentName: 'nas',
    signature: await signChallenge(identity.secretKey, challenge.challenge, EDGE_PROTOCOL, identity.keyId, 'nas'),
    agent: sampleAgentInfo(),
    watchers: [sampleWatcher()],
  };
  sockets(client).message(socket, JSON.stringify(hello));
  await waitFor(() => socket.frames.find((frame) => frame.type === 'welcome'));
  const before = sampleContainer('before', { labels: { 'dd.watch': 'false' } });
  for (const frame of snapshotFrames('local', [before], [sampleImage()]))
    sockets(client).message(socket, JSON.stringify(frame));
  await waitFor(async () => ((await containerNames(client)).includes('before') ? true : undefined));
  return socket;
}

describe('edge sessions resumed from their socket record', () => {
  it('lists the agent connected on a hub with none of the first one in memory, and serves its next frame', async () => {
    const storage = createStorage();
    const first = await hubOn(storage);
    const socket = await signedIn(first);
    expect(socket.attachment).toMatchObject({ agentName: 'nas', protocol: EDGE_PROTOCOL });

    const woken = await hubOn(storage);
    sockets(woken).resume(socket);
    const agents = (await (await woken.request('/api/v1/agents')).json()) as {
      data: { name: string; connected: boolean }[];
    };
    expect(agents.data).toContainEqual(expect.objectContaining({ name: 'nas', connected: true }));

    const after = sampleContainer('after', { labels: { 'dd.watch': 'false' } });
    sockets(woken).message(socket, JSON.stringify({ type: 'container.changed', watcher: 'local', container: after }));
    // The woken hub asks for the full sync its lost mirror needs; the agent answers it.
    const request = await waitFor(() =>
      socket.frames.find((frame) => frame.type === 'request' && frame.request.method === 'inventory'),
    );
    if (request.type !== 'request') throw new Error('unreachable');
    for (const frame of snapshotFrames('local', [after], [sampleImage()], { syncId: 'resync' }))
      sockets(woken).message(socket, JSON.stringify(frame));
    sockets(woken).message(
      socket,
      JSON.stringify({ type: 'reply', id: request.id, ok: true, result: { syncId: 'resync', containers: 1 } }),
    );
    await waitFor(async () => ((await containerNames(woken)).includes('after') ? true : undefined));
    expect(socket.closedWith).toBeUndefined();

    // A ping the hub receives is answered by the resumed session (signed in: no 4004).
    sockets(woken).message(socket, JSON.stringify({ type: 'ping' }));
    expect(socket.frames.at(-1)).toEqual({ type: 'pong' });
  });

  it('closes 1001 for a record that does not validate, and 4002 for a key revoked while it slept', async () => {
    const storage = createStorage();
    const first = await hubOn(storage);
    const garbled = fakeSocket();
    garbled.attachment = { protocol: 42 };
    sockets(first).resume(garbled);
    expect(garbled.closedWith).toBe(EDGE_CLOSE.goingAway);

    const socket = await signedIn(first);
    const keyId = (socket.attachment as { keyId: string }).keyId;
    // The key revoked on another hub instance (the record on the socket still says signed in).
    const other = fakeSocket();
    other.attachment = socket.attachment;
    expect((await first.request(`/api/v1/edge/keys/${keyId}`, { method: 'DELETE' })).status).toBe(200);
    const woken = await hubOn(storage);
    sockets(woken).resume(other);
    expect(other.closedWith).toBe(EDGE_CLOSE.keyRevoked);
  });
});
