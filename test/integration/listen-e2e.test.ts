import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { type Agent, AgentSchema } from '../../shared/schemas/agent';
import type { Container } from '../../shared/schemas/container';
import { agentConnected, refreshAgentInventory } from '../support/agent-e2e';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { waitFor } from '../support/edge-peer';
import { okJson } from '../support/hub-json';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import { type ListenAgentProcess, startListenAgentProcess } from '../support/listen-agent-process';
import { dataOf, openSse, type SseStream } from '../support/sse-client';

// A repository on a closed loopback port: should a registry check ever run, it fails at once, locally.
const IMAGE = '127.0.0.1:9/listen-e2e/app:1';
const SECRET = 'e2e-listen-secret-5f0c9a7d3b1e48c2';
const LISTED_WITHIN_MS = 5_000;

/**
 * A listen-mode agent end to end, every part a real process: the agent as `npm run agent --
 * --listen` runs it beside a real dockerd (its secret from DD_AGENT_SECRET_FILE), and the hub as
 * `npm start` runs it, configured with DD_AGENT_NAS_HOST/_PORT/_SECRET__FILE. The hub connects to
 * the agent, lists it like an edge agent, acts through it, sees it go and resyncs when it returns.
 * The tests run in order, each on the state the one before left.
 */
describe('listen-mode agent and hub as real processes', () => {
  let dir: string;
  let dockerd: TestDockerd;
  let agent: ListenAgentProcess;
  let agentEnv: Record<string, string>;
  let hub: HubProcess;
  let baseId: string;
  let lateId: string;

  const api = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init);
  const json = okJson(api);
  const agentNamed = async (name: string) =>
    (await json<{ data: Agent[] }>('/api/v1/agents')).data.find((a) => a.name === name);
  const containersOf = async (query: string) => (await json<{ data: Container[] }>(`/api/v1/containers?${query}`)).data;
  const connected = (expected: boolean, timeoutMs = 15_000) => agentConnected(json, 'nas', expected, timeoutMs);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listen-e2e-'));
    dockerd = await startDockerd();
    const [repository, tag] = IMAGE.split(/:(?=[^:]*$)/) as [string, string];
    await importBusyboxImage(dockerd.docker, { repository, tag, cmd: ['sleep', '3600'] });
    baseId = await runContainer(dockerd.docker, { name: 'base', image: IMAGE, env: ['API_TOKEN=s3cr3t'] });
    const secretFile = join(dir, 'agent-secret');
    await writeFile(secretFile, `${SECRET}\n`, { mode: 0o600 });
    agentEnv = {
      DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
      // Nothing is watched: no registry check runs (the image's registry is a closed port anyway).
      DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'false',
      // Stopped containers stay listed, so one stopped through the hub can be started through it again.
      DD_WATCHER_LOCAL_WATCHALL: 'true',
      DD_AGENT_SECRET_FILE: secretFile,
    };
    agent = await startListenAgentProcess({ port: 0, env: agentEnv });
    hub = await startHubProcess({
      DD_STORE_DRIVER: 'fs',
      DD_STORE_PATH: join(dir, 'data'),
      DD_LOCAL_WATCHER: 'false',
      DD_AGENT_NAS_HOST: '127.0.0.1',
      DD_AGENT_NAS_PORT: String(agent.port),
      DD_AGENT_NAS_SECRET__FILE: secretFile,
      // Same agent, wrong secret: refused, and never listed.
      DD_AGENT_IMPOSTOR_HOST: '127.0.0.1',
      DD_AGENT_IMPOSTOR_PORT: String(agent.port),
      DD_AGENT_IMPOSTOR_SECRET: 'not-the-secret',
    });
  }, 90_000);

  afterAll(async () => {
    await agent?.kill('SIGKILL');
    await hub?.kill('SIGTERM');
    await dockerd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('lists the agent connected, with every field of http-interface §2.3, its host and port those the hub reaches it at', async () => {
    const listed = await waitFor(async () => {
      const found = await agentNamed('nas');
      return found?.connected && found.containers.total === 1 ? found : undefined;
    }, 15_000);
    expect(Object.keys(listed).sort()).toEqual(Object.keys(AgentSchema.entries).sort());
    v.parse(AgentSchema, listed);
    expect(listed).toMatchObject({
      name: 'nas',
      host: '127.0.0.1',
      port: agent.port,
      connected: true,
      version: packageJson.version.replace(/[-+].*$/, ''),
      build: packageJson.version,
      os: process.platform,
      arch: process.arch,
      logLevel: 'info',
      pollInterval: '0 * * * *',
      containers: { total: 1, running: 1, stopped: 0 },
      images: 1,
    });
    expect(listed.cpus).toBeGreaterThan(0);
    expect(listed.memoryGb).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(listed.lastSeen) - Date.now())).toBeLessThan(60_000);
  });

  it("lists the agent's containers under it, env redacted in the hub's output", async () => {
    const [base] = await containersOf('agent=nas');
    expect(base).toMatchObject({ id: baseId, name: 'base', agent: 'nas', watcher: 'local', status: 'running' });
    expect(base?.env).toContainEqual({ key: 'API_TOKEN', value: '***' });
    const watcher = await json<{ agent: string; configuration: { endpoint: string } }>(
      '/api/v1/watchers/docker/local/nas',
    );
    expect(watcher).toMatchObject({ agent: 'nas', configuration: { endpoint: `unix://${dockerd.socketPath}` } });
  });

  it('refuses an agent whose secret does not match, and never writes a secret to its log', async () => {
    await waitFor(
      () =>
        hub.stdout.some((line) => line.includes('listen-mode agent impostor') && line.includes('refused the secret'))
          ? true
          : undefined,
      10_000,
      'impostor refused',
    );
    expect(await agentNamed('impostor')).toBeUndefined();
    expect(hub.stdout.filter((line) => line.includes(SECRET) || line.includes('not-the-secret'))).toEqual([]);
    expect(agent.stdout.filter((line) => line.includes(SECRET) || line.includes('not-the-secret'))).toEqual([]);
  });

  it('shows a container started on the dockerd under the agent within seconds', async () => {
    lateId = await runContainer(dockerd.docker, {
      name: 'late',
      image: IMAGE,
      cmd: ['sh', '-c', 'echo hello-from-nas; echo oops-on-stderr >&2; exec sleep 3600'],
    });
    const record = await waitFor(
      async () => (await containersOf('agent=nas&watcher=local')).find((c) => c.id === lateId),
      LISTED_WITHIN_MS,
      'late listed',
    );
    expect(record).toMatchObject({ name: 'late', agent: 'nas', status: 'running' });
  });

  it('serves the container log and the agent log entries through the hub', async () => {
    const text = await waitFor(async () => {
      const body = await (await api(`/api/v1/containers/${lateId}/logs?timestamps=false`)).text();
      return body.includes('oops-on-stderr') ? body : undefined;
    }, 5_000);
    expect(text).toContain('hello-from-nas');
    const entries = await json<{ msg: string; component: string }[]>('/api/v1/agents/nas/log/entries?tail=1000');
    expect(entries.some((entry) => entry.msg.includes('listen-mode agent listening on'))).toBe(true);
    const filtered = await json<{ component: string }[]>('/api/v1/agents/nas/log/entries?component=listen.watcher');
    expect(filtered.every((entry) => entry.component.includes('listen.watcher'))).toBe(true);
  });

  it('stops and starts a container through the hub: answered with the state after, done on the dockerd', async () => {
    const stopped = await api(`/api/v1/containers/${lateId}/stop`, { method: 'POST' });
    expect(stopped.status).toBe(200);
    expect(((await stopped.json()) as Container).status).toBe('exited');
    expect((await dockerd.docker.getContainer(lateId).inspect()).State.Running).toBe(false);
    expect((await containersOf('agent=nas')).find((c) => c.id === lateId)?.status).toBe('exited');
    expect((await agentNamed('nas'))?.containers).toEqual({ total: 2, running: 1, stopped: 1 });

    const started = await api(`/api/v1/containers/${lateId}/start`, { method: 'POST' });
    expect(started.status).toBe(200);
    expect(((await started.json()) as Container).status).toBe('running');
    expect((await dockerd.docker.getContainer(lateId).inspect()).State.Running).toBe(true);
    expect((await containersOf('agent=nas')).find((c) => c.id === lateId)?.status).toBe('running');
    const stats = await json<{ containerId: string; current: { memoryBytes: number } }>(
      `/api/v1/containers/${lateId}/stats`,
    );
    expect(stats.containerId).toBe(lateId);
    expect(stats.current.memoryBytes).toBeGreaterThan(0);
  });

  it("refreshes the agent watcher's inventory through the agent (http-interface §4.3)", async () => {
    const containers = await refreshAgentInventory(json, 'nas');
    expect(containers.map((c) => c.id).sort()).toEqual([baseId, lateId].sort());
  });

  it('lists a killed agent as disconnected (event, audit) with its containers kept; reconnects and resyncs when it returns', async () => {
    const events: SseStream = await openSse(api, '/api/v1/events/ui');
    try {
      const before = (await containersOf('agent=nas')).map((c) => c.id).sort();
      expect(await agent.kill('SIGKILL')).toBe('SIGKILL');
      const disconnected = dataOf<Agent>(await events.nextOfType('dd:agent-disconnected', 10_000));
      expect(disconnected).toMatchObject({ name: 'nas', connected: false, port: agent.port });
      await connected(false, 5_000);
      expect((await containersOf('agent=nas')).map((c) => c.id).sort()).toEqual(before);
      const audit = await waitFor(async () => {
        const { data } = await json<{ data: { action: string; details?: string }[] }>(
          '/api/v1/audit?action=agent-disconnect',
        );
        return data.find((entry) => entry.details?.startsWith('agent nas disconnected'));
      }, 5_000);
      expect(audit.action).toBe('agent-disconnect');
      expect((await api(`/api/v1/containers/${lateId}/stop`, { method: 'POST' })).status).toBe(503);
      expect((await api('/api/v1/agents/nas/log/entries')).status).toBe(503);

      // While it is away: one container goes, another comes.
      await dockerd.docker.getContainer(baseId).remove({ force: true });
      const freshId = await runContainer(dockerd.docker, { name: 'fresh', image: IMAGE });

      agent = await startListenAgentProcess({ port: agent.port, env: agentEnv });
      const reconnected = dataOf<Agent>(await events.nextOfType('dd:agent-connected', 20_000));
      expect(reconnected).toMatchObject({ name: 'nas', connected: true });
      const after = await waitFor(
        async () => {
          const ids = (await containersOf('agent=nas')).map((c) => c.id).sort();
          return ids.includes(freshId) && !ids.includes(baseId) ? ids : undefined;
        },
        10_000,
        'nas resynced',
      );
      expect(after).toEqual([lateId, freshId].sort());
      expect((await connected(true)).containers.total).toBe(2);
    } finally {
      await events.close();
    }
  });

  it('exits 78 naming the variable when listen mode has no secret', async () => {
    const { DD_AGENT_SECRET_FILE: _secret, ...withoutSecret } = agentEnv;
    await expect(startListenAgentProcess({ port: 0, env: withoutSecret })).rejects.toThrow(
      /exited \(78\) before listening: edge agent: configuration error: DD_AGENT_SECRET: listen mode needs/,
    );
  });

  it('exits 0 on SIGTERM', async () => {
    expect(await agent.kill('SIGTERM')).toBe(0);
    await connected(false, 5_000);
  });
});
