/**
 * A skip taken back shows the update again (found by the UI journey in CI): a watch cycle that ran
 * while 2.0.0 was skipped asked the registry without it and found no update; removing the skip only
 * recomputed the record's blockers, so the update stayed hidden until the next cycle (an hour on a
 * default cron). The hub as `npm start` runs it, on a real dockerd, a plain registry with 1.0.0 and
 * 2.0.0 pushed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { until } from '../support/edge-update-bed';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

describe('a skip taken back', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let hub: HubOnDockerd;
  let id: string;

  const record = async () =>
    (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === 'skipper');
  const policy = (body: unknown) =>
    hub.api(`/api/v1/containers/${id}/update-policy`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const watchAll = async () => expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    const from = await publishApp(dockerd, registry, { repository: 'skip/app', tag: '1.0.0', kind: 'http' });
    await publishApp(dockerd, registry, { repository: 'skip/app', tag: '2.0.0', kind: 'http' });
    await pullApp(dockerd, from);
    await startWatchedApp(dockerd, 'skipper', from);
    hub = await startHubOnDockerd(dockerd);
    await watchAll();
    id = (await record())?.id as string;
    expect(await record()).toMatchObject({ updateAvailable: true, updateKind: { remoteValue: '2.0.0' } });
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await Promise.all([dockerd?.stop(), registry?.stop()]);
  });

  for (const takeBack of [
    { action: 'remove-skip', kind: 'tag', value: '2.0.0' },
    { action: 'clear-skips' },
    { action: 'clear' },
  ]) {
    it(`shows the update again after ${takeBack.action}, with no cycle of its own`, async () => {
      expect((await policy({ action: 'skip-current' })).status).toBe(200);
      // A cycle while 2.0.0 is skipped: the registry is asked without it, and no update is found.
      await watchAll();
      expect((await record())?.updateAvailable).toBe(false);

      expect((await policy(takeBack)).status).toBe(200);
      const shown = await until(
        async () => ((await record())?.updateAvailable ? await record() : undefined),
        'the update shown again',
        20_000,
      );
      expect(shown).toMatchObject({ updateAvailable: true, updateKind: { remoteValue: '2.0.0' } });
      expect(shown?.updatePolicy.skipTags ?? []).toEqual([]);
    }, 60_000);
  }
});
