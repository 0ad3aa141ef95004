import { createStorage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import { ChunkQueue } from '../../../../hub/src/agents/chunk-queue';
import { EDGE_CLOSE } from '../../../../shared/edge/protocol';
import {
  closeGatewayBeds,
  type FakeSocket,
  type GatewayBed,
  gatewayBed,
  helloThrough,
  registeredIdentity,
  sendFrame,
} from '../../../support/edge-gateway-bed';
import {
  type EdgeIdentity,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  snapshotFrames,
  waitFor,
} from '../../../support/edge-peer';
import { jsonInit } from '../../../support/hub-harness';

/**
 * Edge gateways in memory (test/support/edge-gateway-bed.ts): a gateway and the hub's links over
 * their messages. workers-gateways.test.ts runs the same under workerd with real agents.
 */

async function containerNames(bed: GatewayBed, agent = 'nas'): Promise<string[]> {
  const body = (await (await bed.hub.request(`/api/v1/containers?agent=${agent}`)).json()) as {
    data: { name: string }[];
  };
  return body.data.map((container) => container.name).sort();
}

async function connected(bed: GatewayBed, name = 'nas'): Promise<boolean | undefined> {
  const body = (await (await bed.hub.request('/api/v1/agents')).json()) as {
    data: { name: string; connected: boolean }[];
  };
  return body.data.find((agent) => agent.name === name)?.connected;
}

async function syncedAgent(bed: GatewayBed): Promise<{ identity: EdgeIdentity; socket: FakeSocket }> {
  const identity = await registeredIdentity(bed);
  const socket = await helloThrough(bed, identity);
  expect(socket.frames.map((frame) => frame.type)).toEqual(['challenge', 'welcome']);
  const before = sampleContainer('before', { labels: { 'dd.watch': 'false' } });
  for (const frame of snapshotFrames('local', [before], [sampleImage()])) sendFrame(bed, socket, frame);
  await waitFor(async () => ((await containerNames(bed)).includes('before') ? true : undefined));
  return { identity, socket };
}

afterEach(closeGatewayBeds);

describe('edge gateways, in memory', () => {
  it('signs an agent in at the gateway, lists it connected at the hub, and applies its snapshot', async () => {
    const bed = await gatewayBed(createStorage());
    await syncedAgent(bed);
    expect(await connected(bed)).toBe(true);
    expect(bed.gateway.list()).toEqual([expect.objectContaining({ agentName: 'nas' })]);
    expect(bed.hub.hub.parts.edge?.gateways?.size).toBe(1);
  });

  it('relays a command of the hub and the agent reply', async () => {
    const bed = await gatewayBed(createStorage());
    const { socket } = await syncedAgent(bed);
    const answer = bed.hub.hub.parts.agents.request('nas', { method: 'image.list', watcher: 'local' } as never);
    const request = await waitFor(() => socket.frames.find((frame) => frame.type === 'request'));
    if (request.type !== 'request') throw new Error('unreachable');
    sendFrame(bed, socket, { type: 'reply', id: request.id, ok: true, result: { images: [] } });
    await expect(answer).resolves.toEqual({ images: [] });
  });

  it('relays an image export: chunks up to the hub, its credit down to the agent; a chunk out of order closes with 4004', async () => {
    const bed = await gatewayBed(createStorage());
    const { socket } = await syncedAgent(bed);
    const queue = new ChunkQueue(2);
    const exported = bed.hub.hub.parts.agents.request(
      'nas',
      { method: 'image.export', watcher: 'local', imageId: 'sha256:1', credit: 2 },
      { chunks: queue },
    );
    const request = await waitFor(() => socket.frames.find((frame) => frame.type === 'request'));
    if (request.type !== 'request') throw new Error('unreachable');
    const data = (text: string) => Buffer.from(text).toString('base64');
    sendFrame(bed, socket, { type: 'chunk', id: request.id, seq: 0, data: data('tar ') });
    sendFrame(bed, socket, { type: 'chunk', id: request.id, seq: 1, data: data('bytes') });
    const reader = queue[Symbol.asyncIterator]();
    const first = await reader.next();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('tar ');
    // The hub's grant for the chunk its reader took reaches the agent through the gateway.
    await waitFor(() => socket.frames.find((frame) => frame.type === 'credit'));
    expect(socket.frames.filter((frame) => frame.type === 'credit')).toEqual([
      { type: 'credit', id: request.id, chunks: 1 },
    ]);
    sendFrame(bed, socket, { type: 'reply', id: request.id, ok: true });
    await expect(exported).resolves.toBeUndefined();

    const broken = bed.hub.hub.parts.agents
      .request(
        'nas',
        { method: 'image.export', watcher: 'local', imageId: 'sha256:1', credit: 2 },
        {
          chunks: new ChunkQueue(2),
        },
      )
      .catch((error: unknown) => error);
    const second = await waitFor(() => socket.frames.filter((frame) => frame.type === 'request')[1]);
    if (second.type !== 'request') throw new Error('unreachable');
    sendFrame(bed, socket, { type: 'chunk', id: second.id, seq: 5, data: data('x') });
    await waitFor(() => socket.closedWith);
    expect(socket.closedWith).toBe(EDGE_CLOSE.invalidFrame);
    await expect(broken).resolves.toMatchObject({ code: 'disconnected' });
  });

  it('answers an unknown key and a bad signature alike (4001), and a name bound to another key with 4003', async () => {
    const bed = await gatewayBed(createStorage());
    const stranger = await newEdgeIdentity();
    expect((await helloThrough(bed, stranger)).closedWith).toBe(EDGE_CLOSE.signInFailed);
    const owner = await registeredIdentity(bed, 'owner');
    expect((await helloThrough(bed, owner, 'nas')).frames.at(-1)?.type).toBe('welcome');
    const other = await registeredIdentity(bed, 'other');
    const refused = await helloThrough(bed, other, 'nas');
    expect(refused.closedWith).toBe(EDGE_CLOSE.nameTaken);
  });

  it('signs in at once an agent whose key is registered after its refused attempt (no stale unknown-key cache)', async () => {
    const bed = await gatewayBed(createStorage());
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
    const bed = await gatewayBed(createStorage());
    const { socket } = await syncedAgent(bed);
    bed.failBatches(1);
    sendFrame(bed, socket, {
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
    const bed = await gatewayBed(createStorage());
    await syncedAgent(bed);
    const links = bed.hub.hub.parts.edge?.gateways;
    await links?.batch({ gateway: 'edge-gateway-0', items: [], census: {} });
    expect(await connected(bed)).toBe(false);
    expect(links?.size).toBe(0);
  });

  it('links the agents again in a hub re-created on the same storage, which asks for the inventory it lost', async () => {
    const bed = await gatewayBed(createStorage());
    const { socket } = await syncedAgent(bed);
    await bed.recreateHub();
    expect(await connected(bed)).toBe(true);
    expect(bed.hub.hub.parts.edge?.gateways?.size).toBe(1);
    // The agent's next delta reaches the new hub, which asks for the whole inventory its lost mirror needs.
    const after = sampleContainer('after', { labels: { 'dd.watch': 'false' } });
    sendFrame(bed, socket, { type: 'container.changed', watcher: 'local', container: after });
    const request = await waitFor(() =>
      socket.frames.find((frame) => frame.type === 'request' && frame.request.method === 'inventory'),
    );
    if (request.type !== 'request') throw new Error('unreachable');
    for (const frame of snapshotFrames('local', [after], [sampleImage()], { syncId: 'resync' }))
      sendFrame(bed, socket, frame);
    sendFrame(bed, socket, { type: 'reply', id: request.id, ok: true, result: { syncId: 'resync', containers: 1 } });
    await waitFor(async () => ((await containerNames(bed)).includes('after') ? true : undefined));
    expect(socket.closedWith).toBeUndefined();
    // No second sign-in: the socket saw one welcome.
    expect(socket.frames.filter((frame) => frame.type === 'welcome')).toHaveLength(1);
  });

  it('closes a revoked key agent with 4002 through its gateway', async () => {
    const bed = await gatewayBed(createStorage());
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
