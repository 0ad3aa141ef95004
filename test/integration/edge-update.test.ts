/**
 * Updates of an edge agent's containers (docs/updates.md "On edge agents"), end to end on real components: the hub in
 * process with a Docker action trigger, a real agent (createEdgeAgent) on its own dockerd with a
 * file journal, and a plain registry holding 1.0.0 and 2.0.0. The agent runs the update engine; the
 * hub mirrors its phases into the operation it answers, with the same events.
 */
import { readFile } from 'node:fs/promises';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeAgent } from '../../edge-agent/src/agent/edge-agent';
import type { UpdateOperation } from '../../shared/update-engine';
import type { AgentProcess } from '../support/edge-agent-process';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  runApp,
  spawnBedAgent,
  startEdgeUpdateBed,
  startInProcessAgent,
  until,
} from '../support/edge-update-bed';
import { createServerHub, type HubClient } from '../support/hub-harness';
import type { TestRegistry } from '../support/registry/start-registry';

const AGENT = 'edge-one';

describe('updates of an edge agent container, run by the agent on its own dockerd', () => {
  let bed: EdgeUpdateBed;
  let registry: TestRegistry;
  let docker: Docker;
  let hub: HubClient;
  let agent: EdgeAgent;
  let agentProcess: AgentProcess | undefined;
  /** Every dd:update-operation-changed phase the hub published, by operation. */
  const phases = new Map<string, string[]>();
  const applied: string[] = [];
  const failed: string[] = [];

  const { json, pending, requestUpdate, settled } = edgeUpdateApi((path, init) => hub.request(path, init), AGENT);
  /** Until the hub published the operation's health-gate phase (where the tests stop the agent). */
  const healthGateSeen = (operationId: string) =>
    until(async () => (phases.get(operationId)?.includes('health-gate') ? true : undefined), 'health gate reached');
  /** The containers on the agent's dockerd whose name starts with `prefix`, stopped ones included. */
  const containersNamed = async (prefix: string) =>
    (await docker.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.startsWith(`/${prefix}`)));
  /** The agent as `npm run agent` starts it: its journal read from the file beside its key. */
  const startAgent = () => startInProcessAgent(bed, hub.url as string);

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    ({ docker, registry } = bed);
    hub = await createServerHub({
      DD_EDGE_AUTHORIZED_KEYS: bed.authorizedKeys,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '5',
    });
    hub.hub.parts.events.subscribe((event) => {
      const payload = event.data as Record<string, unknown>;
      const id = String(payload['operationId'] ?? '');
      if (event.type === 'dd:update-operation-changed')
        phases.set(id, [...(phases.get(id) ?? []), String(payload['phase'])]);
      if (event.type === 'dd:update-applied') applied.push(String(payload['containerName']));
      if (event.type === 'dd:update-failed') failed.push(String(payload['containerName']));
    });
    agent = await startAgent();
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await agentProcess?.kill('SIGKILL');
    await hub?.close();
    await bed?.stop();
  }, 60_000);

  it('updates the container on the agent: 202, 2.0.0 runs on its dockerd, the phases are seen on the hub', async () => {
    const oldId = await runApp(bed, 'web', 'edge/web', { from: 'http', to: 'http' });
    const record = await pending('web');
    expect(record).toMatchObject({ agent: AGENT, watcher: 'local' });
    const operationId = await requestUpdate(record);
    const operation = await settled(operationId);
    expect(operation).toMatchObject({
      status: 'succeeded',
      phase: 'succeeded',
      agent: AGENT,
      containerName: 'web',
      toVersion: '2.0.0',
    });
    const running = await docker.listContainers({ filters: { name: ['^/web$'] } });
    expect(running).toHaveLength(1);
    expect(running[0]?.Image).toBe(`${registry.host}/edge/web:2.0.0`);
    expect(running[0]?.Id).not.toBe(oldId);
    expect(phases.get(operationId)).toEqual(
      expect.arrayContaining(['prepare', 'renamed', 'new-created', 'old-stopped', 'new-started', 'succeeded']),
    );
    expect(applied).toContain('web');
    // The agent journalled it beside its key.
    const journal = JSON.parse(await readFile(bed.journalFile, 'utf8')) as { operations: UpdateOperation[] };
    expect(journal.operations.find((entry) => entry.id === operationId)?.status).toBe('succeeded');
  }, 120_000);

  it('rolls back through the agent when the new image fails its healthcheck', async () => {
    const oldId = await runApp(bed, 'sick', 'edge/sick', { from: 'http', to: 'unhealthy' });
    const record = await pending('sick');
    const operationId = await requestUpdate(record);
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(operation.rollbackReason).toBeTruthy();
    expect(phases.get(operationId)).toEqual(expect.arrayContaining(['health-gate', 'rollback-started', 'rolled-back']));
    const sick = await containersNamed('sick');
    expect(sick.map((c) => [c.Id, c.State])).toEqual([[oldId, 'running']]);
    expect(failed).toContain('sick');
  }, 120_000);

  it('settles an update when the agent stops mid-update: rolled back with the link still open, so the hub mirrors the end at once', async () => {
    const oldId = await runApp(bed, 'flap', 'edge/flap', { from: 'http', to: 'unhealthy' });
    const record = await pending('flap');
    const operationId = await requestUpdate(record);
    await healthGateSeen(operationId);
    // The stopping agent settles its update before it closes the link (docs/edge-protocol.md "Disconnects"):
    // the hub hears the rollback without waiting for the agent to come back.
    await agent.stop();
    const operation = await settled(operationId);
    expect(operation).toMatchObject({
      status: 'rolled-back',
      phase: 'rolled-back',
      rollbackReason: 'the agent is stopping',
    });
    agent = await startAgent();
    const flap = await containersNamed('flap');
    expect(flap.map((c) => [c.Id, c.State])).toEqual([[oldId, 'running']]);
  }, 120_000);

  it('settles an update cut short by a killed agent process at its next start, from its journal, and the hub converges', async () => {
    await agent.stop();
    const spawnOne = () => spawnBedAgent(bed, hub.url as string);
    agentProcess = await spawnOne();
    const oldId = await runApp(bed, 'crash', 'edge/crash', { from: 'http', to: 'unhealthy' });
    const record = await pending('crash');
    const operationId = await requestUpdate(record);
    await healthGateSeen(operationId);
    expect(await agentProcess.kill('SIGKILL')).toBe('SIGKILL');
    // Cut short: the old container stands by under its temporary name, the new one holds the name.
    const cut = await containersNamed('crash');
    expect(cut).toHaveLength(2);
    expect((await json<UpdateOperation>(`/api/v1/update-operations/${operationId}`)).status).toBe('in-progress');
    agentProcess = await spawnOne();
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(operation.rollbackReason).toContain('health-gate');
    const crash = await containersNamed('crash');
    expect(crash.map((c) => [c.Id, c.Names[0], c.State])).toEqual([[oldId, '/crash', 'running']]);
    expect(failed).toContain('crash');
  }, 180_000);
});
