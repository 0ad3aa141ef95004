/**
 * Updates of an edge agent's container at parity with local ones (docs/updates.md "On edge agents"), on real
 * components: the hub in process, a real agent (createEdgeAgent) on its own dockerd, a plain
 * registry. After the agent's update the hub keeps the backup (digest from the agent's inventory),
 * rolls back through the agent with the backup's configuration, prunes on the agent's host
 * (`image.remove`), and watches the automatic rollback window through the agent's inventory.
 */
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeAgent } from '../../edge-agent/src/agent/edge-agent';
import type { Container } from '../../shared/schemas/container';
import { TEMPORARY_NAME } from '../../shared/update-engine';
import type { TestDockerd } from '../support/docker/start-dockerd';
import { type AppKind, publishApp, pullApp } from '../support/docker/update-images';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  startEdgeUpdateBed,
  startInProcessAgent,
  until,
} from '../support/edge-update-bed';
import { createServerHub, type HubClient } from '../support/hub-harness';
import type { TestRegistry } from '../support/registry/start-registry';

const AGENT = 'edge-parity';

interface Backup {
  id: string;
  containerName: string;
  imageName: string;
  imageTag: string;
  imageDigest?: string;
  imageId: string;
  triggerName: string;
}

interface AuditEntry {
  action: string;
  containerName?: string;
  status: string;
  details?: string;
}

describe('an edge agent container: backups, rollback, prune and the automatic rollback window', () => {
  let bed: EdgeUpdateBed;
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let docker: Docker;
  let hub: HubClient;
  let agent: EdgeAgent;

  const api = edgeUpdateApi((path, init) => hub.request(path, init), AGENT);
  const { json, byName, settled } = api;
  const audit = async (actions: string) =>
    (await json<{ data: AuditEntry[] }>(`/api/v1/audit?actions=${actions}&limit=200`)).data;
  const imageExists = (id: string) =>
    docker
      .getImage(id)
      .inspect()
      .then(
        () => true,
        () => false,
      );
  const namesOf = async (prefix: string) =>
    (await docker.listContainers({ all: true }))
      .flatMap((c) => c.Names.map((n) => n.slice(1)))
      .filter((n) => n.startsWith(prefix));

  async function publish(repository: string, tags: Record<string, AppKind>): Promise<Record<string, string>> {
    const references: Record<string, string> = {};
    for (const [tag, kind] of Object.entries(tags))
      references[tag] = await publishApp(dockerd, registry, { repository, tag, kind });
    return references;
  }

  async function runApp(name: string, reference: string, labels: Record<string, string> = {}): Promise<string> {
    await pullApp(dockerd, reference);
    const created = await docker.createContainer({
      name,
      Image: reference,
      Labels: { 'dd.watch': 'true', ...labels },
      // A setting of its own the backup's configuration must bring back.
      Env: [`APP_NAME=${name}`],
      StopTimeout: 2,
      NetworkDisabled: true,
      HostConfig: { Init: true, NetworkMode: 'none' },
    });
    await created.start();
    return created.id;
  }

  /** The hub lists the container (by this Docker id) under the agent with an update pending. */
  const pending = (name: string, id: string) => api.pending(name, { id });

  /** The hub's record of the container once it is this Docker id (the agent's deltas brought it). */
  async function listedAs(name: string, id: string): Promise<Container> {
    return until(
      async () => {
        const record = await byName(name);
        return record?.id === id ? record : undefined;
      },
      `${name} listed as ${id.slice(0, 12)}`,
    );
  }

  const update = async (record: Container) => settled(await api.requestUpdate(record));

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    ({ docker, dockerd, registry } = bed);
    hub = await createServerHub(
      {
        DD_EDGE_AUTHORIZED_KEYS: bed.authorizedKeys,
        DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
        // Two backups per container; an image a dropped backup named is pruned on the agent.
        DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '2',
        DD_ACTION_DOCKER_UPDATE_PRUNE: 'true',
        // Chosen by containers labelled dd.action.include=lean: no backups, the replaced image pruned.
        DD_ACTION_DOCKER_LEAN_BACKUPCOUNT: '0',
        DD_ACTION_DOCKER_LEAN_PRUNE: 'true',
        DD_ACTION_DOCKER_LEAN_HEALTHTIMEOUT: '15',
        // The prune's refusals are logged at debug.
        DD_LOG_LEVEL: 'debug',
      },
      { updates: { autoRollbackPollMs: 200 } },
    );
    agent = await startInProcessAgent(bed, hub.url as string);
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await hub?.close();
    await bed?.stop();
  }, 60_000);

  it('keeps a backup of the agent update and rolls back through the agent: 1.0.0 → 2.0.0 → 1.0.0 (its image id, its configuration)', async () => {
    const refs = await publish('edge/web', { '1.0.0': 'http', '2.0.0': 'http' });
    const oldId = await runApp('web', refs['1.0.0'] as string);
    const before = await docker.getContainer(oldId).inspect();
    const oldImageId = before.Image;
    const oldDigest = (await docker.getImage(oldImageId).inspect()).RepoDigests[0]?.split('@')[1];
    expect(oldDigest).toMatch(/^sha256:/);

    const done = await update(await pending('web', oldId));
    expect(done).toMatchObject({ status: 'succeeded', agent: AGENT, toVersion: '2.0.0' });
    const newId = done.newContainerId as string;
    const backups = await until(async () => {
      const found = await json<{ data: Backup[] }>('/api/v1/containers/backups?containerName=web');
      return found.data.length > 0 ? found.data : undefined;
    }, 'the backup of the agent update');
    // http-interface §2.7 fields, the digest read from the agent's image inventory.
    expect(backups).toEqual([
      expect.objectContaining({
        id: done.id,
        containerName: 'web',
        imageName: `${registry.host}/edge/web`,
        imageTag: '1.0.0',
        imageDigest: oldDigest,
        imageId: oldImageId,
        triggerName: 'docker.update',
      }),
    ]);
    const current = await listedAs('web', newId);
    expect((await json<{ data: Backup[] }>(`/api/v1/containers/${current.id}/backups`)).data.map((b) => b.id)).toEqual([
      done.id,
    ]);

    // Changed after the update: the rollback must create the container with the backup's configuration, not this one.
    const changed = await dockerd.cli(['update', '--restart', 'always', newId]);
    expect(changed.code).toBe(0);
    expect((await docker.getContainer(newId).inspect()).HostConfig.RestartPolicy?.Name).toBe('always');
    const response = await hub.request(`/api/v1/containers/${current.id}/rollback`, {
      method: 'POST',
      headers: { 'X-DD-Confirm-Action': 'container-rollback' },
    });
    expect(response.status).toBe(200);
    const rollback = await settled(((await response.json()) as { operationId: string }).operationId);
    expect(rollback).toMatchObject({
      kind: 'rollback',
      status: 'succeeded',
      agent: AGENT,
      fromVersion: '2.0.0',
      toVersion: '1.0.0',
    });
    const restored = await docker.getContainer('web').inspect();
    expect(restored.Id).toBe(rollback.newContainerId);
    expect(restored.Image).toBe(oldImageId);
    expect(restored.Config.Image).toBe(refs['1.0.0']);
    expect(restored.Config.Env).toContain('APP_NAME=web');
    expect(restored.HostConfig.RestartPolicy?.Name).not.toBe('always');
    expect(restored.State.Running).toBe(true);
    expect(await namesOf('web')).toEqual(['web']);
    expect((await audit('rollback')).find((entry) => entry.containerName === 'web')).toMatchObject({
      status: 'succeeded',
    });
    // The rollback kept a backup of what it replaced (2.0.0), next to the older one.
    const after = await until(async () => {
      const found = await json<{ data: Backup[] }>('/api/v1/containers/backups?containerName=web');
      return found.data.length === 2 ? found.data : undefined;
    }, 'the backup of the rollback');
    expect(after.map((b) => b.imageTag)).toEqual(['2.0.0', '1.0.0']);
    for (const backup of after) expect(await imageExists(backup.imageId)).toBe(true);
  }, 240_000);

  it('prunes on the agent the image no backup keeps, and leaves one a container uses (conflict)', async () => {
    const refs = await publish('edge/lean', { '1.0.0': 'http', '2.0.0': 'http' });
    const oldId = await runApp('lean', refs['1.0.0'] as string, { 'dd.action.include': 'lean' });
    const oldImageId = (await docker.getContainer(oldId).inspect()).Image;
    // A second container of the same image: the first prune of it must be refused, not forced.
    const twinId = await runApp('lean-twin', refs['1.0.0'] as string, { 'dd.watch': 'false' });
    const done = await update(await pending('lean', oldId));
    expect(done).toMatchObject({ status: 'succeeded', triggerName: 'docker.lean' });
    expect((await json<{ total: number }>('/api/v1/containers/backups?containerName=lean')).total).toBe(0);
    // Refused by the agent (`conflict`) while the twin uses it: the image stays.
    const refusal = await until(
      async () =>
        hub.logged.find(
          ({ entry, fields }) => entry.msg === 'an image was not pruned' && fields?.['image'] === oldImageId,
        ),
      'the prune refused',
    );
    expect(refusal.entry.level).toBe('debug');
    expect(String(refusal.fields?.['error'])).toContain('lean-twin');
    expect(await imageExists(oldImageId)).toBe(true);

    // Without the twin, the next update's prune removes the image it replaces on the agent's host.
    await docker.getContainer(twinId).remove({ force: true });
    await publishApp(dockerd, registry, { repository: 'edge/lean', tag: '3.0.0', kind: 'http' });
    const secondImageId = (await docker.getContainer(done.newContainerId as string).inspect()).Image;
    const again = await update(await pending('lean', done.newContainerId as string));
    expect(again).toMatchObject({ status: 'succeeded', toVersion: '3.0.0' });
    await until(
      async () => ((await imageExists(secondImageId)) ? undefined : true),
      'the 2.0.0 image pruned on the agent',
      15_000,
    );
    expect((await docker.getContainer('lean').inspect()).Config.Image).toBe(`${registry.host}/edge/lean:3.0.0`);
  }, 240_000);

  it('rolls an agent container back by itself when it turns unhealthy within its dd.rollback.window', async () => {
    const refs = await publish('edge/guarded', { '1.0.0': 'flaky', '2.0.0': 'flaky' });
    const oldId = await runApp('guarded', refs['1.0.0'] as string, {
      'dd.rollback.auto': 'true',
      'dd.rollback.window': '60s',
    });
    const oldImageId = (await docker.getContainer(oldId).inspect()).Image;
    const done = await update(await pending('guarded', oldId));
    expect(done).toMatchObject({ status: 'succeeded', autoRollbackWindowMs: 60_000 });
    await listedAs('guarded', done.newContainerId as string);
    const sick = await dockerd.cli(['exec', done.newContainerId as string, 'touch', '/tmp/bad']);
    expect(sick.code).toBe(0);
    await until(
      async () => {
        const entries = await audit('auto-rollback');
        return entries.some((entry) => entry.containerName === 'guarded' && entry.status === 'succeeded')
          ? true
          : undefined;
      },
      'the automatic rollback succeeded',
      60_000,
    );
    const restored = await docker.getContainer('guarded').inspect();
    expect(restored.Image).toBe(oldImageId);
    expect(restored.State.Running).toBe(true);
    const entries = (await audit('auto-rollback')).filter((entry) => entry.containerName === 'guarded');
    expect(entries.map((entry) => entry.status)).toEqual(['succeeded', 'started']);
    expect(entries[1]?.details).toContain('turned unhealthy');
    expect((await namesOf('guarded')).filter((name) => TEMPORARY_NAME.test(name))).toEqual([]);
  }, 240_000);
});
