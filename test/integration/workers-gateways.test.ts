import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayNameFor } from '../../hub/src/adapter/workers/gateway-shards';
import { ROOT, WORKERD_BUILD_OPTIONS } from '../../scripts/build-workers.mjs';
import { EDGE_CLOSE } from '../../shared/edge/protocol';
import type { Agent } from '../../shared/schemas/agent';
import type { Container } from '../../shared/schemas/container';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type AgentProcess, agentKeygen, closedWith, signedIn, spawnAgent } from '../support/edge-agent-process';
import { waitFor } from '../support/edge-peer';
import { startWorkersHub, type WorkersHub } from '../support/workers-hub';

// A repository on a closed loopback port: should a registry check ever run, it fails at once, locally.
const IMAGE = '127.0.0.1:9/gateways/app:1';
const SHARDS = 4;
const RECONNECT = { DD_EDGE_RECONNECT_MIN_MS: '100', DD_EDGE_RECONNECT_MAX_MS: '400' };

/** Miniflare's proxy of the gateways' binding (it takes a URL, not Node's Request). */
interface GatewayNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(url: string): Promise<Response> };
}

/** Two names whose sockets land in two different gateways, so the test sees the sharding itself. */
function namesOnTwoShards(): [string, string] {
  const first = 'gw-alpha';
  for (let index = 0; index < 100; index += 1) {
    const other = `gw-beta-${index}`;
    if (gatewayNameFor(other, SHARDS) !== gatewayNameFor(first, SHARDS)) return [first, other];
  }
  throw new Error('no second shard among 100 names');
}

/**
 * Edge gateways under workerd (docs/workers.md "Edge gateways"; issue 16 item 4): real agent
 * processes beside a real dockerd dial the Worker on a loopback port; their sockets end in the
 * gateway objects of their names' shards, which sign them in and forward their inventories to the
 * hub object. The cases run in order, each on the state the one before left.
 */
describe('edge gateways under workerd, with real agents', () => {
  const [alpha, beta] = namesOnTwoShards();
  let dir: string;
  let hub: WorkersHub;
  let mf: Miniflare;
  let url: URL;
  /** One dockerd per agent: the hub keys containers by their Docker id, which two agents of one daemon would share. */
  const dockerds: Record<string, TestDockerd> = {};
  let dockerd: TestDockerd;
  const agents: Record<string, AgentProcess> = {};
  const keys: Record<string, { keyId: string; publicKey: string; file: string }> = {};

  const api = (path: string, init?: RequestInit) => fetch(new URL(path, url), init);
  const agentNamed = async (name: string) =>
    ((await (await api('/api/v1/agents')).json()) as { data: Agent[] }).data.find((agent) => agent.name === name);
  const containersOf = async (name: string) =>
    ((await (await api('/api/v1/containers')).json()) as { data: Container[] }).data.filter(
      (container) => container.agent === name,
    );
  const gatewaySessions = async (gateway: string) => {
    // Miniflare's proxy of the binding, typed by workers-types, which the project does not use.
    const namespace = (await mf.getDurableObjectNamespace('EDGE_GATEWAY')) as unknown as GatewayNamespace;
    const response = await namespace
      .get(namespace.idFromName(gateway))
      .fetch('https://internal.invalid/__edge-gateway/sessions');
    return ((await response.json()) as { sessions: { agentName?: string; keyId?: string }[] }).sessions;
  };
  const hubInstance = async () => ((await (await api('/__test/instances')).json()) as { instance: string }).instance;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dockwatch-gateways-'));
    const [repository, tag] = IMAGE.split(/:(?=[^:]*$)/) as [string, string];
    await Promise.all(
      [alpha, beta].map(async (name) => {
        const daemon = await startDockerd();
        dockerds[name] = daemon;
        await importBusyboxImage(daemon.docker, { repository, tag, cmd: ['sleep', '3600'] });
        await runContainer(daemon.docker, { name: 'base', image: IMAGE });
      }),
    );
    dockerd = dockerds[alpha] as TestDockerd;
    const scriptPath = join(dir, 'bundle', 'index.js');
    await build({
      ...WORKERD_BUILD_OPTIONS,
      entryPoints: [join(ROOT, 'test', 'support', 'workers-gateway-entry.ts')],
      outfile: scriptPath,
    });
    hub = await startWorkersHub({
      scriptPath,
      className: 'AbortableHubDurableObject',
      edgeGateways: SHARDS,
      listen: true,
      echo: Boolean(process.env.DEBUG_GATEWAYS),
      vars: { DD_LOG_LEVEL: process.env.DEBUG_GATEWAYS ? 'debug' : 'warn', DD_SERVER_HOST: '0.0.0.0' },
    });
    mf = hub.mf;
    url = new URL(hub.url);
    for (const name of [alpha, beta]) {
      const file = join(dir, `${name}.key`);
      keys[name] = { ...(await agentKeygen(file, name)), file };
      const registered = await api('/api/v1/edge/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ publicKey: keys[name].publicKey, label: name }),
      });
      expect(registered.status).toBe(201);
      agents[name] = spawnAgent({
        hubUrl: url.origin,
        keyFile: file,
        name,
        env: {
          DD_WATCHER_LOCAL_SOCKET: (dockerds[name] as TestDockerd).socketPath,
          DD_WATCHER_LOCAL_WATCHALL: 'true',
          DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'false',
          ...RECONNECT,
        },
      });
    }
  }, 120_000);

  afterAll(async () => {
    for (const agent of Object.values(agents)) await agent.kill('SIGKILL');
    await hub?.dispose();
    await Promise.all(Object.values(dockerds).map((daemon) => daemon.stop()));
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('signs both agents in through the gateways of their names and lists their containers', async () => {
    await Promise.all([agents[alpha]?.waitForLog(signedIn, 30_000), agents[beta]?.waitForLog(signedIn, 30_000)]);
    for (const name of [alpha, beta]) {
      await waitFor(async () => ((await agentNamed(name))?.connected ? true : undefined), 10_000, `${name} connected`);
      const listed = await waitFor(async () => {
        const containers = await containersOf(name);
        return containers.some((container) => container.name === 'base') ? containers : undefined;
      }, 10_000);
      expect(listed.map((container) => container.name)).toContain('base');
      // The socket is in the gateway of its name's shard, signed in there.
      const sessions = await gatewaySessions(gatewayNameFor(name, SHARDS));
      expect(sessions.map((session) => session.agentName)).toContain(name);
    }
    expect(gatewayNameFor(alpha, SHARDS)).not.toBe(gatewayNameFor(beta, SHARDS));
  }, 60_000);

  it('relays the hub commands and the agents replies: a container stopped and started through its agent', async () => {
    const all = await containersOf(alpha);
    const base = all.find((container) => container.name === 'base');
    expect(base, JSON.stringify(all.map((c) => [c.name, c.id]))).toBeDefined();
    const stop = await api(`/api/v1/containers/${base?.id}/stop`, { method: 'POST' });
    expect(stop.status).toBe(200);
    const inspected = await dockerd.docker.getContainer('base').inspect();
    expect(inspected.State.Running).toBe(false);
    const start = await api(`/api/v1/containers/${base?.id}/start`, { method: 'POST' });
    expect(start.status).toBe(200);
    expect((await dockerd.docker.getContainer('base').inspect()).State.Running).toBe(true);
  }, 60_000);

  it('keeps the agents linked when the hub object is reset, and takes their inventory again', async () => {
    const before = await hubInstance();
    await api('/__test/abort').catch(() => undefined);
    const signIns = agents[alpha]?.logs.filter(signedIn).length;
    // A container started now reaches the new hub object through the gateway (delta, then a full sync).
    await runContainer(dockerd.docker, { name: 'after-reset', image: IMAGE });
    await waitFor(
      async () =>
        (await containersOf(alpha)).some((container) => container.name === 'after-reset') ? true : undefined,
      15_000,
      'after-reset listed for alpha',
    );
    expect(await hubInstance()).not.toBe(before);
    expect((await agentNamed(alpha))?.connected).toBe(true);
    // The agent never noticed: no new sign-in.
    expect(agents[alpha]?.logs.filter(signedIn).length).toBe(signIns);
  }, 60_000);

  it('refuses the objects own paths from outside', async () => {
    const response = await api('/__edge-gateway/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ gateway: 'edge-gateway-0', items: [] }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: expect.any(String) });
  });

  it('closes a revoked key agent within a second, through its gateway', async () => {
    const agent = agents[beta] as AgentProcess;
    const from = agent.logs.length;
    const revokedAt = Date.now();
    const revoked = await api(`/api/v1/edge/keys/${keys[beta]?.keyId}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    const closed = await agent.waitForLog(closedWith(EDGE_CLOSE.keyRevoked), 5_000, from);
    expect(closed.time - revokedAt).toBeLessThan(1_000);
    await waitFor(async () => ((await agentNamed(beta))?.connected === false ? true : undefined), 5_000);
    expect(await gatewaySessions(gatewayNameFor(beta, SHARDS))).not.toContainEqual(
      expect.objectContaining({ agentName: beta }),
    );
  }, 30_000);
});
