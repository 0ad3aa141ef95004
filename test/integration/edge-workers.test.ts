import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EDGE_CLOSE,
  EDGE_EXPORT_CHUNK_BYTES,
  EDGE_PROTOCOL,
  EDGE_SIGN_IN_MAX_FRAME_BYTES,
  type HubFrame,
} from '../../shared/edge/protocol';
import { signChallenge } from '../../shared/edge/sign-in';
import {
  newEdgeIdentity,
  sampleAgentInfo,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  snapshotFrames,
  waitFor,
} from '../support/edge-peer';
import { classicArchive, layerTar } from '../support/sbom/archive-builder';
import { stanza } from '../support/sbom/image-fixture';
import { startWorkersHub, type WorkersHub } from '../support/workers-hub';

let mf: WorkersHub;

/** A workerd WebSocket as the client end of the edge endpoint, with its frames collected. */
async function openEdgeSocket(protocols = 'edge.1.0') {
  const response = await mf.fetch(`/api/v1/edge/ws`, {
    headers: { upgrade: 'websocket', 'sec-websocket-protocol': protocols },
  });
  const socket = response.webSocket;
  if (!socket) throw new Error(`no WebSocket (status ${response.status})`);
  const frames: HubFrame[] = [];
  const closed = new Promise<number>((resolve) =>
    socket.addEventListener('close', (event) => resolve(event.code), { once: true }),
  );
  socket.addEventListener('message', (event) => frames.push(JSON.parse(String(event.data)) as HubFrame));
  socket.accept();
  const next = (type: HubFrame['type']) =>
    waitFor(() => frames.find((frame) => frame.type === type), 5_000, `a ${type} frame`);
  return { response, socket, frames, closed, next, send: (frame: unknown) => socket.send(JSON.stringify(frame)) };
}

beforeAll(async () => {
  mf = await startWorkersHub({ vars: { DD_LOG_LEVEL: 'warn', DD_SERVER_HOST: '0.0.0.0' } });
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
});

describe('the edge endpoint under workerd', () => {
  it('selects the subprotocol, signs an agent in, takes its snapshot and lists it', async () => {
    const identity = await newEdgeIdentity();
    const registered = await mf.fetch(`/api/v1/edge/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: identity.publicKeyBase64, label: 'workers' }),
    });
    expect(registered.status).toBe(201);

    const peer = await openEdgeSocket('edge.9.9, edge.1.0');
    expect(peer.response.status).toBe(101);
    expect(peer.response.headers.get('sec-websocket-protocol')).toBe('edge.1.0');
    const challenge = await peer.next('challenge');
    if (challenge.type !== 'challenge') throw new Error('unreachable');
    peer.send({
      type: 'hello',
      protocol: EDGE_PROTOCOL,
      keyId: identity.keyId,
      agentName: 'edge-on-workers',
      signature: await signChallenge(
        identity.secretKey,
        challenge.challenge,
        EDGE_PROTOCOL,
        identity.keyId,
        'edge-on-workers',
      ),
      agent: sampleAgentInfo(),
      watchers: [sampleWatcher()],
    });
    await peer.next('welcome');
    // Signed in, a frame over the pre-sign-in cap is taken (workerd has no parser cap to raise).
    peer.socket.send(JSON.stringify({ type: 'ping' }).padEnd(2 * EDGE_SIGN_IN_MAX_FRAME_BYTES, ' '));
    await peer.next('pong');
    for (const frame of snapshotFrames(
      'local',
      [sampleContainer('on-workers', { labels: { 'dd.watch': 'false' } })],
      [sampleImage()],
    )) {
      peer.send(frame);
    }
    const listed = await waitFor(async () => {
      const body = (await (await mf.fetch(`/api/v1/containers?agent=edge-on-workers`)).json()) as {
        total: number;
      };
      return body.total === 1 ? body : undefined;
    });
    expect(listed.total).toBe(1);
    const agents = (await (await mf.fetch(`/api/v1/agents`)).json()) as {
      data: { name: string; connected: boolean }[];
    };
    expect(agents.data).toContainEqual(expect.objectContaining({ name: 'edge-on-workers', connected: true }));
    peer.socket.close(1000);
    await peer.closed;
    await waitFor(async () => {
      const after = (await (await mf.fetch(`/api/v1/agents`)).json()) as {
        data: { connected: boolean }[];
      };
      return after.data.every((agent) => !agent.connected) ? true : undefined;
    });
  });

  it("reads an agent's image for its SBOM through image.export: 1 MiB chunks under the hub's credit", async () => {
    const identity = await newEdgeIdentity();
    await mf.fetch(`/api/v1/edge/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: identity.publicKeyBase64, label: 'export' }),
    });
    const name = 'export-on-workers';
    const peer = await openEdgeSocket();
    const challenge = await peer.next('challenge');
    if (challenge.type !== 'challenge') throw new Error('unreachable');
    peer.send({
      type: 'hello',
      protocol: EDGE_PROTOCOL,
      keyId: identity.keyId,
      agentName: name,
      signature: await signChallenge(identity.secretKey, challenge.challenge, EDGE_PROTOCOL, identity.keyId, name),
      agent: sampleAgentInfo(),
      watchers: [sampleWatcher()],
    });
    await peer.next('welcome');
    // A Debian-like image with a 5 MiB file beside its dpkg status: six chunks, more than the first credit.
    const archive = classicArchive([
      layerTar({
        'etc/os-release': { content: 'ID=debian\nVERSION_ID="12"\n' },
        'var/lib/dpkg/status': {
          content: stanza({
            Package: 'libssl3',
            Status: 'install ok installed',
            Version: '3.0.11-1',
            Source: 'openssl',
          }),
        },
        'opt/blob.bin': { content: new Uint8Array(randomBytes(5 * 1024 * 1024)) },
      }),
    ]);
    const container = sampleContainer('exported', { imageId: archive.imageId, labels: { 'dd.watch': 'false' } });
    for (const frame of snapshotFrames('local', [container], [sampleImage({ id: archive.imageId })])) peer.send(frame);
    await waitFor(async () => {
      const body = (await (await mf.fetch(`/api/v1/containers?agent=${name}`)).json()) as { total: number };
      return body.total === 1 ? true : undefined;
    });

    const answer = mf.fetch(`/api/v1/containers/${container.id}/sbom`);
    const request = await peer.next('request');
    if (request.type !== 'request' || request.request.method !== 'image.export') throw new Error('no export request');
    // The agent's side, strictly: a chunk only while it holds credit.
    let credit = request.request.credit;
    let creditFrames = 0;
    const chunks = Math.ceil(archive.bytes.length / EDGE_EXPORT_CHUNK_BYTES);
    for (let seq = 0; seq < chunks; seq++) {
      while (credit === 0) {
        const grants = await waitFor(() => {
          const all = peer.frames.filter((frame) => frame.type === 'credit' && frame.id === request.id);
          return all.length > creditFrames ? all.slice(creditFrames) : undefined;
        });
        creditFrames += grants.length;
        for (const grant of grants) if (grant.type === 'credit') credit += grant.chunks;
      }
      credit -= 1;
      const bytes = archive.bytes.subarray(seq * EDGE_EXPORT_CHUNK_BYTES, (seq + 1) * EDGE_EXPORT_CHUNK_BYTES);
      peer.send({ type: 'chunk', id: request.id, seq, data: Buffer.from(bytes).toString('base64') });
    }
    peer.send({ type: 'reply', id: request.id, ok: true });
    const response = await answer;
    expect(response.status, await response.clone().text()).toBe(200);
    const document = (await response.json()) as { packages: { name: string; versionInfo?: string }[] };
    expect(document.packages.map((pkg) => [pkg.name, pkg.versionInfo])).toContainEqual(['libssl3', '3.0.11-1']);
    expect(chunks).toBeGreaterThan(request.request.credit);
    expect(creditFrames).toBeGreaterThan(0);
    peer.socket.close(1000);
    await peer.closed;
  });

  it('closes 4004 for garbage and refuses an upgrade without an edge subprotocol', async () => {
    const peer = await openEdgeSocket();
    await peer.next('challenge');
    peer.socket.send('not json');
    expect(await peer.closed).toBe(EDGE_CLOSE.invalidFrame);
    const refused = await mf.fetch(`/api/v1/edge/ws`, {
      headers: { upgrade: 'websocket', 'sec-websocket-protocol': 'chat' },
    });
    expect(refused.status).toBe(426);
    expect(((await refused.json()) as { details: { supported: string[] } }).details.supported).toEqual(['edge.1.0']);
  });

  it('closes 1009 for a frame over 32 KiB before sign-in (measured on arrival, frames arrive whole here)', async () => {
    const peer = await openEdgeSocket();
    await peer.next('challenge');
    peer.socket.send(JSON.stringify({ type: 'ping' }).padEnd(EDGE_SIGN_IN_MAX_FRAME_BYTES + 1, ' '));
    expect(await peer.closed).toBe(EDGE_CLOSE.tooLarge);
  });
});
