/**
 * The image routes (http-interface §4.14) with edge agents that the real agent cannot play: one that predates
 * `image.list` (answers `unsupported`) and one whose list was cut (`truncated`). The hub is real and
 * listening; the agent is a scripted edge/1.0 peer (test/support/edge-peer.ts). The ordinary case
 * runs on a real agent and dockerd in test/integration/edge-images.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeDockerHost } from '../../../hub/src/agents/edge-docker-host';
import type { HubFrame } from '../../../shared/edge/protocol';
import {
  type EdgeIdentity,
  type EdgePeer,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  signedInPeer,
  snapshotFrames,
  waitFor,
} from '../../support/edge-peer';
import { createServerHub, type HubClient, jsonInit } from '../../support/hub-harness';

const TIMINGS = { heartbeatMs: 10_000, silenceLimitMs: 30_000, signInDeadlineMs: 5_000, requestTimeoutMs: 5_000 };
const PRUNE_HEADERS = { 'X-DD-Confirm-Action': 'image-prune' };
const USED = 'sha256:1111111111111111111111111111111111111111111111111111111111111111';
const SPARE = 'sha256:2222222222222222222222222222222222222222222222222222222222222222';

type RequestFrame = Extract<HubFrame, { type: 'request' }>;

/** The next request of that method the hub sent this peer (others, such as inventory refreshes, are left unanswered). */
async function nextRequest(peer: EdgePeer, method: string): Promise<RequestFrame> {
  for (;;) {
    const frame = await peer.next('request');
    if (frame.request.method === method) return frame;
  }
}

describe('the image routes with edge agents the hub cannot list fully', () => {
  let client: HubClient;
  let identity: EdgeIdentity;
  const peers: EdgePeer[] = [];
  const hostOf = (name: string) => client.hub.parts.fleet.all().find((watcher) => watcher.agent === name)?.host;

  /** Signs in as `name` with one running container of USED, and waits until the hub has its inventory. */
  async function agent(name: string): Promise<EdgePeer> {
    const peer = await signedInPeer(client.url as string, identity, name, { watchers: [sampleWatcher()] });
    peers.push(peer);
    const web = sampleContainer('web', { imageId: USED });
    for (const frame of snapshotFrames('local', [web], [sampleImage({ id: USED })], { syncId: `${name}-1` }))
      peer.send(frame);
    await waitFor(
      () =>
        hostOf(name)
          ?.listContainers(true)
          .then(
            (list) => (list.length > 0 ? true : undefined),
            () => undefined,
          ),
      5_000,
      `${name}'s inventory applied`,
    );
    return peer;
  }

  beforeAll(async () => {
    client = await createServerHub({}, { edge: { timings: TIMINGS } });
    identity = await newEdgeIdentity();
    const registered = await client.request(
      '/api/v1/edge/keys',
      jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'imgs' }),
    );
    expect(registered.status).toBe(201);
  });

  afterAll(async () => {
    for (const peer of peers) peer.close();
    await client?.close();
  });

  it('reports an agent that predates image.list in errors, showing and pruning nothing of its host', async () => {
    const older = await agent('older-agent');
    const unsupported = async (frame: RequestFrame) =>
      older.send({
        type: 'reply',
        id: frame.id,
        ok: false,
        error: { code: 'unsupported', message: 'method image.list is not supported by this agent' },
      });

    const listing = client.request('/api/v1/images');
    await unsupported(await nextRequest(older, 'image.list'));
    const list = (await (await listing).json()) as { data: unknown[]; errors: unknown[] };
    expect(list.data).toEqual([]);
    expect(list.errors).toEqual([
      { watcher: 'local', agent: 'older-agent', error: expect.stringContaining('not supported') },
    ]);

    const pruning = client.request('/api/v1/images/prune', { method: 'POST', headers: PRUNE_HEADERS });
    await unsupported(await nextRequest(older, 'image.list'));
    const pruned = (await (await pruning).json()) as { removed: unknown[]; errors: unknown[] };
    expect(pruned).toMatchObject({ removed: [], skipped: [], reclaimedBytes: 0 });
    expect(pruned.errors).toEqual([expect.objectContaining({ watcher: 'local', agent: 'older-agent' })]);
    expect(older.received.some((frame) => frame.type === 'request' && frame.request.method === 'image.remove')).toBe(
      false,
    );
    older.close();
    await waitFor(
      () =>
        hostOf('older-agent') instanceof EdgeDockerHost && !(hostOf('older-agent') as EdgeDockerHost).connected
          ? true
          : undefined,
      5_000,
      'older-agent away',
    );
  });

  it('shows and prunes what a truncated list holds, names the host in errors, and leaves a refused image standing', async () => {
    const cut = await agent('cut-agent');
    const images = [USED, SPARE].map((id, n) => ({
      id,
      repoTags: [`app:${n}`],
      repoDigests: [],
      createdAt: Date.UTC(2026, 0, 1 + n),
      sizeBytes: 100 + n,
      containers: -1,
    }));
    const answer = async () => {
      const frame = await nextRequest(cut, 'image.list');
      cut.send({ type: 'reply', id: frame.id, ok: true, result: { images, truncated: true } });
    };

    const preview = client.request('/api/v1/images/prune-preview');
    await answer();
    const shown = (await (await preview).json()) as {
      data: { id: string; agent?: string }[];
      errors: { agent?: string }[];
    };
    expect(shown.data.map((image) => [image.id, image.agent])).toEqual([[SPARE, 'cut-agent']]);
    // The older agent of the test before is away now: its host is in errors too, under its own name.
    expect(shown.errors).toEqual([
      { watcher: 'local', agent: 'older-agent', error: 'agent older-agent is not connected' },
      { watcher: 'local', agent: 'cut-agent', error: expect.stringContaining('first 2 images') },
    ]);

    // The agent refuses the removal (a container created meanwhile): skipped, under the agent's name.
    const pruning = client.request('/api/v1/images/prune', { method: 'POST', headers: PRUNE_HEADERS });
    await answer();
    const removal = await nextRequest(cut, 'image.remove');
    expect(removal.request).toEqual({ method: 'image.remove', watcher: 'local', imageId: SPARE });
    cut.send({
      type: 'reply',
      id: removal.id,
      ok: false,
      error: { code: 'conflict', message: `the image ${SPARE} is used by late` },
    });
    const pruned = (await (await pruning).json()) as { removed: unknown[]; skipped: unknown[]; errors: unknown[] };
    expect(pruned.removed).toEqual([]);
    expect(pruned.skipped).toEqual([
      { id: SPARE, watcher: 'local', agent: 'cut-agent', error: expect.stringContaining('used by late') },
    ]);
    expect(pruned.errors).toEqual([
      expect.objectContaining({ agent: 'older-agent' }),
      expect.objectContaining({ agent: 'cut-agent' }),
    ]);
  });
});
