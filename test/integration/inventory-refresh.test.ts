import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDockerHost } from '../../edge-agent/src/docker';
import type { Hub } from '../../hub/src/compose-hub';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { freezeProcess } from '../support/freeze-process';
import { createMemoryHub } from '../support/hub-harness';

/**
 * http-interface §4.3's guarantees about time: a refresh past its deadline answers 504, and a refresh
 * superseded by a newer one reports itself stale and removes nothing. A real dockerd frozen with
 * SIGSTOP (waited for until every thread has stopped) makes the timing deterministic.
 */
describe('inventory refresh deadlines and superseded requests, on a real dockerd', () => {
  let dockerd: TestDockerd;
  let hub: Hub;
  let pid: number;
  const post = () => hub.app.request('/api/v1/watchers/docker/local/inventory', { method: 'POST' });

  beforeAll(async () => {
    dockerd = await startDockerd();
    await importBusyboxImage(dockerd.docker, { repository: 'test/app', tag: '1', cmd: ['sleep', '3600'] });
    await runContainer(dockerd.docker, { name: 'web', image: 'test/app:1', labels: { 'dd.watch': 'false' } });
    pid = Number(await readFile(join(dirname(dockerd.socketPath), 'dockerd.pid'), 'utf8'));
    const client = await createMemoryHub(
      { DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath, DD_WATCHER_LOCAL_CRON: '0 0 1 1 *' },
      { dockerHostFor: (endpoint) => createDockerHost(endpoint), inventoryDeadlineMs: 1_000 },
    );
    hub = client.hub;
    expect((await (await post()).json()).containers.map((c: { name: string }) => c.name)).toEqual(['web']);
  }, 60_000);

  afterAll(async () => {
    process.kill(pid, 'SIGCONT');
    await hub?.stop();
    await dockerd?.stop();
  });

  it('answers 504 past the deadline, with the operation id', async () => {
    await freezeProcess(pid);
    try {
      const response = await post();
      const body = await response.json();
      // The whole answer in the failure: a 200 says what the refresh saw without the daemon.
      expect(response.status, JSON.stringify(body)).toBe(504);
      expect(body.details.operationId).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('reports a superseded refresh as stale and lets it remove nothing', async () => {
    await freezeProcess(pid);
    const first = post();
    const second = post();
    // Both wait on the frozen daemon, so the second has superseded the first before either observes anything.
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(pid, 'SIGCONT');
    const [older, newer] = await Promise.all([(await first).json(), (await second).json()]);
    expect(older.errors).toEqual(expect.arrayContaining([expect.objectContaining({ phase: 'stale' })]));
    expect(older).toMatchObject({ authoritative: false, removedIds: [] });
    expect(newer).toMatchObject({ authoritative: true, errors: [] });
    expect(newer.context.operationId).not.toBe(older.context.operationId);
  });
});
