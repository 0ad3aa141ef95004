import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AgentNotificationEvent } from '../../../hub/src/agents/agent-events';
import type { EdgeSessions } from '../../../hub/src/edge/edge-sessions';
import type { UiEvent } from '../../../hub/src/events/event-bus';
import {
  EDGE_CLOSE,
  EDGE_PROTOCOL,
  EDGE_SIGN_IN_MAX_FRAME_BYTES,
  EDGE_SUBPROTOCOLS,
} from '../../../shared/edge/protocol';
import type { Agent } from '../../../shared/schemas/agent';
import {
  connectEdgePeer,
  type EdgeIdentity,
  type EdgePeer,
  edgeUrl,
  helloFor,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  signedInPeer,
  snapshotFrames,
  waitFor,
} from '../../support/edge-peer';
import { createServerHub, expectJsonError, type HubClient, jsonInit } from '../../support/hub-harness';

// Short protocol timings, so deadlines and silence are tested in well under a second.
const TIMINGS = { heartbeatMs: 150, silenceLimitMs: 500, signInDeadlineMs: 400, requestTimeoutMs: 2_000 };
// Images on a closed loopback port: a registry check fails at once and never leaves the machine.
const IMAGE = '127.0.0.1:9/team/app:1.0.0';

let client: HubClient;
let url: string;
const events: UiEvent[] = [];
const notifications: AgentNotificationEvent[] = [];

async function register(identity: EdgeIdentity, label = 'test'): Promise<Response> {
  return client.request('/api/v1/edge/keys', jsonInit('POST', { publicKey: identity.publicKeyBase64, label }));
}

async function registered(): Promise<EdgeIdentity> {
  const identity = await newEdgeIdentity();
  expect((await register(identity)).status).toBe(201);
  return identity;
}

async function agents(): Promise<Agent[]> {
  return ((await (await client.request('/api/v1/agents')).json()) as { data: Agent[] }).data;
}

async function containersOf(
  agent: string,
): Promise<{ id: string; name: string; agent?: string; status: string; watcher: string }[]> {
  const response = await client.request(`/api/v1/containers?agent=${agent}`);
  return ((await response.json()) as { data: never[] }).data;
}

async function expectClose(peer: EdgePeer, code: number): Promise<void> {
  const closed = await peer.closed;
  expect(closed.code).toBe(code);
}

async function hubStillServes(): Promise<void> {
  expect((await client.request('/health')).status).toBe(200);
}

beforeAll(async () => {
  client = await createServerHub({}, { edge: { timings: TIMINGS }, inventoryDeadlineMs: 1_000 });
  url = client.url as string;
  client.hub.parts.events.subscribe((event) => events.push(event));
  client.hub.parts.agentEvents.on((event) => notifications.push(event));
});

afterAll(async () => {
  await client.close();
});

describe('edge key registry', () => {
  it('registers a raw 32-byte key once, lists it and refuses anything else', async () => {
    const identity = await newEdgeIdentity();
    const created = await register(identity, 'nas');
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ keyId: identity.keyId, label: 'nas', createdAt: expect.any(String) });
    await expectJsonError(await register(identity), 409);
    const short = Buffer.alloc(31, 1).toString('base64');
    await expectJsonError(
      await client.request('/api/v1/edge/keys', jsonInit('POST', { publicKey: short, label: 'x' })),
      400,
    );
    await expectJsonError(
      await client.request('/api/v1/edge/keys', jsonInit('POST', { publicKey: 'not base64!!', label: 'x' })),
      400,
    );
    const list = (await (await client.request('/api/v1/edge/keys')).json()) as {
      data: { keyId: string; publicKey: string }[];
    };
    expect(list.data.find((key) => key.keyId === identity.keyId)?.publicKey).toBe(identity.publicKeyBase64);
    await expectJsonError(await client.request('/api/v1/edge/keys/0000000000000000', { method: 'DELETE' }), 404);
  });
});

describe('edge sign-in', () => {
  it('welcomes a registered key and lists the agent as connected', async () => {
    const identity = await registered();
    const peer = await connectEdgePeer(url);
    expect(peer.ws.protocol).toBe('edge.1.0');
    const challenge = await peer.next('challenge');
    expect(challenge.protocol).toBe(EDGE_PROTOCOL);
    peer.send(await helloFor(peer, identity, 'welcome-me', { challenge: challenge.challenge }));
    const welcome = await peer.next('welcome');
    expect(welcome).toMatchObject({ agentName: 'welcome-me', keyId: identity.keyId, heartbeatMs: TIMINGS.heartbeatMs });
    const listed = (await agents()).find((agent) => agent.name === 'welcome-me');
    expect(listed).toMatchObject({
      connected: true,
      version: '1.4.0',
      build: '1.4.0-rc.2',
      host: 'nas.example',
      port: 0,
      os: 'linux',
    });
    expect(listed?.pollInterval).toBe('0 * * * *');
    peer.close();
    await peer.closed;
  });

  it('answers an unknown key and a bad signature alike: 4001', async () => {
    const unknown = await newEdgeIdentity();
    const peer = await connectEdgePeer(url);
    peer.send(await helloFor(peer, unknown, 'stranger'));
    const error = await peer.next('error');
    await expectClose(peer, EDGE_CLOSE.signInFailed);

    const identity = await registered();
    const impostor = await newEdgeIdentity();
    const forged = await connectEdgePeer(url);
    // The registered key's id, signed with another key.
    forged.send({ ...(await helloFor(forged, { ...impostor, keyId: identity.keyId }, 'forged')) });
    const forgedError = await forged.next('error');
    await expectClose(forged, EDGE_CLOSE.signInFailed);
    expect(forgedError.message).toBe(error.message);
    await hubStillServes();
  });

  it('refuses a hello replayed on another connection (a new challenge): 4001', async () => {
    const identity = await registered();
    const first = await connectEdgePeer(url);
    const hello = await helloFor(first, identity, 'replayed');
    first.close();
    await first.closed;
    const second = await connectEdgePeer(url);
    await second.next('challenge');
    second.send(hello);
    await expectClose(second, EDGE_CLOSE.signInFailed);
  });

  it('binds a name to the first key: another key claiming it gets 4003', async () => {
    const owner = await registered();
    const peer = await signedInPeer(url, owner, 'bound-name');
    const other = await registered();
    const claimant = await connectEdgePeer(url);
    claimant.send(await helloFor(claimant, other, 'bound-name'));
    await expectClose(claimant, EDGE_CLOSE.nameTaken);
    const keys = (await (await client.request('/api/v1/edge/keys')).json()) as {
      data: { keyId: string; agentNames: string[] }[];
    };
    expect(keys.data.find((key) => key.keyId === owner.keyId)?.agentNames).toEqual(['bound-name']);
    peer.close();
  });

  it('closes 4004 for a frame before hello, for garbage and for binary frames; 4008 for another version', async () => {
    const early = await connectEdgePeer(url);
    await early.next('challenge');
    early.send({ type: 'ping' });
    await expectClose(early, EDGE_CLOSE.invalidFrame);

    const garbage = await connectEdgePeer(url);
    garbage.send('{"type": not json');
    await expectClose(garbage, EDGE_CLOSE.invalidFrame);

    const binary = await connectEdgePeer(url);
    binary.ws.send(Buffer.from([1, 2, 3]));
    await expectClose(binary, EDGE_CLOSE.invalidFrame);

    const unknownType = await connectEdgePeer(url);
    unknownType.send({ type: 'launch-missiles' });
    await expectClose(unknownType, EDGE_CLOSE.invalidFrame);

    const identity = await registered();
    const future = await connectEdgePeer(url);
    future.send({ ...(await helloFor(future, identity, 'future')), protocol: 'edge/1.9' });
    await expectClose(future, EDGE_CLOSE.unsupportedVersion);
    await hubStillServes();
  });

  it('closes 1009 for a frame over 32 KiB before sign-in, takes one after it, and keeps serving', async () => {
    const early = await connectEdgePeer(url);
    early.send(`"${'x'.repeat(EDGE_SIGN_IN_MAX_FRAME_BYTES)}"`);
    await expectClose(early, 1009);
    // Signed in, the socket's cap is 4 MiB: a 64 KiB ping is answered. (Frames over 4 MiB are the
    // fuzz suite's, whose silence limit leaves time to mask one in this loaded process.)
    const peer = await signedInPeer(url, await registered(), 'large-frames');
    peer.send(JSON.stringify({ type: 'ping' }).padEnd(2 * EDGE_SIGN_IN_MAX_FRAME_BYTES, ' '));
    await peer.next('pong');
    peer.close();
    await hubStillServes();
  });

  it('closes 4005 when no hello arrives before the sign-in deadline', async () => {
    const peer = await connectEdgePeer(url);
    const started = Date.now();
    await expectClose(peer, EDGE_CLOSE.signInTimeout);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMINGS.signInDeadlineMs - 50);
  });

  it('refuses an upgrade without an edge subprotocol (426)', async () => {
    for (const protocols of [[], ['edge.9.0']]) {
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(edgeUrl(url), protocols);
        ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        ws.on('open', () => resolve(101));
        ws.on('error', () => undefined);
      });
      expect(status).toBe(426);
    }
  });
});

describe('edge sessions', () => {
  it('pings the agent and drops it with 4006 when it falls silent', async () => {
    const identity = await registered();
    const peer = await signedInPeer(url, identity, 'silent');
    await peer.next('ping');
    await expectClose(peer, EDGE_CLOSE.heartbeatMissed);
  });

  it('keeps an agent that answers, and answers its pings', async () => {
    const identity = await registered();
    const peer = await signedInPeer(url, identity, 'chatty');
    peer.ws.on('message', (data) => {
      if (JSON.parse(data.toString()).type === 'ping') peer.send({ type: 'pong' });
    });
    peer.send({ type: 'ping' });
    await peer.next('pong');
    await new Promise((resolve) => setTimeout(resolve, TIMINGS.silenceLimitMs * 2));
    expect(peer.ws.readyState).toBe(WebSocket.OPEN);
    peer.close();
  });

  it('does not hold a stall of the hub loop against an agent that keeps pinging', async () => {
    const identity = await registered();
    const peer = await signedInPeer(url, identity, 'stalled');
    const pinger = setInterval(() => peer.send({ type: 'ping' }), 50);
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The loop held four silence limits after its poll, as a fleet's sign-in burst holds it: the
      // next turn runs the hub's ticker before it reads the frames that came meanwhile.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const until = performance.now() + TIMINGS.silenceLimitMs * 4;
          while (performance.now() < until);
          resolve();
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, TIMINGS.silenceLimitMs));
      expect(peer.ws.readyState).toBe(WebSocket.OPEN);
    } finally {
      clearInterval(pinger);
    }
    // Its own silence still counts.
    await expectClose(peer, EDGE_CLOSE.heartbeatMissed);
  });

  it('supersedes the older session of the same agent with 4000, without a disconnect', async () => {
    const identity = await registered();
    const first = await signedInPeer(url, identity, 'twice');
    const disconnectsBefore = events.filter((event) => event.type === 'dd:agent-disconnected').length;
    const second = await signedInPeer(url, identity, 'twice');
    await expectClose(first, EDGE_CLOSE.superseded);
    expect(events.filter((event) => event.type === 'dd:agent-disconnected')).toHaveLength(disconnectsBefore);
    expect((await agents()).find((agent) => agent.name === 'twice')?.connected).toBe(true);
    second.close();
  });

  it('closes the sessions of a revoked key with 4002 within one second, audits, and refuses it afterwards', async () => {
    const identity = await registered();
    const peer = await signedInPeer(url, identity, 'revoked');
    const started = Date.now();
    const response = await client.request(`/api/v1/edge/keys/${identity.keyId}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { revokedAt: string | null }).revokedAt).not.toBeNull();
    await expectClose(peer, EDGE_CLOSE.keyRevoked);
    expect(Date.now() - started).toBeLessThan(1_000);
    const again = await connectEdgePeer(url);
    again.send(await helloFor(again, identity, 'revoked'));
    await expectClose(again, EDGE_CLOSE.keyRevoked);
    const audit = (await (await client.request('/api/v1/audit?action=edge-key-revoked')).json()) as {
      data: { details: string }[];
    };
    expect(audit.data.some((entry) => entry.details.includes(identity.keyId))).toBe(true);
  });
});

describe('an agent inventory through the hub', () => {
  let identity: EdgeIdentity;
  let peer: EdgePeer;
  const web = sampleContainer('web', { image: IMAGE, labels: { 'dd.watch': 'true' } });
  const db = sampleContainer('db', { image: IMAGE, imageId: 'sha256:22', state: 'running' });
  const images = [sampleImage({ repoTags: [IMAGE] }), sampleImage({ id: 'sha256:22', repoTags: [IMAGE] })];

  beforeAll(async () => {
    identity = await registered();
    peer = await signedInPeer(url, identity, 'nas', {
      watchers: [sampleWatcher({ name: 'local', cron: '*/5 * * * *' })],
    });
    // Answer pings, so the session outlives the short test heartbeat.
    peer.ws.on('message', (data) => {
      if (JSON.parse(data.toString()).type === 'ping') peer.send({ type: 'pong' });
    });
    for (const frame of snapshotFrames('local', [web, db], images, { partSize: 1 })) peer.send(frame);
  });

  it('lists the snapshot under the agent, with the agent and watcher filters', async () => {
    const listed = await waitFor(async () => {
      const found = await containersOf('nas');
      return found.length === 2 ? found : undefined;
    });
    expect(listed.map((c) => c.name).sort()).toEqual(['db', 'web']);
    expect(listed.every((c) => c.agent === 'nas' && c.watcher === 'local')).toBe(true);
    const byWatcher = (await (await client.request('/api/v1/containers?agent=nas&watcher=local')).json()) as {
      total: number;
    };
    expect(byWatcher.total).toBe(2);
    expect(await containersOf('elsewhere')).toEqual([]);
    const agent = (await agents()).find((a) => a.name === 'nas');
    expect(agent).toMatchObject({
      connected: true,
      containers: { total: 2, running: 2, stopped: 0 },
      images: 2,
      pollInterval: '*/5 * * * *',
    });
  });

  it('lists the agent watcher with its agent, and answers it by /watchers/{type}/{name}/{agent}', async () => {
    const all = (await (await client.request('/api/v1/watchers')).json()) as {
      data: { name: string; agent?: string }[];
    };
    expect(all.data).toContainEqual(expect.objectContaining({ name: 'local', agent: 'nas' }));
    const one = await client.request('/api/v1/watchers/docker/local/nas');
    expect(await one.json()).toMatchObject({
      id: 'docker.local',
      agent: 'nas',
      configuration: { cron: '*/5 * * * *' },
    });
    await expectJsonError(await client.request('/api/v1/watchers/docker/other/nas'), 404);
    await expectJsonError(await client.request('/api/v1/watchers/docker/local/nobody'), 404);
    // The hub's own watcher of that name does not exist (DD_LOCAL_WATCHER=false): an agent's is not it.
    await expectJsonError(await client.request('/api/v1/watchers/docker/local'), 404);
  });

  it('applies deltas: a changed container is updated, a removed one disappears', async () => {
    peer.send({ type: 'container.changed', watcher: 'local', container: { ...db, state: 'running', restartCount: 3 } });
    const cache = sampleContainer('cache', { image: IMAGE });
    peer.send({ type: 'container.changed', watcher: 'local', container: cache, image: images[0] });
    await waitFor(async () => ((await containersOf('nas')).some((c) => c.name === 'cache') ? true : undefined));
    peer.send({ type: 'container.removed', watcher: 'local', containerId: cache.id });
    await waitFor(async () => ((await containersOf('nas')).some((c) => c.name === 'cache') ? undefined : true));
    await waitFor(() =>
      events.some((e) => e.type === 'dd:agent-stats-changed' && (e.data as { agentName: string }).agentName === 'nas')
        ? true
        : undefined,
    );
  });

  it('closes 4004 for a snapshot of a watcher the hello did not announce (and the hub keeps the agent listed)', async () => {
    const other = await registered();
    const rogue = await signedInPeer(url, other, 'rogue');
    rogue.send(snapshotFrames('undeclared', [], [])[0]);
    await expectClose(rogue, EDGE_CLOSE.invalidFrame);
    expect((await agents()).find((a) => a.name === 'rogue')?.connected).toBe(false);
  });

  it('exports each registered agent as dd_agent_connected (1 linked, 0 away), and registry checks by host', async () => {
    const text = await (await client.request('/metrics')).text();
    expect(text).toMatch(/^dd_agent_connected\{agent="nas"\} 1$/m);
    expect(text).toMatch(/^dd_agent_connected\{agent="rogue"\} 0$/m);
    // The agent's images live on a closed loopback port: every lookup ends in a transport error, timed too.
    const errors = Number(
      /^dd_registry_requests_total\{host="127\.0\.0\.1:9",status="error"\} (\d+)$/m.exec(text)?.[1],
    );
    const timed = Number(
      /^dd_registry_request_duration_seconds_count\{host="127\.0\.0\.1:9"\} (\d+)$/m.exec(text)?.[1],
    );
    expect(errors).toBeGreaterThan(0);
    expect(timed).toBe(errors);
  });

  it('restarts a container through the agent and answers the refreshed record', async () => {
    const answered = (async () => {
      const request = await peer.next('request');
      expect(request.request).toEqual({ method: 'container.restart', watcher: 'local', containerId: web.id });
      peer.send({ type: 'container.changed', watcher: 'local', container: { ...web, restartCount: 1 } });
      peer.send({ type: 'reply', id: request.id, ok: true });
    })();
    const response = await client.request(`/api/v1/containers/${web.id}/restart`, { method: 'POST' });
    await answered;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: web.id, agent: 'nas', status: 'running' });
  });

  it('maps the agent answering not-found to 404', async () => {
    const answered = (async () => {
      const request = await peer.next('request');
      peer.send({
        type: 'reply',
        id: request.id,
        ok: false,
        error: { code: 'not-found', message: 'no such container' },
      });
    })();
    const response = await client.request(`/api/v1/containers/${db.id}/stop`, { method: 'POST' });
    await answered;
    await expectJsonError(response, 404);
  });

  it('reads stats and a log download through the agent', async () => {
    const statsAnswered = (async () => {
      const request = await peer.next('request');
      expect(request.request.method).toBe('container.stats');
      peer.send({
        type: 'reply',
        id: request.id,
        ok: true,
        result: { cpuPercent: 12.5, memoryBytes: 1024, memoryLimitBytes: 4096 },
      });
    })();
    const stats = await client.request(`/api/v1/containers/${web.id}/stats`);
    await statsAnswered;
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({ containerId: web.id, current: { cpuPercent: 12.5, memoryBytes: 1024 } });

    const logsAnswered = (async () => {
      const request = await peer.next('request');
      expect(request.request).toMatchObject({
        method: 'container.logs',
        containerId: web.id,
        options: { follow: false },
      });
      peer.send({
        type: 'stream',
        id: request.id,
        lines: [{ stream: 'stdout', ts: '2026-01-01T00:00:00.000Z', line: 'hello from nas' }],
      });
      peer.send({
        type: 'stream',
        id: request.id,
        lines: [{ stream: 'stderr', ts: '2026-01-01T00:00:01.000Z', line: 'and goodbye' }],
      });
      peer.send({ type: 'reply', id: request.id, ok: true });
    })();
    const logs = await client.request(`/api/v1/containers/${web.id}/logs?timestamps=false`);
    await logsAnswered;
    expect(logs.status).toBe(200);
    expect(await logs.text()).toBe('hello from nas\nand goodbye\n');
  });

  // Regression (issue 15 item 8): the fleet summary sampled only the hub's own containers.
  it("samples the agent's running containers in the fleet stats summary, through the agent", async () => {
    // web answers as in the test above (its sample may still be fresh there); db has its own figures.
    const figures: Record<string, { cpuPercent: number; memoryBytes: number; memoryLimitBytes: number }> = {
      [web.id]: { cpuPercent: 12.5, memoryBytes: 1024, memoryLimitBytes: 4096 },
      [db.id]: { cpuPercent: 2.5, memoryBytes: 512, memoryLimitBytes: 4096 },
    };
    // Both records stored and running (as the tests above leave them; waited for when run alone).
    await waitFor(async () => {
      const found = await containersOf('nas');
      return found.filter((c) => c.status === 'running').length === 2 ? found : undefined;
    });
    let settled = false;
    const summary = client.request('/api/v1/stats/summary').finally(() => {
      settled = true;
    });
    const asked: string[] = [];
    while (!settled) {
      const request = await peer.next('request', 200).catch(() => undefined);
      if (request === undefined) continue;
      expect(request.request.method).toBe('container.stats');
      const { containerId } = request.request as { containerId: string };
      asked.push(containerId);
      peer.send({ type: 'reply', id: request.id, ok: true, result: figures[containerId] });
    }
    const response = await summary;
    expect(response.status).toBe(200);
    expect(asked).toContain(db.id);
    // One host (the agent's watcher): its memory limit counts once.
    expect(await response.json()).toMatchObject({
      containers: 2,
      sampled: 2,
      cpuPercent: 15,
      memoryBytes: 1536,
      memoryLimitBytes: 4096,
    });
  });

  it('follows a log over the hub WebSocket, and cancels the agent stream when the client leaves', async () => {
    const socket = new WebSocket(
      `${url.replace(/^http/, 'ws')}/api/v1/containers/${web.id}/logs/stream?follow=true&tail=0`,
    );
    const request = await peer.next('request');
    expect(request.request).toMatchObject({
      method: 'container.logs',
      containerId: web.id,
      options: { follow: true, tail: 0 },
    });
    const first = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
    peer.send({
      type: 'stream',
      id: request.id,
      lines: [{ stream: 'stdout', ts: '2026-01-01T00:00:00.000Z', line: 'live' }],
    });
    expect(JSON.parse(await first)).toEqual({ type: 'stdout', ts: '2026-01-01T00:00:00.000Z', line: 'live' });
    socket.close();
    const cancel = await peer.next('cancel');
    expect(cancel.id).toBe(request.id);
  });

  it("proxies the agent's log entries (http-interface §4.4)", async () => {
    const answered = (async () => {
      const request = await peer.next('request');
      expect(request.request).toEqual({ method: 'log.entries', level: 'warn', tail: 5 });
      peer.send({
        type: 'reply',
        id: request.id,
        ok: true,
        result: { entries: [{ timestamp: 1, level: 'warn', component: 'agent', msg: 'hm' }] },
      });
    })();
    const response = await client.request('/api/v1/agents/nas/log/entries?level=warn&tail=5');
    await answered;
    expect(await response.json()).toEqual([{ timestamp: 1, level: 'warn', component: 'agent', msg: 'hm' }]);
    await expectJsonError(await client.request('/api/v1/agents/nobody/log/entries'), 404);
    await expectJsonError(await client.request('/api/v1/agents/nas/log/entries?level=loud'), 400);
  });

  it('refreshes the inventory through the agent (http-interface §4.3): only the awaited operation writes', async () => {
    const answered = (async () => {
      const request = await peer.next('request');
      expect(request.request).toMatchObject({ method: 'inventory', watcher: 'local', operationId: expect.any(String) });
      const operationId = (request.request as { operationId: string }).operationId;
      // An unsolicited snapshot carrying some other operation id is ignored: it would have removed web.
      for (const frame of snapshotFrames('local', [db], images, { operationId: 'not-awaited', syncId: 'x' }))
        peer.send(frame);
      const renamed = { ...web, name: 'web-renamed' };
      for (const frame of snapshotFrames('local', [renamed, db], images, { operationId, syncId: 'op' }))
        peer.send(frame);
      peer.send({ type: 'reply', id: request.id, ok: true, result: { syncId: 'op', containers: 2 } });
      return operationId;
    })();
    const response = await client.request('/api/v1/watchers/docker/local/nas/inventory', jsonInit('POST', {}));
    const operationId = await answered;
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      context: { operationId: string; source: unknown };
      containers: { name: string }[];
      authoritative: boolean;
      removedIds: string[];
    };
    expect(body.context).toEqual({ operationId, source: { type: 'docker', name: 'local', agent: 'nas' } });
    expect(body.authoritative).toBe(true);
    expect(body.removedIds).toEqual([]);
    expect(body.containers.map((c) => c.name).sort()).toEqual(['db', 'web-renamed']);
  });

  it('lets a superseded inventory refresh write nothing and say so', async () => {
    const older = client.request('/api/v1/watchers/docker/local/nas/inventory', jsonInit('POST', {}));
    const olderRequest = await peer.next('request');
    const newer = client.request('/api/v1/watchers/docker/local/nas/inventory', jsonInit('POST', {}));
    const newerRequest = await peer.next('request');
    const opOf = (frame: typeof olderRequest) => (frame.request as { operationId: string }).operationId;
    // The older operation's snapshot comes late, after the newer was asked for: it is not applied.
    for (const frame of snapshotFrames('local', [], [], { operationId: opOf(olderRequest), syncId: 'old' }))
      peer.send(frame);
    peer.send({ type: 'reply', id: olderRequest.id, ok: true, result: { syncId: 'old', containers: 0 } });
    const olderBody = (await (await older).json()) as {
      authoritative: boolean;
      errors: { phase: string }[];
      removedIds: string[];
    };
    expect(olderBody.authoritative).toBe(false);
    expect(olderBody.errors).toContainEqual(expect.objectContaining({ phase: 'stale' }));
    expect(olderBody.removedIds).toEqual([]);
    expect(await containersOf('nas')).toHaveLength(2);
    const current = await containersOf('nas');
    const byId = new Map(current.map((c) => [c.id, c]));
    const containers = [web, db].map((c) => ({ ...c, name: byId.get(c.id)?.name ?? c.name }));
    for (const frame of snapshotFrames('local', containers, images, { operationId: opOf(newerRequest), syncId: 'new' }))
      peer.send(frame);
    peer.send({ type: 'reply', id: newerRequest.id, ok: true, result: { syncId: 'new', containers: 2 } });
    expect(((await (await newer).json()) as { authoritative: boolean }).authoritative).toBe(true);
  });

  it('watches one agent container now (registry check in the hub)', async () => {
    const response = await client.request(`/api/v1/containers/${db.id}/watch`, { method: 'POST' });
    expect(response.status).toBe(200);
    // The hub itself asked the (closed) registry port: the check runs here, not on the agent.
    expect(await response.json()).toMatchObject({ id: db.id, agent: 'nas', error: { phase: 'tags', kind: 'network' } });
  });

  it('answers 504 when the agent does not answer an inventory refresh in time, and ignores its late snapshot', async () => {
    const requested = peer.next('request');
    const response = await client.request('/api/v1/watchers/docker/local/nas/inventory', jsonInit('POST', {}));
    await expectJsonError(response, 504);
    const request = await requested;
    const operationId = (request.request as { operationId: string }).operationId;
    // Too late: this would empty the inventory if it were applied.
    for (const frame of snapshotFrames('local', [], [], { operationId, syncId: 'late' })) peer.send(frame);
    peer.send({ type: 'reply', id: request.id, ok: true, result: { syncId: 'late', containers: 0 } });
    peer.send({ type: 'ping' });
    await peer.next('pong');
    expect(await containersOf('nas')).toHaveLength(2);
  });

  it('keeps the records of a disconnected agent, lists it disconnected, answers 503, and says so', async () => {
    const disconnectedBefore = notifications.filter((n) => n.event === 'agent-disconnect').length;
    peer.close();
    await peer.closed;
    const agent = await waitFor(async () => (await agents()).find((a) => a.name === 'nas' && !a.connected));
    expect(agent.containers.total).toBe(2);
    expect(await containersOf('nas')).toHaveLength(2);
    await waitFor(() =>
      events.some((e) => e.type === 'dd:agent-disconnected' && (e.data as Agent).name === 'nas') ? true : undefined,
    );
    expect(notifications.filter((n) => n.event === 'agent-disconnect')).toHaveLength(disconnectedBefore + 1);
    const audit = (await (await client.request('/api/v1/audit?action=agent-disconnect')).json()) as {
      data: { details: string }[];
    };
    expect(audit.data.some((entry) => entry.details.includes('agent nas'))).toBe(true);
    await expectJsonError(await client.request(`/api/v1/containers/${web.id}/restart`, { method: 'POST' }), 503);
    await expectJsonError(await client.request('/api/v1/agents/nas/log/entries'), 503);
    await expectJsonError(
      await client.request('/api/v1/watchers/docker/local/nas/inventory', jsonInit('POST', {})),
      503,
    );

    // It returns: connected again, and the reconnect is raised for the notification capability.
    const back = await signedInPeer(url, identity, 'nas', {
      watchers: [sampleWatcher({ name: 'local', cron: '*/5 * * * *' })],
    });
    await waitFor(async () => ((await agents()).find((a) => a.name === 'nas')?.connected ? true : undefined));
    expect(notifications.at(-1)).toMatchObject({ event: 'agent-reconnect', agent: { name: 'nas', connected: true } });
    expect(events.some((e) => e.type === 'dd:agent-connected' && (e.data as Agent).name === 'nas')).toBe(true);
    // A new full sync without web removes it: the snapshot is the whole inventory.
    for (const frame of snapshotFrames('local', [db], images, { syncId: 'resync' })) back.send(frame);
    await waitFor(async () => ((await containersOf('nas')).length === 1 ? true : undefined));
    back.close();
  });
});

describe('edge persistence across a hub restart', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'edge-hub-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('lists known agents as disconnected with their containers, and keeps keys and name bindings', async () => {
    const env = { DD_STORE_DRIVER: 'fs', DD_STORE_PATH: directory };
    const first = await createServerHub(env, { edge: { timings: TIMINGS } });
    const identity = await newEdgeIdentity();
    await first.request(
      '/api/v1/edge/keys',
      jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'persisted' }),
    );
    const peer = await signedInPeer(first.url as string, identity, 'keeper');
    for (const frame of snapshotFrames('local', [sampleContainer('kept', { image: IMAGE })], [sampleImage()]))
      peer.send(frame);
    await waitFor(async () => {
      const body = (await (await first.request('/api/v1/containers?agent=keeper')).json()) as { total: number };
      return body.total === 1 ? true : undefined;
    });
    await first.close();

    const second = await createServerHub(env, { edge: { timings: TIMINGS } });
    try {
      const listed = (await (await second.request('/api/v1/agents')).json()) as { data: Agent[]; total: number };
      expect(listed.total).toBe(1);
      expect(listed.data[0]).toMatchObject({ name: 'keeper', connected: false, containers: { total: 1 } });
      const watchers = (await (await second.request('/api/v1/watchers')).json()) as { data: { agent?: string }[] };
      expect(watchers.data.some((w) => w.agent === 'keeper')).toBe(true);
      // The name stays bound to its key across the restart.
      const other = await newEdgeIdentity();
      await second.request('/api/v1/edge/keys', jsonInit('POST', { publicKey: other.publicKeyBase64, label: 'other' }));
      const claimant = await connectEdgePeer(second.url as string);
      claimant.send(await helloFor(claimant, other, 'keeper'));
      expect((await claimant.closed).code).toBe(EDGE_CLOSE.nameTaken);
    } finally {
      await second.close();
    }
  });
});

describe('DD_EDGE_AUTHORIZED_KEYS', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'edge-keys-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('registers the keys of the file at start, and a key revoked through the API stays revoked', async () => {
    const identity = await newEdgeIdentity();
    const file = join(directory, 'authorized_keys');
    await writeFile(file, `# agents\n${identity.publicKeyBase64} garage nas\n`);
    const env = { DD_STORE_DRIVER: 'fs', DD_STORE_PATH: join(directory, 'store'), DD_EDGE_AUTHORIZED_KEYS: file };
    const first = await createServerHub(env, { edge: { timings: TIMINGS } });
    try {
      const keys = (await (await first.request('/api/v1/edge/keys')).json()) as {
        data: { keyId: string; label: string }[];
      };
      expect(keys.data).toEqual([
        expect.objectContaining({ keyId: identity.keyId, label: 'garage nas', revokedAt: null }),
      ]);
      const peer = await signedInPeer(first.url as string, identity, 'garage');
      peer.close();
      expect((await first.request(`/api/v1/edge/keys/${identity.keyId}`, { method: 'DELETE' })).status).toBe(200);
    } finally {
      await first.close();
    }
    const second = await createServerHub(env, { edge: { timings: TIMINGS } });
    try {
      const keys = (await (await second.request('/api/v1/edge/keys')).json()) as {
        data: { revokedAt: string | null }[];
      };
      expect(keys.data).toHaveLength(1);
      expect(keys.data[0]?.revokedAt).not.toBeNull();
    } finally {
      await second.close();
    }
  });

  it('stops start-up with a ConfigError naming the variable and the line', async () => {
    const file = join(directory, 'bad_keys');
    await writeFile(file, 'ssh-ed25519 AAAA not-a-raw-key\n');
    await expect(createServerHub({ DD_EDGE_AUTHORIZED_KEYS: file })).rejects.toThrow(
      /^DD_EDGE_AUTHORIZED_KEYS: .*line 1/,
    );
    await expect(createServerHub({ DD_EDGE_AUTHORIZED_KEYS: join(directory, 'missing') })).rejects.toThrow(
      /^DD_EDGE_AUTHORIZED_KEYS: cannot read/,
    );
  });
});

describe('the edge upgrade limit', () => {
  it('answers 429 with Retry-After past DD_SERVER_RATELIMIT_WEBSOCKET upgrades from one address', async () => {
    const limited = await createServerHub({ DD_SERVER_RATELIMIT_WEBSOCKET: '2' }, { edge: { timings: TIMINGS } });
    try {
      for (let i = 0; i < 2; i++) {
        const peer = await connectEdgePeer(limited.url as string);
        peer.close();
        await peer.closed;
      }
      const refused = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve) => {
        const ws = new WebSocket(edgeUrl(limited.url as string), [...EDGE_SUBPROTOCOLS]);
        ws.on('unexpected-response', (_request, response) =>
          resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] }),
        );
        ws.on('open', () => resolve({ status: 101, retryAfter: undefined }));
        ws.on('error', () => undefined);
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

/** The upgrade's answer when it is refused: status, Retry-After and the JSON body (http-interface §2.15). */
function refusedUpgrade(
  hubUrl: string,
  localAddress = '127.0.0.1',
): Promise<{
  status: number;
  retryAfter: string | undefined;
  body: { error?: string; details?: Record<string, unknown> };
}> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(edgeUrl(hubUrl), [...EDGE_SUBPROTOCOLS], { localAddress });
    ws.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
          body: JSON.parse(text || '{}'),
        }),
      );
    });
    ws.on('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.on('error', () => undefined);
  });
}

describe('the caps on edge connections not yet signed in', () => {
  it('refuses with 429 past the per-address cap and past the total, frees a place at sign-in and close, and never counts agents', async () => {
    const capped = await createServerHub(
      { DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '2', DD_EDGE_SIGNIN_MAX: '3' },
      { edge: { timings: { ...TIMINGS, signInDeadlineMs: 30_000 } } },
    );
    const hubUrl = capped.url as string;
    const edge = capped.hub.parts.edge as EdgeSessions;
    try {
      const identity = await newEdgeIdentity();
      const added = await capped.request(
        '/api/v1/edge/keys',
        jsonInit('POST', { publicKey: identity.publicKeyBase64, label: 'cap' }),
      );
      expect(added.status).toBe(201);
      const first = await connectEdgePeer(hubUrl);
      const second = await connectEdgePeer(hubUrl);
      const perAddress = await refusedUpgrade(hubUrl);
      expect(perAddress.status).toBe(429);
      expect(Number(perAddress.retryAfter)).toBeGreaterThan(0);
      expect(perAddress.body).toMatchObject({
        error: expect.stringContaining('one address'),
        details: { limit: 2, scope: 'address' },
      });

      // Another address still gets in, up to the total.
      const third = await connectEdgePeer(hubUrl, EDGE_SUBPROTOCOLS, { localAddress: '127.0.0.2' });
      const total = await refusedUpgrade(hubUrl, '127.0.0.3');
      expect(total).toMatchObject({ status: 429, body: { details: { limit: 3, scope: 'total' } } });
      expect(edge.signingInCount).toBe(3);

      // Signing in frees the place: the agent is not counted.
      first.send(await helloFor(first, identity, 'capped'));
      await first.next('welcome');
      expect(edge.signingInCount).toBe(2);
      const fourth = await connectEdgePeer(hubUrl);
      // Closing frees one too.
      second.close();
      await second.closed;
      await waitFor(() => edge.signingInCount === 2 || undefined, 2_000, 'the closed socket uncounted');
      const fifth = await connectEdgePeer(hubUrl);
      expect(edge.signingInCount).toBe(3);
      for (const peer of [first, third, fourth, fifth]) peer.close();
      await waitFor(() => edge.signingInCount === 0 || undefined, 2_000, 'every socket uncounted');
    } finally {
      await capped.close();
    }
  });

  it('frees the place of a connection that never signs in at its deadline (4005)', async () => {
    const capped = await createServerHub({ DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '1' }, { edge: { timings: TIMINGS } });
    try {
      const silent = await connectEdgePeer(capped.url as string);
      expect((await refusedUpgrade(capped.url as string)).status).toBe(429);
      await expectClose(silent, EDGE_CLOSE.signInTimeout);
      (await connectEdgePeer(capped.url as string)).close();
    } finally {
      await capped.close();
    }
  });
});

describe('DD_EXPERIMENTAL_EDGE=false', () => {
  it('answers 404 for the endpoint and the key routes, and lists no agents', async () => {
    const off = await createServerHub({ DD_EXPERIMENTAL_EDGE: 'false' });
    try {
      await expectJsonError(await off.request('/api/v1/edge/keys'), 404);
      await expectJsonError(await off.request('/api/v1/edge/ws'), 404);
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(edgeUrl(off.url as string), [...EDGE_SUBPROTOCOLS]);
        ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        ws.on('open', () => resolve(101));
        ws.on('error', () => undefined);
      });
      expect(status).toBe(404);
      expect(await (await off.request('/api/v1/agents')).json()).toEqual({ data: [], total: 0 });
      expect(off.hub.parts.edge).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
