/**
 * GET /api/v1/containers/{id}/sbom where no Docker is reachable, and for an edge agent's container
 * whose agent predates `image.export` (a scripted edge/1.0 peer answering `unsupported`, as such an
 * agent answers any unknown method; docs/security.md). Agents that export: test/integration/agent-security-scan.test.ts.
 * The documents themselves, on a real dockerd: test/integration/container-sbom.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import {
  type EdgePeer,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  signedInPeer,
  snapshotFrames,
  waitFor,
} from '../../support/edge-peer';
import {
  createServerHub,
  describeHubMatrix,
  expectJsonError,
  type HubClient,
  jsonInit,
} from '../../support/hub-harness';

const ID = 'a'.repeat(64);
const TIMINGS = { heartbeatMs: 10_000, silenceLimitMs: 30_000, signInDeadlineMs: 5_000, requestTimeoutMs: 5_000 };

describeHubMatrix('container SBOM route without Docker', (client) => {
  beforeAll(async () => {
    // A record whose watcher this hub does not run (no Docker here).
    await client().hub.parts.containers.put(containerRecord({ id: ID, watched: false }));
  });

  it('answers 404 for an unknown container, 400 for an unknown format, 503 without its watcher', async () => {
    await expectJsonError(await client().request(`/api/v1/containers/${'b'.repeat(64)}/sbom`), 404);
    const format = await expectJsonError(await client().request(`/api/v1/containers/${ID}/sbom?format=spdx-tag`), 400);
    expect(JSON.stringify(format)).toContain('format');
    const missing = await expectJsonError(await client().request(`/api/v1/containers/${ID}/sbom`), 503);
    expect(missing.details).toEqual({ watcher: 'local' });
  });
});

describe('container SBOM route for an edge agent’s container', () => {
  let client: HubClient;
  let peer: EdgePeer | undefined;

  beforeAll(async () => {
    client = await createServerHub({}, { edge: { timings: TIMINGS } });
    const identity = await newEdgeIdentity();
    const registered = await client.request(
      '/api/v1/edge/keys',
      jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'sbom' }),
    );
    expect(registered.status).toBe(201);
    peer = await signedInPeer(client.url as string, identity, 'far-agent', { watchers: [sampleWatcher()] });
    const imageId = `sha256:${'1'.repeat(64)}`;
    for (const frame of snapshotFrames('local', [sampleContainer('web', { imageId })], [sampleImage({ id: imageId })], {
      syncId: 'far-1',
    }))
      peer.send(frame);
  });

  afterAll(async () => {
    peer?.close();
    await client?.close();
  });

  it('answers a clear 503 naming the agent when the agent predates image.export', async () => {
    const container = await waitFor(
      async () => {
        const list = (await (await client.request('/api/v1/containers')).json()) as { data: Container[] };
        return list.data.find((item) => item.agent === 'far-agent');
      },
      5_000,
      'the agent’s container listed',
    );
    const answered = client.request(`/api/v1/containers/${container.id}/sbom`);
    const request = await (peer as EdgePeer).next('request');
    expect(request.request).toMatchObject({ method: 'image.export', imageId: `sha256:${'1'.repeat(64)}` });
    peer?.send({
      type: 'reply',
      id: request.id,
      ok: false,
      error: { code: 'unsupported', message: 'method image.export is not supported by this agent' },
    });
    const body = await expectJsonError(await answered, 503);
    expect(body.error).toMatch(/image\.export is not supported/);
    expect(body.details).toEqual({ reason: 'sbom-unsupported', agent: 'far-agent' });
    // An older agent never gets a credit frame: the hub grants more only once a chunk arrived.
    expect(peer?.received.some((frame) => frame.type === 'credit')).toBe(false);
  });
});
