/**
 * Hostile `chunk` frames (docs/edge-protocol.md "Image export") against the hub's real edge
 * endpoint on a real socket: a signed-in test peer plays the agent, the SBOM route makes the hub
 * send `image.export`, and the peer answers as a broken or hostile agent would. A chunk out of
 * order, one for a request that is no export, and one over 1 MiB close the session with 4004; a
 * chunk nobody waits for (on its way when the hub cancelled) is dropped and the session goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_CLOSE, EDGE_EXPORT_CHUNK_BYTES, type HubFrame } from '../../../shared/edge/protocol';
import {
  type EdgeIdentity,
  type EdgePeer,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  signedInPeer,
  snapshotFrames,
  waitFor,
} from '../../support/edge-peer';
import { createServerHub, type HubClient, jsonInit } from '../../support/hub-harness';

// Images on a closed loopback port: a registry check fails at once and never leaves the machine.
const IMAGE = '127.0.0.1:9/team/app:1.0.0';
type Request = Extract<HubFrame, { type: 'request' }>;

describe('the hub refuses hostile image.export chunks', () => {
  let client: HubClient;
  let identity: EdgeIdentity;
  let round = 0;

  beforeAll(async () => {
    client = await createServerHub();
    identity = await newEdgeIdentity();
    const registered = await client.request(
      '/api/v1/edge/keys',
      jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'hostile exports' }),
    );
    expect(registered.status).toBe(201);
  });

  afterAll(async () => {
    await client?.close();
  });

  /** A fresh agent name with one container listed at the hub; the peer that holds it. */
  async function agentWithContainer(): Promise<{ peer: EdgePeer; containerId: string }> {
    round += 1;
    const name = `hostile-${round}`;
    const peer = await signedInPeer(client.url as string, identity, name);
    const container = sampleContainer(`app-${round}`, { image: IMAGE, labels: { 'dd.watch': 'false' } });
    for (const frame of snapshotFrames('local', [container], [sampleImage({ repoTags: [IMAGE] })])) peer.send(frame);
    await waitFor(
      async () => {
        const listed = (await (await client.request(`/api/v1/containers?agent=${name}`)).json()) as {
          data: { id: string }[];
        };
        return listed.data[0];
      },
      5_000,
      `${name} listed`,
    );
    return { peer, containerId: container.id };
  }

  /** Asks for the container's SBOM (not awaited: the peer decides how it ends) and answers the export request. */
  async function exportRequest(peer: EdgePeer, containerId: string): Promise<Request> {
    void client.request(`/api/v1/containers/${containerId}/sbom`).catch(() => undefined);
    const frame = await peer.next('request');
    expect(frame.request).toMatchObject({ method: 'image.export', watcher: 'local', credit: expect.any(Number) });
    return frame;
  }

  const data = (size: number) => Buffer.alloc(size, 7).toString('base64');

  it('closes with 4004 a chunk out of order', async () => {
    const { peer, containerId } = await agentWithContainer();
    const request = await exportRequest(peer, containerId);
    peer.send({ type: 'chunk', id: request.id, seq: 1, data: data(16) });
    expect((await peer.closed).code).toBe(EDGE_CLOSE.invalidFrame);
  });

  it('closes with 4004 a chunk larger than 1 MiB', async () => {
    const { peer, containerId } = await agentWithContainer();
    const request = await exportRequest(peer, containerId);
    peer.send({ type: 'chunk', id: request.id, seq: 0, data: data(EDGE_EXPORT_CHUNK_BYTES + 3) });
    expect((await peer.closed).code).toBe(EDGE_CLOSE.invalidFrame);
  });

  it('closes with 4004 a chunk for a request that is no export', async () => {
    const { peer, containerId } = await agentWithContainer();
    void client.request(`/api/v1/containers/${containerId}/stats`).catch(() => undefined);
    const request = await peer.next('request');
    expect(request.request.method).toBe('container.stats');
    peer.send({ type: 'chunk', id: request.id, seq: 0, data: data(16) });
    expect((await peer.closed).code).toBe(EDGE_CLOSE.invalidFrame);
  });

  it('drops a chunk nobody waits for, and a refused export ends the read without closing the session', async () => {
    const { peer, containerId } = await agentWithContainer();
    peer.send({ type: 'chunk', id: 'never-asked', seq: 0, data: data(16) });
    const request = await exportRequest(peer, containerId);
    peer.send({ type: 'reply', id: request.id, ok: false, error: { code: 'not-found', message: 'image gone' } });
    // The SBOM route answers the agent's not-found as a missing image.
    const again = client.request(`/api/v1/containers/${containerId}/sbom`);
    const second = await peer.next('request');
    peer.send({ type: 'reply', id: second.id, ok: false, error: { code: 'not-found', message: 'image gone' } });
    expect((await again).status).toBe(404);
    // A late chunk of the settled request is dropped too; the session still answers pings.
    peer.send({ type: 'chunk', id: request.id, seq: 0, data: data(16) });
    peer.send({ type: 'ping' });
    await peer.next('pong');
    expect(peer.received.filter((frame) => frame.type === 'error')).toEqual([]);
    peer.close();
  });
});
