/**
 * The hub's part of a self-update (docs/updates.md "Self-update") on a real dockerd and registry,
 * without building the hub's image: a plain container stands for the hub's (the test names it as
 * the hub's own), and the helper's command is `sleep 30`, so the helper container stays to be
 * inspected and swaps nothing. The whole swap runs in test/images/self-update.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { dataOf, openSse } from '../support/sse-client';

const ACK_TIMEOUT_MS = 1_000;

describe("the hub's part of a self-update", () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let hub: HubOnDockerd;
  let selfId: string;
  let from: string;
  let to: string;

  beforeAll(async () => {
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    from = await publishApp(dockerd, registry, { repository: 'selfupdate/hub', tag: '1.0.0', kind: 'sleep' });
    to = await publishApp(dockerd, registry, { repository: 'selfupdate/hub', tag: '1.1.0', kind: 'sleep' });
    await pullApp(dockerd, from);
    selfId = await startWatchedApp(dockerd, 'dockwatch', from);
    hub = await startHubOnDockerd(
      dockerd,
      { DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20' },
      {
        selfContainerId: selfId,
        selfUpdateHelper: ['sleep', '30'],
        updates: { selfUpdateAckTimeoutMs: ACK_TIMEOUT_MS },
      },
    );
    expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await hub?.close();
    await Promise.all([dockerd?.stop(), registry?.stop()]);
  });

  it('goes on without an ack after ackTimeoutMs, pulls, and starts the helper with the hub container’s configuration', async () => {
    const stream = await openSse(hub.api, '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');
    const response = await hub.api(`/api/v1/containers/${selfId}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    const announced = dataOf(await stream.nextOfType('dd:self-update'));
    expect(announced).toEqual({
      opId: operationId,
      requiresAck: true,
      ackTimeoutMs: ACK_TIMEOUT_MS,
      startedAt: expect.any(String),
    });
    const waiting = await hub.json(`/api/v1/self-update/${operationId}/status`);
    expect(waiting).toEqual({ operationId, status: 'queued', phase: 'awaiting-ack' });

    // Nobody acks: after the timeout the hub pulls and hands over.
    const deadline = Date.now() + 30_000;
    let status: { phase?: string; status?: string } = {};
    while (status.phase !== 'helper-started' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await hub.json(`/api/v1/self-update/${operationId}/status`);
      expect(status.status).not.toBe('failed');
    }
    expect(status).toEqual({ operationId, status: 'in-progress', phase: 'helper-started' });
    await stream.close();

    const [helper] = await dockerd.docker.listContainers({
      all: true,
      filters: { label: [`dd.self-update.helper=${operationId}`] },
    });
    expect(helper).toBeDefined();
    const details = await dockerd.docker.getContainer(helper?.Id ?? '').inspect();
    const self = await dockerd.docker.getContainer(selfId).inspect();
    expect(details.Name).toMatch(/^\/dockwatch-self-update-\d+$/);
    // The image the hub runs now (it holds the helper), the helper's command, the operation to run.
    expect(details.Image).toBe(self.Image);
    expect(details.Config.Entrypoint).toEqual(['sleep']);
    expect(details.Config.Cmd).toEqual(['30']);
    expect(details.Config.Env).toContain(`DD_SELF_UPDATE_OPERATION=${operationId}`);
    expect(details.Config.Labels).toEqual({ 'dd.self-update.helper': operationId, 'dd.watch': 'false' });
    expect(details.Config.Healthcheck?.Test).toEqual(['NONE']);
    expect(details.HostConfig.AutoRemove).toBe(true);
    expect(details.HostConfig.RestartPolicy?.Name).toBe('no');
    expect(details.HostConfig.NetworkMode).toBe(self.HostConfig.NetworkMode);
    expect(details.State.Running).toBe(true);
    // The target was pulled; the hub's container is the helper's to swap, untouched so far.
    expect((await dockerd.docker.getImage(to).inspect()).Id).toEqual(expect.stringMatching(/^sha256:/));
    expect(self.State.Running).toBe(true);
    expect(self.Config.Image).toBe(from);

    // One swap at a time, and an ack that comes late has nothing to wait for.
    const again = await hub.api(`/api/v1/containers/${selfId}/update`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ details: { reason: 'self-update-running' } });
    const late = await hub.api(`/api/v1/events/ui/self-update/${operationId}/ack`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'gone', clientToken: 'gone' }),
    });
    expect(await late.json()).toEqual({ status: 'ignored', operationId });
    // The operation by id, as the hub knows it before the helper writes.
    expect(await hub.json(`/api/v1/update-operations/${operationId}`)).toMatchObject({
      id: operationId,
      containerName: 'dockwatch',
      targetImage: to,
    });
    await dockerd.docker.getContainer(helper?.Id ?? '').remove({ force: true });
  }, 60_000);
});
