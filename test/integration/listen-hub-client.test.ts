import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_CLOSE } from '../../shared/edge/protocol';
import type { Agent } from '../../shared/schemas/agent';
import type { Container } from '../../shared/schemas/container';
import type { UpdateOperation } from '../../shared/update-engine';
import { connectEdgePeer, helloFor, newEdgeIdentity, waitFor } from '../support/edge-peer';
import { createServerHub, type HubClient } from '../support/hub-harness';
import {
  type ListenAgentPeer,
  type PeerContainer,
  peerContainer,
  startListenAgentPeer,
} from '../support/listen-agent-peer';

const SECRET = 'peer-secret-8c1d2e3f4a5b6c7d';
const SILENCE_MS = 600;
const DEADLINE_MS = 500;

const added = (container: PeerContainer) => ({ type: 'dd:container-added', data: container });

/**
 * The hub's client of a listen-mode agent against a scripted agent (a real HTTP server on
 * loopback), for what a well-behaved agent never shows: events older than the inventory they
 * arrive after, unsolicited inventory events, events of an operation the hub gave up on, a
 * dropped stream and a silent one.
 */
describe("the hub's listen-mode agent client against a scripted agent", () => {
  let peer: ListenAgentPeer;
  let hub: HubClient;

  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await hub.request(path, init);
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const ids = async () =>
    (await json<{ data: Container[] }>('/api/v1/containers?agent=peer')).data.map((c) => c.id).sort();
  const listed = async () =>
    (await json<{ data: Agent[] }>('/api/v1/agents')).data.find((agent) => agent.name === 'peer');
  const until = <T>(probe: () => Promise<T | undefined>, what: string) => waitFor(probe, 5_000, what);
  const refresh = () =>
    hub.request('/api/v1/watchers/docker/local/peer/inventory', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });

  beforeAll(async () => {
    peer = await startListenAgentPeer(SECRET);
    peer.containers = [peerContainer('a1', 'one')];
    peer.revision = 5;
    hub = await createServerHub(
      {
        DD_AGENT_PEER_HOST: '127.0.0.1',
        DD_AGENT_PEER_PORT: String(peer.port),
        DD_AGENT_PEER_SECRET: SECRET,
        // A Docker action trigger: the hub updates the agent's containers through it.
        DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1',
      },
      { edge: { timings: { silenceLimitMs: SILENCE_MS } }, inventoryDeadlineMs: DEADLINE_MS },
    );
    await until(async () => ((await listed())?.connected ? true : undefined), 'peer connected');
  });

  afterAll(async () => {
    await hub?.close();
    await peer?.close();
  });

  it('opens the stream with the secret, takes watchers, inventory and operations, and lists the agent from its dd:ack', async () => {
    // The scripted agent predates GET /api/operations: its 404 is no operation to report, not a failure.
    expect(peer.requests.slice(0, 4).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/events',
      'GET /api/watchers',
      'GET /api/containers',
      'GET /api/operations',
    ]);
    expect(peer.requests.every((r) => r.secret === SECRET)).toBe(true);
    const agent = await until(async () => {
      const found = await listed();
      return found?.containers.total === 1 ? found : undefined;
    }, 'counts');
    expect(agent).toMatchObject({
      host: '127.0.0.1',
      port: peer.port,
      connected: true,
      version: '9.8.7',
      build: '9.8.7-rc.1',
      arch: 'arm64',
      cpus: 4,
      memoryGb: 3.8,
      logLevel: 'debug',
      pollInterval: '*/5 * * * *',
      containers: { total: 1, running: 1, stopped: 0 },
      images: 1,
    });
    expect(agent.uptimeSeconds).toBeGreaterThanOrEqual(1234);
    const [record] = (await json<{ data: Container[] }>('/api/v1/containers?agent=peer')).data;
    expect(record).toMatchObject({ id: 'a1', name: 'one', agent: 'peer', watcher: 'local' });
    expect(record?.env).toEqual([{ key: 'API_TOKEN', value: '***' }]);
  });

  // Regression (issue 15 item 8): the listen client answered image requests with nothing at all.
  it("names an agent without the image routes (one that predates them) in the image routes' errors", async () => {
    const before = peer.requests.length;
    const listedImages = await json<{
      data: { agent?: string }[];
      errors: { watcher: string; agent?: string; error: string }[];
    }>('/api/v1/images');
    expect(listedImages.data.filter((image) => image.agent === 'peer')).toEqual([]);
    expect(listedImages.errors).toContainEqual({
      watcher: 'local',
      agent: 'peer',
      error: expect.stringContaining('no such route'),
    });
    const preview = await json<{ errors: { agent?: string }[] }>('/api/v1/images/prune-preview');
    expect(preview.errors.map((failure) => failure.agent)).toContain('peer');
    expect(peer.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toContain('GET /api/images');
  });

  it('drops an event not newer than the inventory it follows, and applies newer ones', async () => {
    peer.send({ type: 'dd:container-removed', data: { id: 'a1', watcher: 'local' } }, 3);
    peer.send(added(peerContainer('a2', 'two')), 6);
    await until(async () => ((await ids()).includes('a2') ? true : undefined), 'a2 added');
    expect(await ids()).toEqual(['a1', 'a2']);
  });

  it('ignores unsolicited inventory events', async () => {
    peer.send(
      {
        type: 'dd:inventory-added',
        data: { operationId: crypto.randomUUID(), watcher: 'local', container: peerContainer('a3', 'three') },
      },
      7,
    );
    peer.send(
      { type: 'dd:inventory-removed', data: { operationId: crypto.randomUUID(), watcher: 'local', id: 'a1' } },
      8,
    );
    peer.send({ type: 'dd:something-new', data: {} }, 9);
    peer.send(added(peerContainer('a4', 'four')), 10);
    await until(async () => ((await ids()).includes('a4') ? true : undefined), 'a4 added');
    expect(await ids()).toEqual(['a1', 'a2', 'a4']);
  });

  it("applies an inventory refresh's events and answer under the hub's operationId", async () => {
    let seen: string | undefined;
    peer.onInventory = async (operationId, watcher) => {
      seen = operationId;
      const fresh = peerContainer('a5', 'five');
      peer.send({ type: 'dd:inventory-added', data: { operationId, watcher, container: fresh } }, 11);
      peer.containers = [peerContainer('a1', 'one'), peerContainer('a2', 'two'), peerContainer('a4', 'four'), fresh];
      peer.revision = 11;
      return {
        status: 200,
        body: {
          context: { operationId, source: { type: 'docker', name: watcher } },
          containers: peer.containers,
          removedIds: [],
          errors: [],
          authoritative: true,
        },
      };
    };
    const response = await refresh();
    expect(response.status).toBe(200);
    const result = (await response.json()) as {
      context: { operationId: string; source: unknown };
      containers: Container[];
      authoritative: boolean;
    };
    expect(result.context.operationId).toBe(seen);
    expect(result.context.source).toEqual({ type: 'docker', name: 'local', agent: 'peer' });
    expect(result.authoritative).toBe(true);
    expect(result.containers.map((c) => c.id).sort()).toEqual(['a1', 'a2', 'a4', 'a5']);
    expect(JSON.parse(peer.requests.at(-1)?.body ?? '{}')).toEqual({ operationId: seen });
  });

  it('ignores the events and the answer of an operation past its deadline', async () => {
    let answered!: () => void;
    const late = new Promise<void>((resolve) => {
      answered = resolve;
    });
    peer.onInventory = async (operationId, watcher) => {
      await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS + 300));
      const expired = peerContainer('a6', 'six');
      peer.send({ type: 'dd:inventory-added', data: { operationId, watcher, container: expired } }, 12);
      answered();
      return {
        status: 200,
        body: {
          context: { operationId, source: { type: 'docker', name: watcher } },
          containers: [expired],
          removedIds: [],
          errors: [],
          authoritative: true,
        },
      };
    };
    expect((await refresh()).status).toBe(504);
    await late;
    peer.send(added(peerContainer('a7', 'seven')), 13);
    await until(async () => ((await ids()).includes('a7') ? true : undefined), 'a7 added');
    expect(await ids()).toEqual(['a1', 'a2', 'a4', 'a5', 'a7']);
  });

  it('answers a failed observation of the agent non-authoritative, keeping the records', async () => {
    peer.onInventory = async (operationId, watcher) => ({
      status: 200,
      body: {
        context: { operationId, source: { type: 'docker', name: watcher } },
        containers: [],
        removedIds: [],
        errors: [{ phase: 'list', message: 'connect ENOENT /var/run/docker.sock' }],
        authoritative: false,
      },
    });
    const result = (await (await refresh()).json()) as {
      errors: { message: string }[];
      authoritative: boolean;
      containers: unknown[];
    };
    expect(result.authoritative).toBe(false);
    expect(result.errors[0]?.message).toMatch(/ENOENT/);
    expect(result.containers).toHaveLength(5);
  });

  it('lists the agent disconnected when its stream drops, reconnects and resyncs from the full inventory', async () => {
    const streamsBefore = peer.requests.filter((r) => r.path === '/api/events').length;
    peer.containers = [peerContainer('a8', 'eight')];
    peer.revision = 20;
    peer.dropStreams();
    await until(async () => {
      const audit = await json<{ data: { details?: string }[] }>('/api/v1/audit?action=agent-disconnect');
      return audit.data.find((entry) => entry.details?.startsWith('agent peer disconnected'));
    }, 'audit entry');
    await until(async () => ((await ids()).join() === 'a8' ? true : undefined), 'resynced');
    expect((await listed())?.connected).toBe(true);
    expect(peer.requests.filter((r) => r.path === '/api/events').length).toBe(streamsBefore + 1);
  });

  it('drops a silent stream (no keepalive) and opens a new one', async () => {
    const streamsBefore = peer.requests.filter((r) => r.path === '/api/events').length;
    peer.keepalive = false;
    await until(
      async () => (peer.requests.filter((r) => r.path === '/api/events').length > streamsBefore ? true : undefined),
      'reopened',
    );
    peer.keepalive = true;
    expect(
      hub.logged.some(
        ({ entry }) =>
          entry.msg.includes('agent peer disconnected') && entry.msg.includes(`no data for ${SILENCE_MS} ms`),
      ),
    ).toBe(true);
    await until(async () => ((await listed())?.connected ? true : undefined), 'connected again');
  });

  /** The hub's record of the peer's container, with 2.0.0 pending (no registry runs here to find it). */
  async function markPending(name: string): Promise<Container> {
    const record = await until(
      async () => hub.hub.parts.containers.all().find((c) => c.name === name && c.agent === 'peer'),
      `${name} listed`,
    );
    const pending: Container = {
      ...record,
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: '1', remoteValue: '2', semverDiff: 'major' },
      result: { tag: '2' },
    };
    await hub.hub.parts.containers.put(pending);
    return pending;
  }
  const operationOf = (id: string) => json<UpdateOperation>(`/api/v1/update-operations/${id}`);
  /** Asks for the update and answers the operation the agent was sent (its POST held until `release`). */
  async function sendUpdate(record: Container) {
    let release!: (answer: { status: number; body?: unknown }) => void;
    const held = new Promise<{ status: number; body?: unknown }>((resolve) => {
      release = resolve;
    });
    let sent: UpdateOperation | undefined;
    peer.onOther = async (request) => {
      if (request.method !== 'POST' || request.path !== `/api/containers/${record.id}/update`) return undefined;
      sent = (JSON.parse(request.body) as { operation: UpdateOperation }).operation;
      return held;
    };
    const response = await hub.request(`/api/v1/containers/${record.id}/update`, { method: 'POST' });
    expect(response.status).toBe(202);
    const operation = await until(async () => sent, 'the update posted to the agent');
    return { operation, release };
  }

  it('mirrors the dd:operation events of an update and settles it from the agent answer', async () => {
    const { operation, release } = await sendUpdate(await markPending('eight'));
    expect(peer.requests.at(-1)?.path).toBe(`/api/containers/a8/update`);
    const at = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
    peer.send(
      { type: 'dd:operation', data: { ...operation, status: 'in-progress', phase: 'renamed', updatedAt: at(1) } },
      30,
    );
    await until(
      async () => ((await operationOf(operation.id)).phase === 'renamed' ? true : undefined),
      'the phase mirrored',
    );
    const settled = { ...operation, status: 'succeeded', phase: 'succeeded', updatedAt: at(2) };
    peer.send({ type: 'dd:operation', data: settled }, 31);
    release({ status: 200, body: settled });
    const final = await until(async () => {
      const now = await operationOf(operation.id);
      return now.status === 'succeeded' ? now : undefined;
    }, 'settled');
    expect(final).toMatchObject({ agent: 'peer', containerName: 'eight', phase: 'succeeded' });
    peer.onOther = undefined;
  });

  // The hub's side of a request cut off with the link: the agent reports every operation it knows in
  // GET /api/operations at the reconnect (this one predates the route: 404, none), before the inventory.
  it('settles failed an update the agent never received: not reported when the dropped stream is reopened', async () => {
    const { operation, release } = await sendUpdate(await markPending('eight'));
    const streamsBefore = peer.requests.filter((r) => r.path === '/api/events').length;
    peer.dropStreams();
    const failed = await until(async () => {
      const now = await operationOf(operation.id);
      return now.status === 'failed' ? now : undefined;
    }, 'settled failed');
    expect(failed.phase).toBe('prepare');
    expect(failed.lastError).toContain('never received the update');
    expect(peer.requests.filter((r) => r.path === '/api/events').length).toBeGreaterThan(streamsBefore);
    expect(peer.requests.map((r) => r.path)).toContain('/api/operations');
    release({ status: 503, body: { error: 'too late' } });
    peer.onOther = undefined;
  });

  it('settles an update cut off with the link from what GET /api/operations reports at the reconnect', async () => {
    const { operation, release } = await sendUpdate(await markPending('eight'));
    const settled = { ...operation, status: 'rolled-back', phase: 'rolled-back', rollbackReason: 'health-gate' };
    const posting = peer.onOther;
    peer.onOther = async (request) =>
      request.path === '/api/operations' ? { status: 200, body: [settled] } : posting?.(request);
    peer.dropStreams();
    const final = await until(async () => {
      const now = await operationOf(operation.id);
      return now.status === 'rolled-back' ? now : undefined;
    }, 'settled from the report');
    expect(final).toMatchObject({ phase: 'rolled-back', rollbackReason: 'health-gate', agent: 'peer' });
    release({ status: 503, body: { error: 'too late' } });
    peer.onOther = undefined;
  });

  it('refuses an edge agent signing in under the name of a listen-mode agent (4003)', async () => {
    const identity = await newEdgeIdentity();
    const registered = await hub.request('/api/v1/edge/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: identity.publicKeyBase64, label: 'squatter' }),
    });
    expect(registered.status).toBe(201);
    const edge = await connectEdgePeer(hub.url as string);
    edge.send(await helloFor(edge, identity, 'peer'));
    expect((await edge.closed).code).toBe(EDGE_CLOSE.nameTaken);
    // The listen-mode agent keeps its name and its link. Polled: on a loaded machine its stream may be
    // between the silence cut of the case before and its reopening at this very moment.
    await until(async () => ((await listed())?.connected ? true : undefined), 'the listen-mode agent connected');
  });

  it('keeps listen-mode agents with DD_EXPERIMENTAL_EDGE=false, which removes only the edge endpoint and keys', async () => {
    const second = await createServerHub({
      DD_EXPERIMENTAL_EDGE: 'false',
      DD_AGENT_PEER_HOST: '127.0.0.1',
      DD_AGENT_PEER_PORT: String(peer.port),
      DD_AGENT_PEER_SECRET: SECRET,
    });
    try {
      const agent = await waitFor(async () => {
        const response = await second.request('/api/v1/agents');
        const { data } = (await response.json()) as { data: Agent[] };
        return data.find((a) => a.name === 'peer' && a.connected);
      }, 5_000);
      expect(agent.port).toBe(peer.port);
      expect((await second.request('/api/v1/edge/keys')).status).toBe(404);
    } finally {
      await second.close();
    }
  });

  it('never logs the secret', () => {
    expect(hub.logged.length).toBeGreaterThan(0);
    expect(hub.logged.filter((line) => JSON.stringify(line).includes(SECRET))).toEqual([]);
  });
});
