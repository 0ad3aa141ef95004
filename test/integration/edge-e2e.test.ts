import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { EDGE_CLOSE } from '../../shared/edge/protocol';
import { type Agent, AgentSchema } from '../../shared/schemas/agent';
import type { Container } from '../../shared/schemas/container';
import { agentConnected, refreshAgentInventory } from '../support/agent-e2e';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type AgentProcess, agentKeygen, closedWith, signedIn, spawnAgent } from '../support/edge-agent-process';
import { waitFor } from '../support/edge-peer';
import { freezeProcess } from '../support/freeze-process';
import { okJson } from '../support/hub-json';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import { dataOf, openSse, type SseStream } from '../support/sse-client';

// A repository on a closed loopback port: should a registry check ever run, it fails at once, locally.
const IMAGE = '127.0.0.1:9/e2e/app:1';
const RECONNECT = { DD_EDGE_RECONNECT_MIN_MS: '100', DD_EDGE_RECONNECT_MAX_MS: '400' };
/** A container started on a host is listed by the hub within this long (Docker event → delta → record). */
const LISTED_WITHIN_MS = 5_000;

interface KeyResource {
  keyId: string;
  label: string;
  revokedAt: string | null;
  agentNames: string[];
}

/**
 * Edge agents end to end, every part a real process: the hub as `npm start` runs it (file
 * storage in a temp dir, anonymous), and two agents as `npm run agent` runs them, each beside
 * its own dockerd. One agent's key is registered through POST /api/v1/edge/keys, the other's
 * through DD_EDGE_AUTHORIZED_KEYS. The tests run in order: each builds on the state the one
 * before left (a killed agent, a restarted hub, a revoked key).
 */
describe('edge agents and hub as real processes', () => {
  let dir: string;
  let hub: HubProcess;
  let hubEnv: Record<string, string>;
  const dockerd: Record<'alpha' | 'beta', TestDockerd> = {} as never;
  const agents: Record<'alpha' | 'beta', AgentProcess> = {} as never;
  const keys: Record<'alpha' | 'beta', { keyId: string; publicKey: string; file: string }> = {} as never;
  const baseIds: Record<'alpha' | 'beta', string> = {} as never;
  let lateId: string;

  const api = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init);
  const json = okJson(api);
  const listAgents = async () => (await json<{ data: Agent[] }>('/api/v1/agents')).data;
  const agentNamed = async (name: string) => (await listAgents()).find((agent) => agent.name === name);
  const containersOf = async (query: string) => (await json<{ data: Container[] }>(`/api/v1/containers?${query}`)).data;
  const keyList = async () => (await json<{ data: KeyResource[] }>('/api/v1/edge/keys')).data;

  /** When each agent process was spawned: its reported uptime is its own, not the host's. */
  const spawnedAt: Partial<Record<'alpha' | 'beta', number>> = {};
  function startAgent(name: 'alpha' | 'beta'): AgentProcess {
    spawnedAt[name] = Date.now();
    agents[name] = spawnAgent({
      hubUrl: hub.url,
      keyFile: keys[name].file,
      name,
      env: {
        DD_WATCHER_LOCAL_SOCKET: dockerd[name].socketPath,
        // Stopped containers stay listed, and nothing is watched: no registry check runs.
        DD_WATCHER_LOCAL_WATCHALL: 'true',
        DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'false',
        ...RECONNECT,
      },
    });
    return agents[name];
  }

  const connected = (name: string, expected: boolean, timeoutMs = 15_000) =>
    agentConnected(json, name, expected, timeoutMs);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edge-e2e-'));
    const [alphaDockerd, betaDockerd] = await Promise.all([startDockerd(), startDockerd()]);
    dockerd.alpha = alphaDockerd;
    dockerd.beta = betaDockerd;
    const [repository, tag] = IMAGE.split(/:(?=[^:]*$)/) as [string, string];
    for (const name of ['alpha', 'beta'] as const) {
      await importBusyboxImage(dockerd[name].docker, { repository, tag, cmd: ['sleep', '3600'] });
      baseIds[name] = await runContainer(dockerd[name].docker, { name: `${name}-base`, image: IMAGE });
      const file = join(dir, `${name}.key`);
      keys[name] = { ...(await agentKeygen(file, name)), file };
    }
    const authorizedKeys = join(dir, 'authorized_keys');
    await writeFile(authorizedKeys, `# edge agents\n${keys.beta.publicKey} beta from the file\n`);
    hubEnv = {
      DD_STORE_DRIVER: 'fs',
      DD_STORE_PATH: join(dir, 'data'),
      DD_LOCAL_WATCHER: 'false',
      DD_EDGE_AUTHORIZED_KEYS: authorizedKeys,
    };
    hub = await startHubProcess(hubEnv);
    const registered = await api('/api/v1/edge/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: keys.alpha.publicKey, label: 'alpha through the API' }),
    });
    expect(registered.status).toBe(201);
    startAgent('alpha');
    startAgent('beta');
    await Promise.all([agents.alpha.waitForLog(signedIn, 30_000), agents.beta.waitForLog(signedIn, 30_000)]);
  }, 90_000);

  afterAll(async () => {
    for (const agent of Object.values(agents)) {
      agent.child.kill('SIGCONT');
      await agent.kill('SIGKILL');
    }
    await hub?.kill('SIGTERM');
    await Promise.all(Object.values(dockerd).map((daemon) => daemon.stop()));
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('lists both agents, synced, with every field of http-interface §2.3, and their keys bound to their names', async () => {
    const listed = await waitFor(async () => {
      const all = await listAgents();
      return all.length === 2 && all.every((agent) => agent.connected && agent.containers.total === 1)
        ? all
        : undefined;
    }, 10_000);
    const fields = Object.keys(AgentSchema.entries).sort();
    for (const agent of listed) {
      expect(Object.keys(agent).sort()).toEqual(fields);
      v.parse(AgentSchema, agent);
      expect(agent).toMatchObject({
        host: os.hostname(),
        port: 0,
        connected: true,
        version: packageJson.version.replace(/[-+].*$/, ''),
        build: packageJson.version,
        os: 'linux',
        arch: process.arch,
        cpus: os.cpus().length || os.availableParallelism(),
        logLevel: 'info',
        pollInterval: '0 * * * *',
        containers: { total: 1, running: 1, stopped: 0 },
        images: 1,
      });
      expect(agent.memoryGb).toBeGreaterThan(0);
      // The agent process's own uptime in whole seconds (the built agent signs in well within its first second).
      expect(Number.isInteger(agent.uptimeSeconds)).toBe(true);
      expect(agent.uptimeSeconds).toBeGreaterThanOrEqual(0);
      expect(agent.uptimeSeconds).toBeLessThanOrEqual(
        (Date.now() - (spawnedAt[agent.name as 'alpha'] ?? 0)) / 1000 + 1,
      );
      expect(Math.abs(Date.parse(agent.lastSeen) - Date.now())).toBeLessThan(60_000);
    }
    expect(listed.map((agent) => agent.name).sort()).toEqual(['alpha', 'beta']);
    const registeredKeys = await keyList();
    expect(registeredKeys.find((key) => key.keyId === keys.alpha.keyId)).toMatchObject({
      label: 'alpha through the API',
      revokedAt: null,
      agentNames: ['alpha'],
    });
    expect(registeredKeys.find((key) => key.keyId === keys.beta.keyId)).toMatchObject({
      label: 'beta from the file',
      revokedAt: null,
      agentNames: ['beta'],
    });
    for (const name of ['alpha', 'beta'] as const) {
      expect((await containersOf(`agent=${name}`)).map((c) => c.id)).toEqual([baseIds[name]]);
    }
  });

  it("shows a container started on an agent's dockerd under that agent within seconds (agent and watcher filters)", async () => {
    const started = Date.now();
    lateId = await runContainer(dockerd.alpha.docker, {
      name: 'alpha-late',
      image: IMAGE,
      cmd: ['sh', '-c', 'echo hello-from-alpha; echo oops-on-stderr >&2; exec sleep 3600'],
    });
    const record = await waitFor(
      async () => (await containersOf('agent=alpha&watcher=local')).find((c) => c.id === lateId),
      LISTED_WITHIN_MS,
      'alpha-late listed',
    );
    const listedAfterMs = Date.now() - started;
    console.info(`edge-e2e: alpha-late listed by the hub ${listedAfterMs} ms after docker start`);
    expect(record).toMatchObject({ name: 'alpha-late', agent: 'alpha', watcher: 'local', status: 'running' });
    expect((await containersOf('agent=beta')).map((c) => c.id)).not.toContain(lateId);
    expect(await containersOf('agent=alpha&watcher=elsewhere')).toEqual([]);
    expect((await containersOf('agent=alpha')).map((c) => c.id).sort()).toEqual([baseIds.alpha, lateId].sort());
  });

  it('serves the container log through the hub, read by the agent', async () => {
    const response = await api(`/api/v1/containers/${lateId}/logs?timestamps=false`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('hello-from-alpha');
    expect(text).toContain('oops-on-stderr');
  });

  it('stops a container through the hub: the answer has the stopped state, and it is stopped on that dockerd', async () => {
    const response = await api(`/api/v1/containers/${lateId}/stop`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Container).status).toBe('exited');
    expect((await dockerd.alpha.docker.getContainer(lateId).inspect()).State.Running).toBe(false);
    expect((await dockerd.beta.docker.getContainer(baseIds.beta).inspect()).State.Running).toBe(true);
    expect((await containersOf('agent=alpha')).find((c) => c.id === lateId)?.status).toBe('exited');
  });

  it("serves the agent's own log entries (http-interface §4.4)", async () => {
    const entries = await json<{ msg: string; component: string }[]>('/api/v1/agents/alpha/log/entries?tail=1000');
    expect(entries.some((entry) => entry.component === 'edge.link' && entry.msg.startsWith('connected to'))).toBe(true);
    const filtered = await json<{ component: string }[]>('/api/v1/agents/alpha/log/entries?component=edge.link');
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((entry) => entry.component.includes('edge.link'))).toBe(true);
  });

  it("refreshes an agent watcher's inventory through the agent (http-interface §4.3)", async () => {
    const containers = await refreshAgentInventory(json, 'alpha');
    const onEngine = await dockerd.alpha.docker.listContainers({ all: true });
    expect(containers.map((c) => c.id).sort()).toEqual(onEngine.map((c) => c.Id).sort());
    expect(containers.every((c) => c.agent === 'alpha')).toBe(true);
  });

  it('lists a SIGKILLed agent as disconnected with its containers kept, and resyncs it when it returns', async () => {
    const events: SseStream = await openSse(api, '/api/v1/events/ui');
    try {
      const before = (await containersOf('agent=alpha')).map((c) => c.id).sort();
      expect(await agents.alpha.kill('SIGKILL')).toBe('SIGKILL');
      const disconnected = dataOf<Agent>(await events.nextOfType('dd:agent-disconnected', 10_000));
      expect(disconnected).toMatchObject({ name: 'alpha', connected: false });
      await connected('alpha', false, 5_000);
      expect((await containersOf('agent=alpha')).map((c) => c.id).sort()).toEqual(before);
      expect((await agentNamed('beta'))?.connected).toBe(true);

      // While it is away: one container goes, another comes.
      await dockerd.alpha.docker.getContainer(baseIds.alpha).remove({ force: true });
      const newId = await runContainer(dockerd.alpha.docker, { name: 'alpha-new', image: IMAGE });
      expect((await containersOf('agent=alpha')).map((c) => c.id)).toContain(baseIds.alpha);

      await startAgent('alpha').waitForLog(signedIn, 30_000);
      const reconnected = dataOf<Agent>(await events.nextOfType('dd:agent-connected', 10_000));
      expect(reconnected).toMatchObject({ name: 'alpha', connected: true });
      const after = await waitFor(
        async () => {
          const ids = (await containersOf('agent=alpha')).map((c) => c.id).sort();
          return ids.includes(newId) && !ids.includes(baseIds.alpha) ? ids : undefined;
        },
        10_000,
        'alpha resynced',
      );
      expect(after).toEqual([lateId, newId].sort());
    } finally {
      await events.close();
    }
  });

  it('finds its agents back after the hub is SIGKILLed and restarted, with nothing lost', async () => {
    const containersBefore = new Map((await containersOf('')).map((c) => [c.id, c.firstSeenAt]));
    const keysBefore = await keyList();
    expect(containersBefore.size).toBe(3);

    // The agents are frozen while the hub is down, so what the new hub lists first can only come from its storage.
    await Promise.all(
      Object.values(agents).map((agent) => {
        if (agent.child.pid === undefined) throw new Error('an agent process has no pid');
        return freezeProcess(agent.child.pid);
      }),
    );
    expect(await hub.kill('SIGKILL')).toBe('SIGKILL');
    hub = await startHubProcess({ ...hubEnv, DD_SERVER_PORT: String(hub.port) });
    const stored = await listAgents();
    expect(stored.map((agent) => [agent.name, agent.connected])).toEqual([
      ['alpha', false],
      ['beta', false],
    ]);
    expect(new Map((await containersOf('')).map((c) => [c.id, c.firstSeenAt]))).toEqual(containersBefore);
    expect(await keyList()).toEqual(keysBefore);

    const resumed = Date.now();
    for (const agent of Object.values(agents)) agent.child.kill('SIGCONT');
    await Promise.all([connected('alpha', true), connected('beta', true)]);
    console.info(`edge-e2e: both agents back on the restarted hub ${Date.now() - resumed} ms after they resumed`);
    // Resynced onto the stored records: the same containers, first seen when they were first seen.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(new Map((await containersOf('')).map((c) => [c.id, c.firstSeenAt]))).toEqual(containersBefore);
    expect(await keyList()).toEqual(keysBefore);
  });

  it('closes the session of a revoked key within one second, and refuses the agent afterwards', async () => {
    const from = agents.beta.logs.length;
    const revokedAt = Date.now();
    const response = await api(`/api/v1/edge/keys/${keys.beta.keyId}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as KeyResource).revokedAt).not.toBeNull();
    const closed = await agents.beta.waitForLog(closedWith(EDGE_CLOSE.keyRevoked), 5_000, from);
    const closeMs = closed.time - revokedAt;
    console.info(`edge-e2e: revoked key's session closed ${closeMs} ms after the DELETE was sent`);
    expect(closeMs).toBeLessThan(1_000);
    await connected('beta', false, 1_000);

    // The agent keeps dialling (at its longest step) and is refused with 4002 each time.
    const first = agents.beta.logs.indexOf(closed);
    await agents.beta.waitForLog(closedWith(EDGE_CLOSE.keyRevoked), 5_000, first + 1);
    const second = agents.beta.logs.findIndex(
      (line, index) => index > first && closedWith(EDGE_CLOSE.keyRevoked)(line),
    );
    await agents.beta.waitForLog(closedWith(EDGE_CLOSE.keyRevoked), 5_000, second + 1);
    expect(agents.beta.logs.slice(from).some(signedIn)).toBe(false);
    expect((await agentNamed('beta'))?.connected).toBe(false);
    expect(hub.stdout.some((line) => line.includes('edge sign-in of beta') && line.includes('(4002)'))).toBe(true);
    // Its records stay, as for any agent away.
    expect((await containersOf('agent=beta')).map((c) => c.id)).toEqual([baseIds.beta]);
  });

  it('exits 0 on SIGTERM, and the hub lists the agent disconnected', async () => {
    expect(await agents.alpha.kill('SIGTERM')).toBe(0);
    await connected('alpha', false, 5_000);
    expect(hub.stdout.some((line) => line.includes('agent alpha disconnected (1001)'))).toBe(true);
    expect(await agents.beta.kill('SIGTERM')).toBe(0);
  });
});
