/**
 * Updates, the image list and the prune on a listen-mode agent's host (docs/listen-mode.md "The
 * hub's side"), end to end on real components: the hub in process on a loopback listener, the
 * agent as a real process (`npm run agent -- --listen`) on its own dockerd with a journal file, and
 * a plain registry holding 1.0.0 and 2.0.0. The agent runs the edge agent's update engine; the hub
 * mirrors its phases (dd:operation events) into the operation it answers.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpdateOperation } from '../../shared/update-engine';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { type EdgeUpdateBed, edgeUpdateApi, runApp, startEdgeUpdateBed, until } from '../support/edge-update-bed';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { dockerImages, imageOf } from '../support/image-checks';
import { type ListenAgentProcess, startListenAgentProcess } from '../support/listen-agent-process';

const AGENT = 'lagent';
const SECRET = 'listen-updates-secret-0123456789';
const PRUNE_HEADERS = { 'X-DD-Confirm-Action': 'image-prune' };

interface ImageView {
  id: string;
  agent?: string;
  watcher: string;
  repoTags: string[];
  containers: string[];
  keptBy: string[];
  prunable: boolean;
}
interface ImageList {
  data: ImageView[];
  errors: { watcher: string; agent?: string; error: string }[];
}

describe("updates and images on a listen-mode agent's host, run by the agent on its own dockerd", () => {
  let bed: EdgeUpdateBed;
  let docker: Docker;
  let hub: HubClient;
  let agent: ListenAgentProcess | undefined;
  let journalFile: string;
  /** Every dd:update-operation-changed phase the hub published, by operation. */
  const phases = new Map<string, string[]>();

  const { json, pending, requestUpdate, settled } = edgeUpdateApi((path, init) => hub.request(path, init), AGENT);
  const { imageIdOf, imageExists } = dockerImages(() => docker);
  const containersNamed = async (prefix: string) =>
    (await docker.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.startsWith(`/${prefix}`)));
  /** The agent on a fixed port (the hub's DD_AGENT_LAGENT_PORT), its journal in the bed's directory. */
  const spawnAgent = (port: number) =>
    startListenAgentProcess({
      port,
      env: {
        DD_WATCHER_LOCAL_SOCKET: bed.dockerd.socketPath,
        DD_AGENT_SECRET: SECRET,
        DD_AGENT_UPDATE_JOURNAL: journalFile,
      },
    });
  const connected = () =>
    until(
      async () => {
        const { data } = await json<{ data: { name: string; connected: boolean }[] }>('/api/v1/agents');
        return data.find((entry) => entry.name === AGENT && entry.connected);
      },
      'the listen-mode agent connected',
      60_000,
    );

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    docker = bed.docker;
    journalFile = join(bed.dir, 'listen-agent.updates.json');
    agent = await spawnAgent(0);
    hub = await createServerHub({
      [`DD_AGENT_${AGENT.toUpperCase()}_HOST`]: '127.0.0.1',
      [`DD_AGENT_${AGENT.toUpperCase()}_PORT`]: String(agent.port),
      [`DD_AGENT_${AGENT.toUpperCase()}_SECRET`]: SECRET,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '5',
    });
    hub.hub.parts.events.subscribe((event) => {
      const payload = event.data as Record<string, unknown>;
      if (event.type === 'dd:update-operation-changed') {
        const id = String(payload['operationId'] ?? '');
        phases.set(id, [...(phases.get(id) ?? []), String(payload['phase'])]);
      }
    });
    await connected();
  }, 180_000);

  afterAll(async () => {
    await agent?.kill('SIGTERM');
    await hub?.close();
    await bed?.stop();
  }, 60_000);

  it("lists the agent's images through GET /api/v1/images and prunes the unused one on its dockerd", async () => {
    const usedRef = await publishApp(bed.dockerd, bed.registry, {
      repository: 'listen/used',
      tag: '1.0.0',
      kind: 'sleep',
    });
    await pullApp(bed.dockerd, usedRef);
    await startWatchedApp(bed.dockerd, 'used', usedRef);
    const unusedRef = await publishApp(bed.dockerd, bed.registry, {
      repository: 'listen/unused',
      tag: '1.0.0',
      kind: 'sleep',
      keepLocal: true,
    });
    const list = await until(
      async () => {
        const current = await json<ImageList>('/api/v1/images');
        return current.errors.length === 0 && imageOf(current.data, usedRef)?.containers.includes('used')
          ? current
          : undefined;
      },
      "the agent's images listed",
      60_000,
    );
    for (const image of list.data) expect(image).toMatchObject({ agent: AGENT, watcher: 'local' });
    const usedId = await imageIdOf(usedRef);
    const unusedId = await imageIdOf(unusedRef);
    expect(imageOf(list.data, usedRef)).toMatchObject({ id: usedId, keptBy: ['container'], prunable: false });
    expect(imageOf(list.data, unusedRef)).toMatchObject({ id: unusedId, containers: [], prunable: true });

    const preview = await json<ImageList>('/api/v1/images/prune-preview');
    expect(preview.errors).toEqual([]);
    expect(imageOf(preview.data, unusedRef)).toMatchObject({ agent: AGENT, prunable: true });
    expect(imageOf(preview.data, usedRef)).toBeUndefined();

    const response = await hub.request('/api/v1/images/prune', { method: 'POST', headers: PRUNE_HEADERS });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { removed: ImageView[]; errors: unknown[] };
    expect(result.errors).toEqual([]);
    expect(result.removed.map((image) => image.id)).toEqual([unusedId]);
    expect(await imageExists(unusedId)).toBe(false);
    expect(await imageExists(usedId)).toBe(true);
  }, 120_000);

  it('updates a container on the agent to the newer tag: 2.0.0 runs on its dockerd, the phases reach the hub', async () => {
    const oldId = await runApp(bed, 'web', 'listen/web', { from: 'http', to: 'http' });
    const record = await pending('web');
    expect(record).toMatchObject({ agent: AGENT, watcher: 'local' });
    const operationId = await requestUpdate(record);
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'succeeded', phase: 'succeeded', agent: AGENT, toVersion: '2.0.0' });
    const running = await docker.listContainers({ filters: { name: ['^/web$'] } });
    expect(running.map((c) => c.Image)).toEqual([`${bed.registry.host}/listen/web:2.0.0`]);
    expect(running[0]?.Id).not.toBe(oldId);
    expect(phases.get(operationId)).toEqual(
      expect.arrayContaining(['prepare', 'renamed', 'new-created', 'old-stopped', 'new-started', 'succeeded']),
    );
    // The agent journalled it in its file.
    const journal = JSON.parse(await readFile(journalFile, 'utf8')) as { operations: UpdateOperation[] };
    expect(journal.operations.find((entry) => entry.id === operationId)?.status).toBe('succeeded');
    // And the hub lists the container on its new image.
    await until(
      async () =>
        (
          await json<{ data: { name: string; image: { tag: { value: string } } }[] }>(
            `/api/v1/containers?agent=${AGENT}`,
          )
        ).data.find((c) => c.name === 'web')?.image.tag.value === '2.0.0'
          ? true
          : undefined,
      'web listed on 2.0.0',
    );
  }, 120_000);

  it('rolls back through the agent when the new image fails its health gate', async () => {
    const oldId = await runApp(bed, 'sick', 'listen/sick', { from: 'http', to: 'unhealthy' });
    const operationId = await requestUpdate(await pending('sick'));
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(operation.rollbackReason).toBeTruthy();
    expect(phases.get(operationId)).toEqual(expect.arrayContaining(['health-gate', 'rollback-started', 'rolled-back']));
    expect((await containersNamed('sick')).map((c) => [c.Id, c.State])).toEqual([[oldId, 'running']]);
  }, 120_000);

  it("cancels through the agent: the hub's cancel reaches it and it rolls back", async () => {
    const oldId = await runApp(bed, 'stay', 'listen/stay', { from: 'http', to: 'unhealthy' });
    const operationId = await requestUpdate(await pending('stay'));
    await until(
      async () => (phases.get(operationId)?.includes('health-gate') ? true : undefined),
      'health gate reached',
    );
    const cancel = await hub.request(`/api/v1/operations/${operationId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(operation.rollbackReason).toContain('cancelled by the hub');
    expect((await containersNamed('stay')).map((c) => [c.Id, c.State])).toEqual([[oldId, 'running']]);
  }, 120_000);

  it('settles an update when the agent is stopped (SIGTERM) mid-update, while its stream is still open', async () => {
    const oldId = await runApp(bed, 'flap', 'listen/flap', { from: 'http', to: 'unhealthy' });
    const operationId = await requestUpdate(await pending('flap'));
    await until(
      async () => (phases.get(operationId)?.includes('health-gate') ? true : undefined),
      'health gate reached',
    );
    const port = agent?.port as number;
    const stopping = agent?.kill('SIGTERM');
    try {
      // The hub hears the end from the stopping agent, before any restart: rolled back when the grace
      // ran out, or by the health gate if the healthcheck failed first.
      const operation = await settled(operationId, 20_000);
      expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
      expect(['the agent is stopping', 'the new container reported unhealthy']).toContain(operation.rollbackReason);
      expect(await stopping).toBe(0);
      expect((await containersNamed('flap')).map((c) => [c.Id, c.State])).toEqual([[oldId, 'running']]);
    } finally {
      await stopping;
      agent = await spawnAgent(port);
      await connected();
    }
  }, 120_000);

  it('settles an update cut short by a killed agent at its next start, from its journal, and the hub converges', async () => {
    const oldId = await runApp(bed, 'crash', 'listen/crash', { from: 'http', to: 'unhealthy' });
    const operationId = await requestUpdate(await pending('crash'));
    await until(
      async () => (phases.get(operationId)?.includes('health-gate') ? true : undefined),
      'health gate reached',
    );
    const port = agent?.port as number;
    expect(await agent?.kill('SIGKILL')).toBe('SIGKILL');
    // Cut short: the old container stands by under its temporary name, the new one holds the name.
    expect(await containersNamed('crash')).toHaveLength(2);
    expect((await json<UpdateOperation>(`/api/v1/update-operations/${operationId}`)).status).toBe('in-progress');
    agent = await spawnAgent(port);
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(operation.rollbackReason).toContain('health-gate');
    expect((await containersNamed('crash')).map((c) => [c.Id, c.Names[0], c.State])).toEqual([
      [oldId, '/crash', 'running'],
    ]);
    await connected();
  }, 180_000);
});
