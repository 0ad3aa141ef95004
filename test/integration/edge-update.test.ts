/**
 * Updates of an edge agent's containers (issue 7 part 8), end to end on real components: the hub in
 * process with a Docker action trigger, a real agent (createEdgeAgent) on its own dockerd with a
 * file journal, and a plain registry holding 1.0.0 and 2.0.0. The agent runs the update engine; the
 * hub mirrors its phases into the operation it answers, with the same events.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeAgent, type EdgeAgent } from '../../edge-agent/src/edge/edge-agent';
import { UpdateJournalFile } from '../../edge-agent/src/edge/update-journal-file';
import type { EdgeKey } from '../../edge-agent/src/keys/edge-key';
import { writeNewKeyFile } from '../../edge-agent/src/keys/key-file';
import { createAgentLogging } from '../../edge-agent/src/logging/agent-logging';
import { toBase64 } from '../../shared/edge/sign-in';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { type AppKind, publishApp, pullApp } from '../support/docker/update-images';
import { type AgentProcess, signedIn, spawnAgent } from '../support/edge-agent-process';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const SETTLED = ['succeeded', 'rolled-back', 'failed'];
const AGENT = 'edge-one';

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('updates of an edge agent container, run by the agent on its own dockerd', () => {
  let dir: string;
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let docker: Docker;
  let hub: HubClient;
  let agent: EdgeAgent;
  let journalFile: string;
  /** Every dd:update-operation-changed phase the hub published, by operation. */
  const phases = new Map<string, string[]>();
  const applied: string[] = [];
  const failed: string[] = [];

  const json = async <T>(path: string, init?: RequestInit) => (await hub.request(path, init)).json() as Promise<T>;
  const byName = async (name: string) =>
    (await json<{ data: Container[] }>(`/api/v1/containers?agent=${AGENT}`)).data.find((c) => c.name === name);

  async function runApp(name: string, repository: string, kinds: { from: AppKind; to: AppKind }): Promise<string> {
    const from = await publishApp(dockerd, registry, { repository, tag: '1.0.0', kind: kinds.from });
    await publishApp(dockerd, registry, { repository, tag: '2.0.0', kind: kinds.to });
    await pullApp(dockerd, from);
    const created = await docker.createContainer({
      name,
      Image: from,
      Labels: { 'dd.watch': 'true' },
      StopTimeout: 2,
      HostConfig: { Init: true, NetworkMode: 'none' },
    });
    await created.start();
    return created.id;
  }

  /** The hub lists the container under the agent with 2.0.0 pending. */
  async function pending(name: string): Promise<Container> {
    return until(async () => {
      await hub.request('/api/v1/containers/watch', { method: 'POST' });
      const record = await byName(name);
      return record?.updateAvailable ? record : undefined;
    }, `${name} listed with an update`);
  }

  async function settled(id: string): Promise<UpdateOperation> {
    return until(
      async () => {
        const operation = await json<UpdateOperation>(`/api/v1/update-operations/${id}`);
        return SETTLED.includes(operation.status) ? operation : undefined;
      },
      `operation ${id} settled`,
      60_000,
    );
  }

  let key: EdgeKey;
  let keyFile: string;
  let agentProcess: AgentProcess | undefined;

  /** The agent as `npm run agent` starts it: its journal read from the file beside its key. */
  async function startAgent(): Promise<EdgeAgent> {
    const { logger, ring } = createAgentLogging('info', () => {});
    const started = createEdgeAgent({
      url: hub.url as string,
      key,
      agentName: AGENT,
      watchers: [
        {
          name: 'local',
          endpoint: { socketPath: dockerd.socketPath },
          cron: '0 * * * *',
          jitterSeconds: 0,
          watchAll: false,
          watchByDefault: true,
        },
      ],
      logger,
      ring,
      logLevel: 'info',
      reconnect: { minMs: 50, maxMs: 200 },
      eventDebounceMs: 50,
      updateJournal: await UpdateJournalFile.open(journalFile),
      updateTiming: { pollMs: 100, startSettleMs: 500 },
    });
    started.start();
    await until(async () => (started.connected ? true : undefined), 'agent connected');
    return started;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dd-edge-update-'));
    [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
    docker = dockerd.docker;
    keyFile = join(dir, 'agent.key');
    key = await writeNewKeyFile(keyFile);
    const authorizedKeys = join(dir, 'authorized_keys');
    await writeFile(authorizedKeys, `${toBase64(key.publicKey)} ${AGENT}\n`);
    hub = await createServerHub({
      DD_EDGE_AUTHORIZED_KEYS: authorizedKeys,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '5',
    });
    hub.hub.services.events.subscribe((event) => {
      const payload = event.data as Record<string, unknown>;
      const id = String(payload['operationId'] ?? '');
      if (event.type === 'dd:update-operation-changed') phases.set(id, [...(phases.get(id) ?? []), String(payload['phase'])]);
      if (event.type === 'dd:update-applied') applied.push(String(payload['containerName']));
      if (event.type === 'dd:update-failed') failed.push(String(payload['containerName']));
    });
    // Where `npm run agent -- --key agent.key` keeps it.
    journalFile = `${keyFile}.updates.json`;
    agent = await startAgent();
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await agentProcess?.kill('SIGKILL');
    await hub?.close();
    await Promise.all([dockerd?.stop(), registry?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('updates the container on the agent: 202, 2.0.0 runs on its dockerd, the phases are seen on the hub', async () => {
    const oldId = await runApp('web', 'edge/web', { from: 'http', to: 'http' });
    const record = await pending('web');
    expect(record).toMatchObject({ agent: AGENT, watcher: 'local' });
    const response = await hub.request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'succeeded', phase: 'succeeded', agent: AGENT, containerName: 'web', toVersion: '2.0.0' });
    const running = await docker.listContainers({ filters: { name: ['^/web$'] } });
    expect(running).toHaveLength(1);
    expect(running[0]?.Image).toBe(`${registry.host}/edge/web:2.0.0`);
    expect(running[0]?.Id).not.toBe(oldId);
    expect(phases.get(operationId)).toEqual(
      expect.arrayContaining(['prepare', 'renamed', 'new-created', 'old-stopped', 'new-started', 'succeeded']),
    );
    expect(applied).toContain('web');
    // The agent journalled it beside its key.
    const journal = JSON.parse(await readFile(journalFile, 'utf8')) as { operations: UpdateOperation[] };
    expect(journal.operations.find((entry) => entry.id === operationId)?.status).toBe('succeeded');
  }, 120_000);

  it('rolls back through the agent when the new image fails its healthcheck', async () => {
    const oldId = await runApp('sick', 'edge/sick', { from: 'http', to: 'unhealthy' });
    const record = await pending('sick');
    const response = await hub.request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(operation.rollbackReason).toBeTruthy();
    expect(phases.get(operationId)).toEqual(expect.arrayContaining(['health-gate', 'rollback-started', 'rolled-back']));
    const all = await docker.listContainers({ all: true });
    const sick = all.filter((c) => c.Names.some((n) => n.startsWith('/sick')));
    expect(sick.map((c) => [c.Id, c.State])).toEqual([[oldId, 'running']]);
    expect(failed).toContain('sick');
  }, 120_000);

  it('converges when the agent goes away mid-update: the agent settles it, reports it on reconnect, the hub mirrors the end', async () => {
    const oldId = await runApp('flap', 'edge/flap', { from: 'http', to: 'unhealthy' });
    const record = await pending('flap');
    const response = await hub.request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    await until(async () => (phases.get(operationId)?.includes('health-gate') ? true : undefined), 'health gate reached');
    // The link goes first, then the stopping agent rolls its update back: the hub hears none of it.
    await agent.stop();
    expect((await json<UpdateOperation>(`/api/v1/update-operations/${operationId}`)).status).toBe('in-progress');
    agent = await startAgent();
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back', rollbackReason: 'the agent is stopping' });
    const flap = (await docker.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.startsWith('/flap')));
    expect(flap.map((c) => [c.Id, c.State])).toEqual([[oldId, 'running']]);
  }, 120_000);

  it('settles an update cut short by a killed agent process at its next start, from its journal, and the hub converges', async () => {
    await agent.stop();
    const spawnOne = async () => {
      const started = spawnAgent({
        hubUrl: hub.url as string,
        keyFile,
        name: AGENT,
        env: { DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath, DD_EDGE_RECONNECT_MIN_MS: '100', DD_EDGE_RECONNECT_MAX_MS: '400' },
      });
      await started.waitForLog(signedIn, 30_000);
      return started;
    };
    agentProcess = await spawnOne();
    const oldId = await runApp('crash', 'edge/crash', { from: 'http', to: 'unhealthy' });
    const record = await pending('crash');
    const response = await hub.request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const { operationId } = (await response.json()) as { operationId: string };
    await until(async () => (phases.get(operationId)?.includes('health-gate') ? true : undefined), 'health gate reached');
    expect(await agentProcess.kill('SIGKILL')).toBe('SIGKILL');
    // Cut short: the old container stands by under its temporary name, the new one holds the name.
    const cut = (await docker.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.startsWith('/crash')));
    expect(cut).toHaveLength(2);
    expect((await json<UpdateOperation>(`/api/v1/update-operations/${operationId}`)).status).toBe('in-progress');
    agentProcess = await spawnOne();
    const operation = await settled(operationId);
    expect(operation).toMatchObject({ status: 'rolled-back', phase: 'rolled-back' });
    expect(operation.rollbackReason).toContain('health-gate');
    const crash = (await docker.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.startsWith('/crash')));
    expect(crash.map((c) => [c.Id, c.Names[0], c.State])).toEqual([[oldId, '/crash', 'running']]);
    expect(failed).toContain('crash');
  }, 180_000);
});
