import { afterEach, describe, expect, it } from 'vitest';
import { EDGE_CLOSE, EDGE_PROTOCOL, edgeSubprotocol } from '../../../shared/edge/protocol';
import { edgeKeyId, generateEdgeKeyPair, toBase64 } from '../../../shared/edge/sign-in';
import { type HubPeer, type PeerConnection, startHubPeer } from '../../../test/support/edge-hub-peer';
import { createEdgeAgent, type EdgeAgent, type EdgeAgentEvent, type EdgeAgentOptions } from '../agent/edge-agent';
import type { EdgeKey } from '../keys/edge-key';
import { createAgentLogging } from '../logging/agent-logging';

/**
 * The link without Docker (an agent with no watchers) against a strict protocol peer on a real
 * socket: sign-in, requests that need no Engine, heartbeats, closes and reconnects.
 */
async function newKey(): Promise<EdgeKey> {
  const { secretKey, publicKey } = await generateEdgeKeyPair();
  return { secretKey, publicKey, keyId: edgeKeyId(publicKey) };
}

interface Running {
  agent: EdgeAgent;
  lines: string[];
  events: EdgeAgentEvent[];
}

const running: Running[] = [];
const peers: HubPeer[] = [];

async function peerFor(options: Parameters<typeof startHubPeer>[0]): Promise<HubPeer> {
  const peer = await startHubPeer(options);
  peers.push(peer);
  return peer;
}

function startAgent(peer: HubPeer, key: EdgeKey, overrides: Partial<EdgeAgentOptions> = {}): Running {
  const lines: string[] = [];
  const events: EdgeAgentEvent[] = [];
  const { logger, ring } = createAgentLogging('debug', (entry) =>
    lines.push(`${entry.level} ${entry.component} ${entry.msg}`),
  );
  const agent = createEdgeAgent({
    url: `${peer.url}/api/v1/edge/ws`,
    key,
    agentName: 'test-agent',
    watchers: [],
    logger,
    ring,
    logLevel: 'debug',
    reconnect: { minMs: 40, maxMs: 160 },
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  agent.start();
  const entry = { agent, lines, events };
  running.push(entry);
  return entry;
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function signedIn(peer: HubPeer, index?: number): Promise<PeerConnection> {
  const connection = await peer.connection(index);
  await until(() => connection.signedIn);
  return connection;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map(({ agent }) => agent.stop()));
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

describe('edge agent link (edge/1.0)', () => {
  it('offers edge.1.0 (edge/1.0) and signs in with a hello the hub can verify', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    const { events } = startAgent(peer, key);
    const connection = await signedIn(peer);
    expect(peer.upgrades[0]?.protocols).toEqual(['edge.1.0']);
    expect(connection.socket.protocol).toBe(edgeSubprotocol(EDGE_PROTOCOL));
    expect(connection.hello).toMatchObject({
      protocol: EDGE_PROTOCOL,
      keyId: key.keyId,
      agentName: 'test-agent',
      watchers: [],
      agent: { logLevel: 'debug', os: process.platform, arch: process.arch },
    });
    expect(connection.hello?.agent.version).toMatch(/^\d+\.\d+\.\d+/);
    await until(() => events.some((e) => e.type === 'welcome'));
    expect(connection.invalid).toEqual([]);
  });

  it('answers requests it cannot serve with the documented error codes, and keeps the session', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    startAgent(peer, key);
    const connection = await signedIn(peer);
    const unknownMethod = await connection.request({ method: 'container.exec', watcher: 'local', containerId: 'x' });
    expect(unknownMethod.reply).toMatchObject({ ok: false, error: { code: 'unsupported' } });
    const badFields = await connection.request({ method: 'container.stop', watcher: 'local' });
    expect(badFields.reply).toMatchObject({ ok: false, error: { code: 'invalid' } });
    const noWatcher = await connection.request({ method: 'container.stop', watcher: 'nope', containerId: 'abc' });
    expect(noWatcher.reply).toMatchObject({ ok: false, error: { code: 'not-found' } });
    const inventory = await connection.request({ method: 'inventory', watcher: 'nope', operationId: 'op-1' });
    expect(inventory.reply).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(connection.socket.readyState).toBe(connection.socket.OPEN);
    expect(connection.invalid).toEqual([]);
  });

  it('serves log.entries from its ring with level, component and tail filters', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    startAgent(peer, key);
    const connection = await signedIn(peer);
    const { reply } = await connection.request({ method: 'log.entries', component: 'edge.link', level: 'info' });
    expect(reply.ok).toBe(true);
    const entries = (reply as { result: { entries: { msg: string; level: string; component: string }[] } }).result
      .entries;
    expect(entries.some((entry) => entry.msg.startsWith('connected to ws://127.0.0.1'))).toBe(true);
    expect(entries.every((entry) => entry.component === 'edge.link' && entry.level !== 'debug')).toBe(true);
    const one = await connection.request({ method: 'log.entries', tail: 1 });
    expect((one.reply as { result: { entries: unknown[] } }).result.entries).toHaveLength(1);
  });

  it('pings every heartbeatMs of the welcome and answers pings with pongs', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey], heartbeatMs: 100 });
    startAgent(peer, key);
    const connection = await signedIn(peer);
    const started = Date.now();
    await until(() => connection.frames.filter((f) => f.type === 'ping').length >= 3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    const from = connection.frames.length;
    connection.send({ type: 'ping' });
    await connection.waitFor((f) => f.type === 'pong', 2_000, from);
  });

  it('drops a silent hub with 4006 after two beats plus the slack, and dials again', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey], heartbeatMs: 100, answerPings: false });
    const { events } = startAgent(peer, key, { tuning: { silenceSlackMs: 100 } });
    const connection = await signedIn(peer);
    const started = Date.now();
    const closed = await connection.closed;
    expect(closed.code).toBe(EDGE_CLOSE.heartbeatMissed);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await signedIn(peer, 1);
    expect(events.find((e) => e.type === 'closed')).toMatchObject({
      end: { code: 4006, byAgent: true, welcomed: true },
    });
  });

  it('reconnects after the hub closes, with a fresh signature and backoff delays within [step/2, step]', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    const { events } = startAgent(peer, key);
    for (let i = 0; i < 3; i++) {
      const connection = await signedIn(peer, i);
      connection.socket.close(EDGE_CLOSE.internalError, 'test');
    }
    const third = await signedIn(peer, 3);
    const hellos = peer.connections.slice(0, 4).map((c) => c.hello);
    expect(new Set(hellos.map((h) => h?.signature)).size).toBe(4);
    const delays = events.flatMap((e) => (e.type === 'closed' ? [e.reconnectInMs as number] : []));
    expect(delays).toHaveLength(3);
    // Steps 40, 80, 160 ms: each delay between half and all of its step.
    [40, 80, 160].forEach((step, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(step / 2);
      expect(delays[i]).toBeLessThanOrEqual(step);
    });
    expect(third.invalid).toEqual([]);
  });

  it('treats 1001 from the hub as a restart: every reconnect after it starts again at the first step', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    const { events, lines } = startAgent(peer, key);
    for (let i = 0; i < 3; i++) {
      const connection = await signedIn(peer, i);
      connection.socket.close(EDGE_CLOSE.goingAway, 'hub shutting down');
    }
    await signedIn(peer, 3);
    const delays = events.flatMap((e) => (e.type === 'closed' ? [e.reconnectInMs as number] : []));
    // Not 40, 80, 160 as after failures: the first step (40 ms) each time.
    expect(delays).toHaveLength(3);
    for (const delay of delays) expect(delay).toBeLessThanOrEqual(40);
    expect(lines.some((line) => line.includes('connection closed with 1001 (the hub is shutting down)'))).toBe(true);
  });

  it('on 4001 logs the key id to register and keeps retrying', async () => {
    const key = await newKey();
    const registered = await newKey();
    const peer = await peerFor({ publicKeys: [registered.publicKey] });
    const { lines, events } = startAgent(peer, key);
    const first = await peer.connection(0);
    expect((await first.closed).code).toBe(EDGE_CLOSE.signInFailed);
    await peer.connection(1);
    await until(() => events.some((e) => e.type === 'closed' && e.end.code === EDGE_CLOSE.signInFailed));
    const hint = lines.find((line) => line.includes('register this agent'));
    expect(hint).toContain(key.keyId);
    expect(hint).toContain(toBase64(key.publicKey));
    expect(events.find((e) => e.type === 'closed')).toMatchObject({
      end: { message: 'hub error 4001: sign-in failed' },
    });
  });

  it('closes with 4004 on a frame that fails the schema', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    startAgent(peer, key);
    const connection = await signedIn(peer);
    connection.send({ type: 'shell', cmd: 'rm -rf /' });
    expect((await connection.closed).code).toBe(EDGE_CLOSE.invalidFrame);
    await signedIn(peer, 1);
  });

  it('reports an HTTP answer to the upgrade with its status, error and Retry-After', async () => {
    const key = await newKey();
    const peer = await peerFor({
      publicKeys: [key.publicKey],
      refuseWith: { status: 429, error: '{"error":"too many upgrades"}', headers: { 'Retry-After': '1' } },
    });
    const { events, lines } = startAgent(peer, key);
    await until(() => events.some((e) => e.type === 'closed'));
    const closed = events.find((e) => e.type === 'closed');
    expect(closed).toMatchObject({ end: { httpStatus: 429, message: 'too many upgrades', welcomed: false } });
    expect((closed as { reconnectInMs: number }).reconnectInMs).toBeGreaterThanOrEqual(1_000);
    expect(lines.some((line) => line.includes('HTTP 429'))).toBe(true);
  });

  it('retries the full sync of a watcher whose Docker does not answer, and answers its requests with failed', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    const socketPath = '/nonexistent/docker.sock';
    const { lines } = startAgent(peer, key, {
      watchers: [
        {
          name: 'gone',
          endpoint: { socketPath },
          cron: '0 * * * *',
          jitterSeconds: 0,
          watchAll: false,
          watchByDefault: true,
        },
      ],
      tuning: { syncRetry: { minMs: 30, maxMs: 60 } },
    });
    const connection = await signedIn(peer);
    expect(connection.hello?.watchers).toEqual([
      expect.objectContaining({ name: 'gone', endpoint: `unix://${socketPath}` }),
    ]);
    await until(() => lines.filter((line) => line.includes('watcher gone: full sync failed')).length >= 3);
    expect(connection.frames.some((frame) => frame.type === 'snapshot')).toBe(false);
    const stop = await connection.request({ method: 'container.stop', watcher: 'gone', containerId: 'abc' });
    expect(stop.reply).toMatchObject({
      ok: false,
      error: { code: 'failed', message: expect.stringContaining(`docker(unix://${socketPath})`) },
    });
    const inventory = await connection.request({ method: 'inventory', watcher: 'gone', operationId: 'op-1' });
    expect(inventory.reply).toMatchObject({ ok: false, error: { code: 'failed' } });
    expect(connection.invalid).toEqual([]);
  });

  it('stop() closes with 1001 (going away) and does not dial again', async () => {
    const key = await newKey();
    const peer = await peerFor({ publicKeys: [key.publicKey] });
    const { agent } = startAgent(peer, key);
    const connection = await signedIn(peer);
    await agent.stop();
    expect(await connection.closed).toEqual({ code: 1001, reason: 'agent shutting down' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(peer.connections).toHaveLength(1);
    expect(agent.connected).toBe(false);
  });
});
