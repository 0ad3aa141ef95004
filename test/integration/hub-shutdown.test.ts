/**
 * SIGTERM on the hub as `npm start` runs it (docs/operations.md "Shutdown"), with real clients
 * connected: a UI event stream, an edge agent process and a request whose body is still arriving.
 * The request is answered, the stream ends, the agent is told 1001 and finds the restarted hub,
 * the process exits 0 within 10 s, and what was written before and during the drain is there after
 * the restart. Also the one start-up line and its fields.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { type AgentProcess, agentKeygen, closedWith, signedIn, spawnAgent } from '../support/edge-agent-process';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import { openSse } from '../support/sse-client';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const logLines = (hub: HubProcess): LogLine[] =>
  hub.stdout.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A PATCH whose body is sent in two halves: in flight once the hub has taken it (its 100 Continue,
 * which Node sends as it hands the request to the app), until finish() sends the rest.
 */
async function slowPatch(url: string, path: string, body: object) {
  const text = JSON.stringify(body);
  const half = Math.floor(text.length / 2);
  const request = httpRequest(`${url}${path}`, {
    method: 'PATCH',
    agent: false,
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      expect: '100-continue',
    },
  });
  const answered = once(request, 'response').then(async ([response]) => {
    let received = '';
    for await (const chunk of response) received += chunk;
    return { status: response.statusCode as number, connection: response.headers.connection, body: received };
  });
  request.flushHeaders();
  await once(request, 'continue');
  request.write(text.slice(0, half));
  return { answered, finish: () => request.end(text.slice(half)) };
}

/** A request on a connection of its own (no pooled socket), to see whether the listener still accepts. */
function freshConnection(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = httpRequest(`${url}/health`, { agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode as number);
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.end();
  });
}

describe('the hub on SIGTERM', () => {
  let dir: string;
  let hub: HubProcess | undefined;
  let agent: AgentProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-shutdown-'));
    env = { DD_STORE_PATH: join(dir, 'data'), DD_LOCAL_WATCHER: 'false' };
  });

  afterAll(async () => {
    await agent?.kill('SIGKILL');
    await hub?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('logs one start-up line with version, runtime, storage, address and sign-in mode', async () => {
    hub = await startHubProcess(env);
    const lines = logLines(hub).filter((line) => line.level === 30);
    expect(lines.map((line) => line.msg)).toEqual(['hub listening']);
    expect(lines[0]).toMatchObject({
      version: packageJson.version,
      runtime: `node ${process.version}`,
      storage: `fs ${join(dir, 'data')}`,
      address: hub.url,
      port: hub.port,
      signIn: 'anonymous',
    });
  });

  it('answers the request in flight, ends the event stream, tells the agent 1001, flushes, exits 0 within 10 s', async () => {
    if (!hub) throw new Error('the first test starts the hub');
    const first = hub;
    const keyFile = join(dir, 'agent.key');
    const key = await agentKeygen(keyFile, 'mover');
    const registered = await fetch(`${first.url}/api/v1/edge/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: key.publicKey, label: 'mover' }),
    });
    expect(registered.status).toBe(201);
    agent = spawnAgent({ hubUrl: first.url, keyFile, name: 'mover', env: { DD_LOCAL_WATCHER: 'false' } });
    await agent.waitForLog(signedIn, 30_000);

    const stream = await openSse((path, init) => fetch(`${first.url}${path}`, init), '/api/v1/events/ui');
    await stream.nextOfType('dd:connected');
    // Written just before the signal: answered, so it must be on disk after the restart.
    const before = await fetch(`${first.url}/api/v1/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ updateMode: 'auto' }),
    });
    expect(before.status).toBe(200);
    const slow = await slowPatch(first.url, '/api/v1/settings', { internetlessMode: true });
    const agentLogsBefore = agent.logs.length;

    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    await until(
      () => first.stdout.some((line) => line.includes('"shutting down"')),
      5_000,
      'the hub logs shutting down',
    );
    // The listener is closed: a new connection is refused while the request in flight goes on.
    expect(await freshConnection(first.url)).toBe('ECONNREFUSED');
    slow.finish();
    const answer = await slow.answered;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ internetlessMode: true, updateMode: 'auto' });
    // Its connection is not kept for another request.
    expect(answer.connection).toBe('close');

    expect(await stream.ended).toBe('done');
    await agent.waitForLog(closedWith(1001), 10_000, agentLogsBefore);
    expect(await first.exited).toBe(0);
    const tookMs = Date.now() - signalledAt;
    expect(tookMs).toBeLessThan(10_000);
    console.info(`hub-shutdown: SIGTERM to exit ${tookMs} ms (an agent, a stream and a slow request connected)`);
    expect(logLines(first).find((line) => line.msg === 'stopped')).toMatchObject({ signal: 'SIGTERM' });

    // The next hub on the same port: the agent comes back by itself, and both writes are there.
    const signedInBefore = agent.logs.length;
    hub = await startHubProcess({ ...env, DD_SERVER_PORT: String(first.port) });
    const restartedAt = Date.now();
    await agent.waitForLog(signedIn, 30_000, signedInBefore);
    const backMs = Date.now() - restartedAt;
    console.info(`hub-shutdown: the agent signed in ${backMs} ms after the new hub listened`);
    // After a 1001 the agent keeps dialling at its first step (1 s), however long the restart took.
    expect(backMs).toBeLessThan(5_000);
    expect(await (await fetch(`${hub.url}/api/v1/settings`)).json()).toEqual({
      internetlessMode: true,
      updateMode: 'auto',
      approvalRequired: false,
    });
  }, 90_000);

  it('exits 0 on SIGTERM of the agent, which closes with 1001', async () => {
    if (!hub || !agent) throw new Error('the tests above start the hub and the agent');
    const current = hub;
    expect(await agent.kill('SIGTERM')).toBe(0);
    await until(
      () => current.stdout.some((line) => line.includes('agent mover disconnected (1001)')),
      5_000,
      'the hub logs the agent going away',
    );
    expect(await current.kill('SIGTERM')).toBe(0);
  }, 30_000);
});
