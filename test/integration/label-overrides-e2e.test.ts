import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHub } from '../../hub/src/adapter/node/start-node-hub';
import type { Container } from '../../shared/schemas/container';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { runContainer } from '../support/docker/test-images';
import { jsonInit } from '../support/hub-harness';
import { okJson } from '../support/hub-json';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { publishTestApp, startWatchingHub, testAppRef, waitFor } from '../support/test-app-image';

/**
 * Label overrides (docs/label-overrides.md) on real components: a dockerd, a registry with a newer
 * tag, and the hub as `npm start` runs it. An override hides an update at once, is kept when the
 * container is re-created (removed and run again under its name, as docker compose does), and
 * clearing it brings the label's behaviour back; a global override beats a container's label.
 */
describe('label overrides on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let dataDir: string;
  let hub: NodeHub;
  const ref = (tag: string) => testAppRef(registry, tag);

  const publish = (tag: string, build: string) => publishTestApp(dockerd, registry, tag, build);

  const api = (path: string, init?: RequestInit) => fetch(`${hub.url}/api/v1${path}`, init);
  const json = okJson(api);
  const byName = async (name: string): Promise<Container | undefined> =>
    (await json<{ data: Container[] }>('/containers')).data.find((c) => c.name === name);

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    dataDir = await mkdtemp(join(tmpdir(), 'hub-label-overrides-'));
    await publish('1.0.0', 'one');
    await publish('2.0.0', 'two');
    await runContainer(dockerd.docker, { name: 'web', image: ref('1.0.0') });
    await runContainer(dockerd.docker, { name: 'quiet', image: ref('1.0.0'), labels: { 'dd.watch': 'false' } });
    hub = await startWatchingHub(dockerd, dataDir);
    await json('/containers/watch', { method: 'POST' });
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await dockerd?.stop();
    await registry?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('dd.watch=false through the API hides the update at once, without re-creating the container', async () => {
    const web = (await byName('web')) as Container;
    expect(web).toMatchObject({ watched: true, updateAvailable: true, updateKind: { remoteValue: '2.0.0' } });
    const hidden = await json<Container>(
      `/containers/${web.id}/label-overrides`,
      jsonInit('PUT', { labels: { 'dd.watch': 'false' } }),
    );
    expect(hidden).toMatchObject({ id: web.id, watched: false, updateAvailable: false });
    expect(hidden.effectiveLabels?.['dd.watch']).toEqual({ value: 'false', source: 'override' });
    expect((await dockerd.docker.getContainer(web.id).inspect()).Config.Labels).not.toHaveProperty('dd.watch');
    // A full watch cycle applies the override as well.
    await json('/containers/watch', { method: 'POST' });
    expect(await byName('web')).toMatchObject({ id: web.id, watched: false, updateAvailable: false });
  });

  it('keeps the override when the container is re-created under its name; clearing it restores the label', async () => {
    const old = (await byName('web')) as Container;
    await dockerd.docker.getContainer(old.id).remove({ force: true });
    const freshId = await runContainer(dockerd.docker, { name: 'web', image: ref('1.0.0') });
    await waitFor(async () => (await byName('web'))?.id === freshId, 15_000);
    await json('/containers/watch', { method: 'POST' });
    const fresh = (await byName('web')) as Container;
    expect(fresh).toMatchObject({ id: freshId, watched: false, updateAvailable: false });
    expect(fresh.effectiveLabels?.['dd.watch']).toEqual({ value: 'false', source: 'override' });

    const cleared = await json<Container>(`/containers/${freshId}/label-overrides`, { method: 'DELETE' });
    // Watched again, and checked against the registry right away.
    expect(cleared).toMatchObject({ watched: true, updateAvailable: true, updateKind: { remoteValue: '2.0.0' } });
    expect(cleared.effectiveLabels?.['dd.watch']).toEqual({ value: 'true', source: 'default' });
    const audit = await json<{ data: { action: string; containerName?: string }[] }>('/audit?limit=200');
    expect(audit.data.map((entry) => `${entry.action}:${entry.containerName}`)).toEqual(
      expect.arrayContaining(['label-override-set:web', 'label-override-cleared:web']),
    );
  });

  it("a global override by selector wins over a container's own dd.watch label, and goes with its deletion", async () => {
    expect(await byName('quiet')).toMatchObject({ watched: false, updateAvailable: false });
    const override = await json<{ id: string }>(
      '/label-overrides',
      jsonInit('POST', { selector: { name: 'qu*', image: `${registry.host}/test/*` }, labels: { 'dd.watch': 'true' } }),
    );
    const quiet = (await byName('quiet')) as Container;
    expect(quiet).toMatchObject({ watched: true, updateAvailable: true });
    expect(quiet.effectiveLabels?.['dd.watch']).toEqual({ value: 'true', source: 'global-override' });
    expect((await byName('web'))?.effectiveLabels?.['dd.watch']?.source).toBe('default');
    await json(`/label-overrides/${override.id}`, { method: 'DELETE' });
    const back = (await byName('quiet')) as Container;
    expect(back).toMatchObject({ watched: false, updateAvailable: false });
    expect(back.effectiveLabels?.['dd.watch']).toEqual({ value: 'false', source: 'label' });
  });
});
