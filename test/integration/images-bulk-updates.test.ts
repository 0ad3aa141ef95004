/**
 * Update preview, bulk update and the image routes (http-interface §4.8, §4.14) on a real Docker Engine and
 * registry, with the hub as `npm start` runs it. What Docker did is checked with the test's own dockerode.
 */
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/schemas/audit-entry';
import type { Container } from '../../shared/schemas/container';
import type { HubOnDockerd } from '../support/docker/hub-on-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { type DockerdUpdateBed, startDockerdUpdateBed } from '../support/dockerd-update-bed';
import { expectJsonError, jsonInit } from '../support/hub-harness';
import { dataOf, openSse } from '../support/sse-client';

interface ImageView {
  id: string;
  watcher: string;
  repoTags: string[];
  containers: string[];
  keptBy: string[];
  prunable: boolean;
  sizeBytes: number;
}

const PRUNE_HEADERS = { 'X-DD-Confirm-Action': 'image-prune' };

describe('preview, bulk update and images on a real Docker Engine', () => {
  let bed: DockerdUpdateBed;
  let docker: Docker;
  let hub: HubOnDockerd;
  const ids: Record<string, string> = {};
  const refs: Record<string, string> = {};

  const byName = async (name: string): Promise<Container | undefined> =>
    (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);
  const images = async () =>
    (await hub.json<{ data: ImageView[]; total: number; errors: unknown[] }>('/api/v1/images')).data;
  const imageOf = (all: ImageView[], reference: string) => all.find((image) => image.repoTags.includes(reference));

  /** `name` runs `repository:1.0.0` (a `sleep` app: no healthcheck), with 2.0.0 published. */
  async function runApp(name: string, repository: string, labels: Record<string, string> = {}): Promise<void> {
    const from = await publishApp(bed.dockerd, bed.registry, { repository, tag: '1.0.0', kind: 'sleep' });
    refs[`${name}@2`] = await publishApp(bed.dockerd, bed.registry, { repository, tag: '2.0.0', kind: 'sleep' });
    refs[name] = from;
    await pullApp(bed.dockerd, from);
    ids[name] = await startWatchedApp(bed.dockerd, name, from, labels);
  }

  beforeAll(async () => {
    bed = await startDockerdUpdateBed(500);
    ({ docker, hub } = bed);
    await runApp('alpha', 'bulk/alpha');
    await runApp('beta', 'bulk/beta');
    await runApp('gamma', 'bulk/gamma', { 'dd.action.exclude': 'update' });
    // An image nothing uses: the one a prune may remove.
    refs['junk'] = await publishApp(bed.dockerd, bed.registry, {
      repository: 'bulk/junk',
      tag: '1.0.0',
      kind: 'sleep',
      keepLocal: true,
    });
    expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  }, 180_000);

  afterAll(() => bed?.stop());

  it('previews an update: target 2.0.0, the backup it would make, no blocker, and Docker untouched', async () => {
    const before = (await docker.listContainers({ all: true })).map((c) => `${c.Id} ${c.Names[0]} ${c.State}`).sort();
    const response = await hub.api(`/api/v1/containers/${ids['alpha']}/preview`, { method: 'POST' });
    expect(response.status).toBe(200);
    const preview = (await response.json()) as Record<string, unknown>;
    expect(preview).toMatchObject({
      containerName: 'alpha',
      current: { image: refs['alpha'], tag: '1.0.0' },
      target: { image: refs['alpha@2'], tag: '2.0.0' },
      triggerName: 'docker.update',
      backup: { made: true, imageReference: refs['alpha'], keep: 1, wouldDrop: [] },
      blockers: [],
      canUpdate: true,
    });
    const excluded = (await (
      await hub.api(`/api/v1/containers/${ids['gamma']}/preview`, { method: 'POST' })
    ).json()) as {
      blockers: { reason: string }[];
      canUpdate: boolean;
    };
    expect(excluded.canUpdate).toBe(false);
    expect(excluded.blockers.map((blocker) => blocker.reason)).toEqual(['excluded-by-labels']);
    expect((await docker.listContainers({ all: true })).map((c) => `${c.Id} ${c.Names[0]} ${c.State}`).sort()).toEqual(
      before,
    );
    expect(hub.parts.updates.unsettled()).toEqual([]);
    const audit = (await hub.json<{ data: AuditEntry[] }>('/api/v1/audit?actions=preview')).data;
    expect(audit.map((entry) => `${entry.containerName}:${entry.status}`).sort()).toEqual([
      'alpha:allowed',
      'gamma:blocked',
    ]);
  });

  it('lists images with what keeps each; the prune preview names only the unused one', async () => {
    const all = await images();
    expect(imageOf(all, refs['alpha'] ?? '')).toMatchObject({
      watcher: 'local',
      containers: ['alpha'],
      keptBy: ['container'],
      prunable: false,
    });
    expect(imageOf(all, refs['junk'] ?? '')).toMatchObject({ containers: [], keptBy: [], prunable: true });
    const preview = await hub.json<{ data: ImageView[]; total: number; reclaimableBytes: number }>(
      '/api/v1/images/prune-preview',
    );
    expect(preview.data.flatMap((image) => image.repoTags)).toEqual([refs['junk']]);
    expect(preview.reclaimableBytes).toBe(preview.data[0]?.sizeBytes);
    // Touching nothing.
    expect(imageOf(await images(), refs['junk'] ?? '')).toBeDefined();
  });

  it('updates two containers in one batch: 202 per-container results, then dd:batch-update-completed', async () => {
    const stream = await openSse(hub.api, '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');
    const response = await hub.api(
      '/api/v1/containers/update',
      jsonInit('POST', { containerIds: [ids['alpha'], ids['beta'], ids['gamma'], 'missing'] }),
    );
    expect(response.status).toBe(202);
    const body = (await response.json()) as {
      batchId: string;
      accepted: number;
      refused: number;
      results: { containerId: string; result: string; operationId?: string; status: number }[];
    };
    expect(body).toMatchObject({ total: 4, accepted: 2, refused: 2, batchId: expect.any(String) });
    expect(body.results.map((result) => `${result.result}:${result.status}`)).toEqual([
      'accepted:202',
      'accepted:202',
      'refused:409',
      'refused:404',
    ]);

    const completed = dataOf<Record<string, unknown>>(await stream.nextOfType('dd:batch-update-completed', 90_000));
    await stream.close();
    const operationIds = body.results.flatMap((result) => (result.operationId ? [result.operationId] : []));
    expect(completed).toMatchObject({
      batchId: body.batchId,
      total: 2,
      succeeded: 2,
      failed: 0,
      durationMs: expect.any(Number),
    });
    expect(
      (completed['items'] as { operationId: string; status: string }[])
        .map((item) => `${item.operationId}:${item.status}`)
        .sort(),
    ).toEqual(operationIds.map((id) => `${id}:succeeded`).sort());
    for (const id of operationIds) {
      expect(await hub.json(`/api/v1/update-operations/${id}`)).toMatchObject({
        status: 'succeeded',
        batchId: body.batchId,
      });
    }
    for (const name of ['alpha', 'beta']) {
      const running = (await docker.listContainers({ filters: { name: [`^/${name}$`] } }))[0];
      expect(running?.Image).toBe(refs[`${name}@2`]);
    }
    expect((await byName('gamma'))?.id).toBe(ids['gamma']);
  });

  it('prunes only what nothing needs: 428 without the token; backups, running and stopped containers keep theirs', async () => {
    // A stopped container keeps its image too.
    await docker.getContainer(ids['gamma'] ?? '').stop();
    const all = await images();
    expect(imageOf(all, refs['alpha'] ?? '')).toMatchObject({ containers: [], keptBy: ['backup'], prunable: false });
    expect(imageOf(all, refs['gamma'] ?? '')).toMatchObject({ containers: ['gamma'], keptBy: ['container'] });

    const refused = await expectJsonError(await hub.api('/api/v1/images/prune', { method: 'POST' }), 428);
    expect(refused.details).toEqual({ header: 'X-DD-Confirm-Action', expected: 'image-prune' });
    await expectJsonError(
      await hub.api('/api/v1/images/prune', jsonInit('POST', { imageIds: ['latest'] }, PRUNE_HEADERS)),
      400,
    );
    expect(imageOf(await images(), refs['junk'] ?? '')).toBeDefined();

    const response = await hub.api('/api/v1/images/prune', { method: 'POST', headers: PRUNE_HEADERS });
    expect(response.status).toBe(200);
    const pruned = (await response.json()) as { removed: ImageView[]; skipped: unknown[]; reclaimedBytes: number };
    expect(pruned.removed.flatMap((image) => image.repoTags)).toEqual([refs['junk']]);
    expect(pruned.skipped).toEqual([]);
    const left = (await docker.listImages()).flatMap((image) => image.RepoTags ?? []);
    expect(left).not.toContain(refs['junk']);
    for (const kept of ['alpha', 'alpha@2', 'beta', 'beta@2', 'gamma']) expect(left).toContain(refs[kept]);
    expect(await hub.json<{ total: number }>('/api/v1/images/prune-preview')).toMatchObject({ total: 0 });
  });

  it('keeps the image routes for admin', () => {
    const routes = hub.parts.routes.routes.filter((route) => route.fullPath.startsWith('/api/v1/images'));
    expect(routes.map((route) => `${route.spec.method} ${route.fullPath} ${route.spec.access}`).sort()).toEqual([
      'get /api/v1/images admin',
      'get /api/v1/images/prune-preview admin',
      'post /api/v1/images/prune admin',
    ]);
  });
});
