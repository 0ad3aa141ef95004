/**
 * The image routes (http-interface §4.14) on an edge agent's host, on real components: a hub listening on
 * 127.0.0.1, the agent as a real process (`npm run agent`) on its own dockerd, a plain registry.
 * The hub lists the agent's images through `image.list`, keeps the one a container uses and
 * prunes the other through `image.remove`; what Docker did is checked with the bed's own dockerode.
 */
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import type { AgentProcess } from '../support/edge-agent-process';
import { type EdgeUpdateBed, spawnBedAgent, startEdgeUpdateBed, until } from '../support/edge-update-bed';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { dockerImages, imageOf } from '../support/image-checks';

const AGENT = 'edge-images';
const PRUNE_HEADERS = { 'X-DD-Confirm-Action': 'image-prune' };

interface ImageView {
  id: string;
  watcher: string;
  agent?: string;
  repoTags: string[];
  containers: string[];
  keptBy: string[];
  prunable: boolean;
  sizeBytes: number;
}

interface HostFailure {
  watcher: string;
  agent?: string;
  error: string;
}

interface ImageList {
  data: ImageView[];
  total: number;
  errors: HostFailure[];
}

describe("the image list and prune on an edge agent's host", () => {
  let bed: EdgeUpdateBed;
  let docker: Docker;
  let hub: HubClient;
  let agent: AgentProcess | undefined;
  let usedRef: string;
  let unusedRef: string;

  const json = async <T>(path: string, init?: RequestInit): Promise<T> =>
    (await hub.request(path, init)).json() as Promise<T>;
  const { imageIdOf, imageExists } = dockerImages(() => docker);

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    docker = bed.docker;
    // `used` runs on the agent's host; `unused` is only pulled (kept local after its push).
    usedRef = await publishApp(bed.dockerd, bed.registry, { repository: 'edge/used', tag: '1.0.0', kind: 'sleep' });
    await pullApp(bed.dockerd, usedRef);
    await startWatchedApp(bed.dockerd, 'used', usedRef);
    unusedRef = await publishApp(bed.dockerd, bed.registry, {
      repository: 'edge/unused',
      tag: '1.0.0',
      kind: 'sleep',
      keepLocal: true,
    });
    hub = await createServerHub({ DD_EDGE_AUTHORIZED_KEYS: bed.authorizedKeys });
    agent = await spawnBedAgent(bed, hub.url as string, {}, 60_000);
  }, 180_000);

  afterAll(async () => {
    await agent?.kill('SIGTERM');
    await hub?.close();
    await bed?.stop();
  }, 60_000);

  /** The hub's list once the agent's inventory is in (before that the host is in `errors`). */
  const listed = () =>
    until(
      async () => {
        const list = await json<ImageList>('/api/v1/images');
        return list.errors.length === 0 && imageOf(list.data, usedRef)?.containers.includes('used') ? list : undefined;
      },
      "the agent's images listed",
      60_000,
    );

  it("lists the agent's images under its name: the running container's image kept, the unused one prunable", async () => {
    const list = await listed();
    expect(list.total).toBe(list.data.length);
    // The hub has no Docker host of its own here: everything listed is the agent's.
    for (const image of list.data) expect(image).toMatchObject({ agent: AGENT, watcher: 'local' });
    expect(imageOf(list.data, usedRef)).toMatchObject({
      id: await imageIdOf(usedRef),
      containers: ['used'],
      keptBy: ['container'],
      prunable: false,
    });
    expect(imageOf(list.data, unusedRef)).toMatchObject({
      id: await imageIdOf(unusedRef),
      containers: [],
      keptBy: [],
      prunable: true,
    });

    const preview = await json<ImageList & { reclaimableBytes: number }>('/api/v1/images/prune-preview');
    expect(preview.errors).toEqual([]);
    expect(imageOf(preview.data, unusedRef)).toMatchObject({ agent: AGENT, prunable: true });
    expect(imageOf(preview.data, usedRef)).toBeUndefined();
    expect(preview.reclaimableBytes).toBe(preview.data.reduce((sum, image) => sum + image.sizeBytes, 0));
  });

  it("prunes the unused image on the agent's dockerd and keeps the used one", async () => {
    const usedId = await imageIdOf(usedRef);
    const unusedId = await imageIdOf(unusedRef);
    expect((await hub.request('/api/v1/images/prune', { method: 'POST' })).status).toBe(428);
    expect(await imageExists(unusedId)).toBe(true);

    const response = await hub.request('/api/v1/images/prune', { method: 'POST', headers: PRUNE_HEADERS });
    expect(response.status).toBe(200);
    const result = (await response.json()) as {
      removed: ImageView[];
      skipped: { id: string }[];
      errors: HostFailure[];
    };
    expect(result.errors).toEqual([]);
    expect(result.removed).toContainEqual(expect.objectContaining({ id: unusedId, agent: AGENT, watcher: 'local' }));
    expect(result.removed.map((image) => image.id)).not.toContain(usedId);
    expect(result.skipped.map((image) => image.id)).not.toContain(usedId);

    expect(await imageExists(unusedId)).toBe(false);
    expect(await imageExists(usedId)).toBe(true);
    const after = await json<ImageList>('/api/v1/images');
    expect(imageOf(after.data, unusedRef)).toBeUndefined();
    expect(imageOf(after.data, usedRef)).toMatchObject({ keptBy: ['container'] });
  });

  it('reports a disconnected agent in errors under its name, showing and pruning nothing of its host', async () => {
    await agent?.kill('SIGTERM');
    agent = undefined;
    const list = await until(
      async () => {
        const current = await json<ImageList>('/api/v1/images');
        return current.errors.length > 0 ? current : undefined;
      },
      'the agent reported as away',
      30_000,
    );
    expect(list.data).toEqual([]);
    expect(list.errors).toEqual([{ watcher: 'local', agent: AGENT, error: expect.stringContaining(AGENT) }]);

    const usedId = await imageIdOf(usedRef);
    const pruned = await json<{ removed: ImageView[]; errors: HostFailure[] }>('/api/v1/images/prune', {
      method: 'POST',
      headers: PRUNE_HEADERS,
    });
    expect(pruned.removed).toEqual([]);
    expect(pruned.errors).toEqual([expect.objectContaining({ watcher: 'local', agent: AGENT })]);
    expect(await imageExists(usedId)).toBe(true);
  });
});
