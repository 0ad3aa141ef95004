/**
 * The server-wide request limit (decisions §5) and the WebSocket upgrade limit (http-interface §8), each with
 * a small configured ceiling, on the real hub in memory and on a socket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { nodeClientAddress } from '../../hub/src/adapter/node/node-connection';
import { loadHubConfig } from '../../hub/src/config/hub-config';
import { hasOwnLimit, MAX_TRACKED_CLIENTS } from '../../hub/src/http/server-rate-limit';
import { ConfigError } from '../../shared/config/config-error';
import type { Environment } from '../../shared/config/env-source';
import { createMemoryHub, createServerHub, expectJsonError, type HubClient, jsonInit } from '../support/hub-harness';
import {
  type AddressedHub,
  cookieHeader,
  MODES,
  PASSWORD,
  sessionIdOf,
  startAddressedHub,
  USERS_ENV,
} from './auth-fixtures';

const LIMIT = 5;
const limited = (extra: Environment = {}): Environment => ({
  ...USERS_ENV,
  DD_SERVER_RATELIMIT_MAX: String(LIMIT),
  ...extra,
});

/** Asserts the server-wide 429: http-interface §2.15 JSON, Retry-After within the 15-minute window. */
async function expectLimited(response: Response, limit = LIMIT): Promise<void> {
  const retryAfter = Number(response.headers.get('retry-after'));
  const body = await expectJsonError(response, 429);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(900);
  expect(body.details).toMatchObject({ limit, windowSeconds: 900, retryAfterSeconds: retryAfter });
}

describe('DD_SERVER_RATELIMIT_MAX and DD_SERVER_RATELIMIT_WEBSOCKET configuration', () => {
  const load = (env: Environment, files: Record<string, string> = {}) =>
    loadHubConfig(env, (path) => {
      const content = files[path];
      if (content === undefined) throw new Error(`ENOENT ${path}`);
      return content;
    });

  it('defaults to 1,000 of each, reads the __FILE form, and counts both as known variables', () => {
    const config = load({});
    expect(config.server.requestLimit).toBe(1_000);
    expect(config.server.webSocketUpgradeLimit).toBe(1_000);
    const fromFiles = load(
      { DD_SERVER_RATELIMIT_MAX__FILE: '/run/secrets/max', DD_SERVER_RATELIMIT_WEBSOCKET: '7' },
      { '/run/secrets/max': '250\n' },
    );
    expect(fromFiles.server).toMatchObject({ requestLimit: 250, webSocketUpgradeLimit: 7 });
    expect(fromFiles.unknownVariables).toEqual([]);
  });

  it.each([
    ['DD_SERVER_RATELIMIT_MAX', '0'],
    ['DD_SERVER_RATELIMIT_MAX', 'lots'],
    ['DD_SERVER_RATELIMIT_MAX', '-5'],
    ['DD_SERVER_RATELIMIT_WEBSOCKET', '1.5'],
    ['DD_SERVER_RATELIMIT_WEBSOCKET', '9999999999'],
  ])('refuses %s=%s with a ConfigError naming the variable', (variable, value) => {
    let error: unknown;
    try {
      load({ [variable]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message.startsWith(`${variable}: `)).toBe(true);
  });

  it('refuses both the variable and its __FILE form at once', () => {
    expect(() => load({ DD_SERVER_RATELIMIT_MAX: '5', DD_SERVER_RATELIMIT_MAX__FILE: '/x' }, { '/x': '5' })).toThrow(
      /DD_SERVER_RATELIMIT_MAX/,
    );
  });
});

for (const mode of MODES) {
  describe(`server-wide request limit [${mode}]`, () => {
    let hub: AddressedHub | undefined;
    afterEach(async () => {
      await hub?.close();
      hub = undefined;
    });

    it('answers the request past the limit from one address 429 JSON with Retry-After; other addresses go on', async () => {
      hub = await startAddressedHub(mode, limited());
      for (let i = 0; i < LIMIT; i++) await expectJsonError(await hub.request('/api/v1/settings'), 401);
      await expectLimited(await hub.request('/api/v1/settings'));
      // Every route without a limit of its own shares the budget, unknown paths included.
      await expectLimited(await hub.request('/api/v1/no-such-route'));
      await expectJsonError(await hub.from('127.0.0.2', '/api/v1/settings'), 401);
    });

    it('never limits /health, so liveness probes cannot get a healthy hub restarted', async () => {
      hub = await startAddressedHub(mode, limited());
      for (let i = 0; i < LIMIT * 4; i++) expect((await hub.request('/health')).status).toBe(200);
      await expectJsonError(await hub.request('/api/v1/settings'), 401);
    });

    it('counts a signed-in user apart from the address, all of their sessions together', async () => {
      hub = await startAddressedHub(mode, limited());
      // Sign-in has a limit of its own (failures), so it costs nothing here.
      const first = sessionIdOf(await hub.login({ username: 'alice', password: PASSWORD })) as string;
      const second = sessionIdOf(await hub.login({ username: 'alice', password: PASSWORD })) as string;
      for (let i = 0; i < LIMIT; i++) {
        const cookie = cookieHeader(i % 2 === 0 ? first : second);
        expect((await hub.request('/api/v1/settings', { headers: cookie })).status).toBe(200);
      }
      await expectLimited(await hub.request('/api/v1/settings', { headers: cookieHeader(second) }));
      await expectLimited(await hub.from('127.0.0.9', '/api/v1/settings', { headers: cookieHeader(first) }));
      // The address itself still has its whole budget for callers without a session.
      await expectJsonError(await hub.request('/api/v1/settings'), 401);
    });

    it('leaves API keys to their own ceiling: not counted here, rateLimitMax counted there', async () => {
      hub = await startAddressedHub(mode, limited());
      const session = cookieHeader(sessionIdOf(await hub.login({ username: 'alice', password: PASSWORD })) as string);
      const create = async (body: Record<string, unknown>) =>
        (await (
          await hub?.request('/api/v1/api-keys', jsonInit('POST', { name: 'k', scopes: ['read'], ...body }, session))
        )?.json()) as {
          apiKey: string;
        };
      const plain = await create({});
      const capped = await create({ rateLimitMax: 2 });
      const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < LIMIT * 3; i++)
        expect((await hub.request('/api/v1/settings', bearer(plain.apiKey))).status).toBe(200);
      for (let i = 0; i < 2; i++)
        expect((await hub.request('/api/v1/settings', bearer(capped.apiKey))).status).toBe(200);
      const own = await hub.request('/api/v1/settings', bearer(capped.apiKey));
      expect((await expectJsonError(own, 429)).error).toMatch(/API key/);
      expect(Number(own.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('leaves routes with a limit of their own to it: failed sign-ins go on to their own 429', async () => {
      hub = await startAddressedHub(mode, limited());
      for (let i = 0; i < 10; i++)
        await expectJsonError(await hub.login({ username: 'alice', password: 'wrong' }), 401);
      const own = await hub.login({ username: 'alice', password: 'wrong' });
      expect((await expectJsonError(own, 429)).error).toBe('Too many failed sign-in attempts');
      // None of those counted against the address's server-wide budget.
      await expectJsonError(await hub.request('/api/v1/settings'), 401);
    });

    it("counts callers refused before a route's own limit: 401s of the UI stream without a session", async () => {
      hub = await startAddressedHub(mode, limited());
      const session = cookieHeader(sessionIdOf(await hub.login({ username: 'alice', password: PASSWORD })) as string);
      // A signed-in HEAD reaches the stream's own (connection) limit, so it is not counted here.
      for (let i = 0; i < LIMIT * 2; i++)
        expect((await hub.request('/api/v1/events/ui', { method: 'HEAD', headers: session })).status).toBe(200);
      for (let i = 0; i < LIMIT; i++) await expectJsonError(await hub.request('/api/v1/events/ui'), 401);
      await expectLimited(await hub.request('/api/v1/events/ui'));
    });
  });
}

describe('which routes have a limit of their own', () => {
  it('is exactly sign-in, env reveal, the UI stream, the WebSocket streams, the webhooks and the scans', async () => {
    const client = await createMemoryHub();
    try {
      const routes = client.hub.parts.routes.routes;
      const own = routes.filter(hasOwnLimit).map((route) => `${route.spec.method} ${route.fullPath}`);
      // The edge agents' socket limits its upgrades itself; it arrives with the edge capability.
      const edge = routes.some((route) => route.fullPath === '/api/v1/edge/ws') ? ['get /api/v1/edge/ws'] : [];
      expect(own.sort()).toEqual(
        [
          'post /api/v1/auth/login',
          'post /api/v1/containers/:id/env/reveal',
          'get /api/v1/events/ui',
          'get /api/v1/log/stream',
          'get /api/v1/containers/:id/logs/stream',
          // http-interface §8: 30 per 15 minutes for the action webhooks, 60 for the registry webhook, per IP.
          'post /api/v1/webhook/watch',
          'post /api/v1/webhook/watch/:containerName',
          'post /api/v1/webhook/update/:containerName',
          'post /api/v1/webhooks/registry',
          // http-interface §8: an on-demand scan 30 per minute, scan-all one per 60 s per address.
          'post /api/v1/containers/:id/scan',
          'post /api/v1/containers/scan-all',
          ...edge,
        ].sort(),
      );
    } finally {
      await client.close();
    }
  });
});

describe('server-wide limit over time and under many addresses [memory]', () => {
  let client: HubClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('opens a new window after 15 minutes', async () => {
    let clock = Date.parse('2026-05-01T08:00:00Z');
    client = await createMemoryHub({ DD_SERVER_RATELIMIT_MAX: '3' }, { now: () => clock });
    for (let i = 0; i < 3; i++) expect((await client.request('/api/v1/settings')).status).toBe(200);
    const refused = await client.request('/api/v1/settings');
    expect(refused.headers.get('retry-after')).toBe('900');
    await expectLimited(refused, 3);
    clock += 10 * 60_000;
    expect((await client.request('/api/v1/settings')).headers.get('retry-after')).toBe('300');
    clock += 5 * 60_000;
    expect((await client.request('/api/v1/settings')).status).toBe(200);
  });

  it('counts a compat route once (the /api/v1 twin it is passed to), and the 410s of /api/* not at all', async () => {
    client = await createMemoryHub({ DD_SERVER_RATELIMIT_MAX: '4', DD_COMPAT_WUDCARD: 'true' });
    for (let i = 0; i < 4; i++) expect((await client.request('/api/containers')).status).toBe(200);
    await expectLimited(await client.request('/api/containers'), 4);
    expect((await client.request('/api/settings')).status).toBe(410);
  });

  // Regression (issue 33, item 16): a compat request passed the limit twice, exempt as itself and
  // counted as its /api/v1 twin, so one answered before reaching the twin was never counted.
  it('counts a compat request once as itself, also one refused before its /api/v1 twin', async () => {
    client = await createMemoryHub({ DD_SERVER_RATELIMIT_MAX: '4', DD_COMPAT_WUDCARD: 'true' });
    const noContainer = () => client?.request('/api/triggers/docker/local', jsonInit('POST', {})) as Promise<Response>;
    await expectJsonError(await noContainer(), 400);
    await expectJsonError(await noContainer(), 400);
    expect((await client.request('/api/containers')).status).toBe(200);
    expect((await client.request('/api/v1/containers')).status).toBe(200);
    await expectLimited(await client.request('/api/v1/containers'), 4);
    await expectLimited(await noContainer(), 4);
  });

  it(`keeps at most ${MAX_TRACKED_CLIENTS} clients: a flood of addresses costs bounded memory and no false 429`, async () => {
    client = await createMemoryHub(
      { DD_SERVER_RATELIMIT_MAX: '1', DD_SERVER_TRUSTPROXY: '1' },
      { clientAddress: nodeClientAddress(1) },
    );
    const from = (address: string) =>
      (client as HubClient).request('/api/v1/app', { headers: { 'x-forwarded-for': address } });
    expect((await from('198.51.100.1')).status).toBe(200);
    await expectLimited(await from('198.51.100.1'), 1);
    for (let i = 0; i < MAX_TRACKED_CLIENTS; i++) {
      const response = await from(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      if (response.status !== 200) throw new Error(`address #${i} got ${response.status}`);
    }
    // The first address was the oldest window, so it was forgotten to make room: it starts afresh.
    expect((await from('198.51.100.1')).status).toBe(200);
  }, 60_000);
});

/** The status and headers a WebSocket upgrade was answered with (101 when it opened). */
function upgrade(
  url: string,
  headers: Record<string, string>,
  localAddress = '127.0.0.1',
): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, handshakeTimeout: 5_000, localAddress });
    socket.on('open', () => {
      socket.close();
      resolve({ status: 101, body: '' });
    });
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, body, ...(typeof retryAfter === 'string' && { retryAfter }) });
      });
    });
    socket.on('error', reject);
  });
}

describe('WebSocket upgrade limit [server]', () => {
  let client: HubClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  const wsUrl = (path: string) => `${(client?.url ?? '').replace(/^http/, 'ws')}${path}`;

  it('refuses at once, 400 JSON, an upgrade to a route that is no WebSocket (an endless SSE stream included)', async () => {
    client = await createServerHub({});
    const origin = { origin: client.url as string };
    for (const path of ['/api/v1/events/ui', '/api/v1/settings']) {
      const started = Date.now();
      const refused = await upgrade(wsUrl(path), origin);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ error: expect.any(String) });
      expect(Date.now() - started).toBeLessThan(3_000);
    }
    // The stream's connection slot was released: the UI stream still accepts this address.
    const stream = await fetch(`${client.url}/api/v1/events/ui`);
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });

  it('refuses the upgrade past the limit with 429 JSON and Retry-After, on every WebSocket route', async () => {
    client = await createServerHub({ ...USERS_ENV, DD_SERVER_RATELIMIT_WEBSOCKET: '3' });
    const signIn = async (username: string, password: string) =>
      sessionIdOf(
        await (client as HubClient).request('/api/v1/auth/login', jsonInit('POST', { username, password })),
      ) as string;
    const alice = await signIn('alice', PASSWORD);
    const headers = { ...cookieHeader(alice), origin: client.url as string };
    for (let i = 0; i < 3; i++) expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), headers)).status).toBe(101);
    const refused = await upgrade(wsUrl('/api/v1/log/stream?tail=0'), headers);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(900);
    // A refused upgrade carries its JSON error body too (http-interface §2.15; the Node adapter puts it back).
    expect(JSON.parse(refused.body)).toMatchObject({ error: expect.any(String), details: { limit: 3 } });
    // Every WebSocket route shares the one budget.
    expect((await upgrade(wsUrl('/api/v1/containers/abc/logs/stream'), headers)).status).toBe(429);
    // Not the server-wide request limit: plain requests of the same user still pass.
    expect((await client.request('/api/v1/settings', { headers: cookieHeader(alice) })).status).toBe(200);
  });

  it('counts a signed-in user apart from others on the same address', async () => {
    client = await createServerHub({
      ...USERS_ENV,
      DD_AUTH_BASIC_CAROL_USER: 'carol',
      DD_AUTH_BASIC_CAROL_HASH: USERS_ENV.DD_AUTH_BASIC_ALICE_HASH as string,
      DD_SERVER_RATELIMIT_WEBSOCKET: '2',
    });
    const signIn = async (username: string) =>
      sessionIdOf(
        await (client as HubClient).request('/api/v1/auth/login', jsonInit('POST', { username, password: PASSWORD })),
      ) as string;
    const alice = { ...cookieHeader(await signIn('alice')), origin: client.url as string };
    const carol = { ...cookieHeader(await signIn('carol')), origin: client.url as string };
    for (let i = 0; i < 2; i++) expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), alice)).status).toBe(101);
    expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), alice)).status).toBe(429);
    expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), carol)).status).toBe(101);
  });

  it('counts upgrades per address in anonymous mode, refused attempts included', async () => {
    client = await createServerHub({ DD_SERVER_RATELIMIT_WEBSOCKET: '3' });
    const own = { origin: client.url as string };
    expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), own)).status).toBe(101);
    // A foreign Origin is refused, and the attempt still counts.
    expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), { origin: 'https://evil.example' })).status).toBe(403);
    expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), own)).status).toBe(101);
    const refused = await upgrade(wsUrl('/api/v1/log/stream?tail=0'), own);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // Another client address has a budget of its own.
    expect((await upgrade(wsUrl('/api/v1/log/stream?tail=0'), own, '127.0.0.2')).status).toBe(101);
  });

  it('counts upgrade attempts without a session in the server-wide limit, as they never reach the upgrade gate', async () => {
    client = await createServerHub({
      ...USERS_ENV,
      DD_SERVER_RATELIMIT_MAX: '3',
      DD_SERVER_RATELIMIT_WEBSOCKET: '100',
    });
    for (let i = 0; i < 3; i++) {
      const refused = await upgrade(wsUrl('/api/v1/log/stream'), {});
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body)).toMatchObject({ error: expect.any(String) });
    }
    const refused = await upgrade(wsUrl('/api/v1/log/stream'), {});
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  });
});
