/**
 * The test bed the edge-agent update integration tests share: a dockerd of the agent's host, a
 * plain registry, an agent key with the authorized_keys line the hub reads, and the few calls those
 * tests make against the hub (wait until a container is listed with an update, until an operation
 * settles). Each test file keeps its own hub (in process or a real process), its own agent (in
 * process or `npm run agent`) and what it asserts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { expect } from 'vitest';
import { createEdgeAgent, type EdgeAgent } from '../../edge-agent/src/agent/edge-agent';
import type { EdgeKey } from '../../edge-agent/src/keys/edge-key';
import { writeNewKeyFile } from '../../edge-agent/src/keys/key-file';
import { createAgentLogging } from '../../edge-agent/src/logging/agent-logging';
import { UpdateJournalFile } from '../../edge-agent/src/updates/update-journal-file';
import { toBase64 } from '../../shared/edge/sign-in';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { startDockerd, type TestDockerd } from './docker/start-dockerd';
import { type AppKind, publishApp, pullApp, startWatchedApp } from './docker/update-images';
import { type AgentProcess, signedIn, spawnAgent } from './edge-agent-process';
import { startRegistry, type TestRegistry } from './registry/start-registry';

/** The statuses an update operation ends in; the tests wait for one of them. */
const SETTLED = ['succeeded', 'rolled-back', 'failed'];

/**
 * Polls `probe` until it answers something other than undefined. Not edge-peer's waitFor: these
 * probes go to a hub (some ask it to watch), so they poll at 100 ms unless told otherwise, and a
 * timeout names what was awaited.
 */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The agent's host and registry, and the agent's identity; the hub and the agent are the test's. */
export interface EdgeUpdateBed {
  agentName: string;
  /** A temp dir of the file's own, removed by stop(). */
  dir: string;
  dockerd: TestDockerd;
  docker: Docker;
  registry: TestRegistry;
  keyFile: string;
  key: EdgeKey;
  /** authorized_keys holding the agent's key under agentName, for the hub's DD_EDGE_AUTHORIZED_KEYS. */
  authorizedKeys: string;
  /** Where `npm run agent -- --key <keyFile>` journals its updates (beside its key). */
  journalFile: string;
  stop(): Promise<void>;
}

/** Starts the agent's dockerd and a plain registry, and writes the agent's key and authorized_keys. */
export async function startEdgeUpdateBed(agentName: string): Promise<EdgeUpdateBed> {
  const dir = await mkdtemp(join(tmpdir(), `dd-${agentName}-`));
  const [dockerdStarted, registryStarted] = await Promise.allSettled([
    startDockerd(),
    startRegistry({ variant: 'plain' }),
  ]);
  if (dockerdStarted.status === 'rejected' || registryStarted.status === 'rejected') {
    // Whichever started must not outlive the failed start.
    if (dockerdStarted.status === 'fulfilled') await dockerdStarted.value.stop();
    if (registryStarted.status === 'fulfilled') await registryStarted.value.stop();
    await rm(dir, { recursive: true, force: true });
    throw dockerdStarted.status === 'rejected'
      ? dockerdStarted.reason
      : (registryStarted as PromiseRejectedResult).reason;
  }
  const dockerd = dockerdStarted.value;
  const registry = registryStarted.value;
  const keyFile = join(dir, 'agent.key');
  const key = await writeNewKeyFile(keyFile);
  const authorizedKeys = join(dir, 'authorized_keys');
  await writeFile(authorizedKeys, `${toBase64(key.publicKey)} ${agentName}\n`);
  return {
    agentName,
    dir,
    dockerd,
    docker: dockerd.docker,
    registry,
    keyFile,
    key,
    authorizedKeys,
    journalFile: `${keyFile}.updates.json`,
    async stop() {
      await Promise.all([dockerd.stop(), registry.stop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Publishes `<repository>` 1.0.0 and 2.0.0 of those kinds and starts a watched container `name` of
 * 1.0.0 on the agent's dockerd, so the hub has an update to offer; answers its Docker id.
 */
export async function runApp(
  bed: EdgeUpdateBed,
  name: string,
  repository: string,
  kinds: { from: AppKind; to: AppKind },
  labels: Record<string, string> = {},
): Promise<string> {
  const from = await publishApp(bed.dockerd, bed.registry, { repository, tag: '1.0.0', kind: kinds.from });
  await publishApp(bed.dockerd, bed.registry, { repository, tag: '2.0.0', kind: kinds.to });
  await pullApp(bed.dockerd, from);
  return startWatchedApp(bed.dockerd, name, from, labels);
}

/**
 * The agent in process, configured as `npm run agent` configures it (journal beside its key), with
 * short reconnect and update timings; answers it connected.
 */
export async function startInProcessAgent(bed: EdgeUpdateBed, hubUrl: string): Promise<EdgeAgent> {
  const { logger, ring } = createAgentLogging('info', () => {});
  const agent = createEdgeAgent({
    url: hubUrl,
    key: bed.key,
    agentName: bed.agentName,
    watchers: [
      {
        name: 'local',
        endpoint: { socketPath: bed.dockerd.socketPath },
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
    updateJournal: await UpdateJournalFile.open(bed.journalFile),
    updateTiming: { pollMs: 100, startSettleMs: 500 },
  });
  agent.start();
  await until(async () => (agent.connected ? true : undefined), 'agent connected');
  return agent;
}

/** The agent as a real process (`npm run agent`) on the bed's dockerd, reconnecting quickly; answers it signed in. */
export async function spawnBedAgent(
  bed: EdgeUpdateBed,
  hubUrl: string,
  env: Record<string, string> = {},
  signInTimeoutMs = 30_000,
): Promise<AgentProcess> {
  const agent = spawnAgent({
    hubUrl,
    keyFile: bed.keyFile,
    name: bed.agentName,
    env: {
      DD_WATCHER_LOCAL_SOCKET: bed.dockerd.socketPath,
      DD_EDGE_RECONNECT_MIN_MS: '100',
      DD_EDGE_RECONNECT_MAX_MS: '400',
      ...env,
    },
  });
  await agent.waitForLog(signedIn, signInTimeoutMs);
  return agent;
}

/** The hub calls the edge update tests wait on, for one agent. */
export interface EdgeUpdateApi {
  json<T>(path: string, init?: RequestInit): Promise<T>;
  /** The hub's record of the agent's container of that name, if listed. */
  byName(name: string): Promise<Container | undefined>;
  /** Asks the hub to watch until it lists the container (this Docker id, when given) with an update. */
  pending(name: string, options?: { id?: string; timeoutMs?: number; everyMs?: number }): Promise<Container>;
  /** Asks the hub to update the container (asserting its 202); answers the operation id. */
  requestUpdate(record: Container): Promise<string>;
  /** The operation once it has ended (succeeded, rolled back or failed). */
  settled(operationId: string, timeoutMs?: number): Promise<UpdateOperation>;
}

/**
 * Those calls over `request` (an in-process hub's request, or fetch to a hub process that may be
 * restarted, so it is looked up on each call).
 */
export function edgeUpdateApi(
  request: (path: string, init?: RequestInit) => Promise<Response>,
  agentName: string,
): EdgeUpdateApi {
  const json = async <T>(path: string, init?: RequestInit) => (await request(path, init)).json() as Promise<T>;
  const byName = async (name: string) =>
    (await json<{ data: Container[] }>(`/api/v1/containers?agent=${agentName}`)).data.find((c) => c.name === name);
  return {
    json,
    byName,
    pending: (name, { id, timeoutMs = 60_000, everyMs = 100 } = {}) =>
      until(
        async () => {
          await request('/api/v1/containers/watch', { method: 'POST' });
          const record = await byName(name);
          return record?.updateAvailable && (id === undefined || record.id === id) ? record : undefined;
        },
        `${name} listed with an update`,
        timeoutMs,
        everyMs,
      ),
    async requestUpdate(record) {
      const response = await request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
      expect(response.status).toBe(202);
      return ((await response.json()) as { operationId: string }).operationId;
    },
    settled: (operationId, timeoutMs = 90_000) =>
      until(
        async () => {
          const operation = await json<UpdateOperation>(`/api/v1/update-operations/${operationId}`);
          return SETTLED.includes(operation.status) ? operation : undefined;
        },
        `operation ${operationId} settled`,
        timeoutMs,
      ),
  };
}
