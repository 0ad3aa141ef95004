import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createMemoryHub,
  createServerHub,
  describeRuntimeMatrix,
  expectJsonError,
  type HubClient,
  jsonInit,
} from '../../support/hub-harness';
import { dataOf, openSse } from '../../support/sse-client';
import { BASIC_AUTH_ENV as ENV, PASSWORD, RECOVERY, TOTP_SECRET } from '../support/basic-auth-users';

function base32Decode(text: string): Buffer {
  let bits = '';
  for (const char of text) bits += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(char).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)?.map((byte) => Number.parseInt(byte, 2)) ?? []);
}
/** RFC 6238 computed independently of the hub's implementation. */
function totp(at: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = createHmac('sha1', base32Decode(TOTP_SECRET)).update(counter).digest();
  const offset = (mac[19] as number) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** Every secret a test sent: none may come back in a body or a log line. */
const secrets = new Set<string>([PASSWORD]);
const bodies: string[] = [];

async function login(
  client: HubClient,
  body: Record<string, unknown>,
): Promise<{ response: Response; cookie: string | undefined }> {
  for (const key of ['otp', 'recoveryCode'] as const)
    if (typeof body[key] === 'string') secrets.add(body[key] as string);
  const response = await client.request('/api/v1/auth/login', jsonInit('POST', { password: PASSWORD, ...body }));
  const cookie = /dd\.sid=([a-f0-9]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (cookie) secrets.add(cookie);
  return { response, cookie };
}
const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({
  cookie: `dd.sid=${cookie}`,
  ...headers,
});
async function text(response: Response): Promise<string> {
  const body = await response.text();
  bodies.push(body);
  return body;
}

describeRuntimeMatrix(
  'authentication with sessions',
  (client) => {
    it('keeps public routes open and closes the rest with 401', async () => {
      for (const path of ['/health', '/api/v1/auth/status', '/api/v1/openapi.json'])
        expect((await client().request(path)).status).toBe(200);
      const status = await (await client().request('/api/v1/auth/status')).json();
      expect(status.providers).toEqual([
        { type: 'basic', name: 'alice' },
        { type: 'basic', name: 'bob' },
      ]);
      await expectJsonError(await client().request('/api/v1/containers'), 401);
      await expectJsonError(await client().request('/api/v1/auth/user'), 401);
    });

    it('signs in with a password, reports the user and the assurance, and signs out', async () => {
      const { response, cookie } = await login(client(), { username: 'alice' });
      expect(await response.json()).toEqual({ username: 'alice', assurance: 'password' });
      expect(response.headers.get('set-cookie')).toMatch(/HttpOnly/i);
      expect(response.headers.get('set-cookie')).toMatch(/SameSite=Lax/i);
      expect(response.headers.get('set-cookie')).toMatch(/Path=\//);
      const headers = withCookie(cookie as string);
      expect(await (await client().request('/api/v1/auth/user', { headers })).json()).toEqual({
        username: 'alice',
        assurance: 'password',
      });
      expect((await client().request('/api/v1/containers', { headers })).status).toBe(200);
      expect((await client().request('/api/v1/auth/logout', { method: 'POST', headers })).status).toBe(204);
      await expectJsonError(await client().request('/api/v1/containers', { headers }), 401);
    });

    it('answers every failure with one uniform 401', async () => {
      const failures = [
        { username: 'nobody' },
        { username: 'alice', password: 'wrong' },
        { username: 'bob' },
        { username: 'bob', otp: '000000' },
        { username: 'bob', recoveryCode: 'not-a-code' },
      ];
      const answers = new Set<string>();
      for (const body of failures) {
        const { response, cookie } = await login(client(), body);
        expect(response.status).toBe(401);
        expect(cookie).toBeUndefined();
        answers.add(await text(response));
      }
      expect(answers.size).toBe(1);
    });

    it('needs a TOTP code for a user with a secret, accepts it once, and reports otp', async () => {
      const otp = totp(Date.now());
      const first = await login(client(), { username: 'bob', otp });
      expect(await first.response.json()).toEqual({ username: 'bob', assurance: 'otp' });
      expect((await login(client(), { username: 'bob', otp })).response.status).toBe(401);
    });

    it('accepts a recovery code once; that session cannot create API keys', async () => {
      const { response, cookie } = await login(client(), { username: 'bob', recoveryCode: RECOVERY[0] });
      expect(await response.json()).toEqual({ username: 'bob', assurance: 'recovery-code' });
      expect((await login(client(), { username: 'bob', recoveryCode: RECOVERY[0] })).response.status).toBe(401);
      const refused = await expectJsonError(
        await client().request(
          '/api/v1/api-keys',
          jsonInit('POST', { name: 'x', scopes: ['read'] }, withCookie(cookie as string)),
        ),
        403,
      );
      expect(refused.details?.reason).toBe('recovery-assurance');
    });

    it('keeps API keys working, exempt from the same-origin check; refuses a cross-origin cookie mutation', async () => {
      const { cookie } = await login(client(), { username: 'alice' });
      const evil = { origin: 'https://evil.example' };
      const crossSite = await client().request(
        '/api/v1/api-keys',
        jsonInit('POST', { name: 'x', scopes: ['read'] }, withCookie(cookie as string, evil)),
      );
      expect((await expectJsonError(crossSite, 403)).details?.reason).toBe('cross-origin');
      const fetchSite = await client().request(
        '/api/v1/api-keys',
        jsonInit(
          'POST',
          { name: 'x', scopes: ['read'] },
          withCookie(cookie as string, { 'sec-fetch-site': 'cross-site' }),
        ),
      );
      expect(fetchSite.status).toBe(403);
      const created = await client().request(
        '/api/v1/api-keys',
        jsonInit('POST', { name: 'ci', scopes: ['admin'] }, withCookie(cookie as string)),
      );
      expect(created.status).toBe(201);
      const { apiKey } = (await created.json()) as { apiKey: string };
      secrets.add(apiKey);
      const bearer = { authorization: `Bearer ${apiKey}`, ...evil };
      expect((await client().request('/api/v1/containers', { headers: bearer })).status).toBe(200);
      expect(
        (await client().request('/api/v1/settings', jsonInit('PATCH', { updateMode: 'manual' }, bearer))).status,
      ).not.toBe(403);
    });

    it('keeps preferences per user', async () => {
      const { cookie } = await login(client(), { username: 'alice' });
      const headers = withCookie(cookie as string);
      expect(await (await client().request('/api/v1/preferences', { headers })).json()).toEqual({});
      const patched = await client().request(
        '/api/v1/preferences',
        jsonInit('PATCH', { theme: 'dark', columns: ['name'] }, headers),
      );
      expect(await patched.json()).toEqual({ theme: 'dark', columns: ['name'] });
      expect(await (await client().request('/api/v1/preferences', { headers })).json()).toEqual({
        theme: 'dark',
        columns: ['name'],
      });
      const big = await client().request(
        '/api/v1/preferences',
        jsonInit('PATCH', { blob: 'x'.repeat(20_000) }, headers),
      );
      expect(big.status).toBe(413);
      await expectJsonError(await client().request('/api/v1/preferences'), 401);
    });

    it('tells the open UI streams when preferences change (dd:preferences-updated, an empty payload)', async () => {
      const { cookie } = await login(client(), { username: 'alice' });
      const headers = withCookie(cookie as string);
      const stream = await openSse(client().request, '/api/v1/events/ui', headers);
      try {
        await stream.nextOfType('dd:connected');
        expect(
          (await client().request('/api/v1/preferences', jsonInit('PATCH', { theme: 'light' }, headers))).status,
        ).toBe(200);
        const event = await stream.nextOfType('dd:preferences-updated');
        expect(dataOf(event)).toEqual({});
        expect(event.id).toMatch(/^[^:]+:\d+$/);
      } finally {
        await stream.close();
      }
    });

    it('leaks no password, code, key or session id into bodies or logs', () => {
      const logged = JSON.stringify(client().logged);
      for (const secret of secrets) {
        expect(logged).not.toContain(secret);
        for (const body of bodies) expect(body).not.toContain(secret);
      }
    });
  },
  ENV,
);

describe('authentication: clocks, limits, restarts and streams', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('ends sessions after 12 h idle and after 7 days in all', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const client = await createMemoryHub(ENV, { now: () => clock });
    try {
      const idle = (await login(client, { username: 'alice' })).cookie as string;
      const user = () => client.request('/api/v1/auth/user', { headers: withCookie(idle) });
      clock += 11 * 3_600_000;
      expect((await user()).status).toBe(200);
      clock += 11 * 3_600_000;
      expect((await user()).status).toBe(200);
      clock += 12 * 3_600_000 + 1;
      expect((await user()).status).toBe(401);

      const busy = (await login(client, { username: 'alice' })).cookie as string;
      for (let hour = 6; hour < 7 * 24; hour += 6) {
        clock += 6 * 3_600_000;
        expect((await client.request('/api/v1/auth/user', { headers: withCookie(busy) })).status).toBe(200);
      }
      // 169 h after sign-in, 7 h after the last request: only the absolute limit ends it.
      clock += 7 * 3_600_000;
      expect((await client.request('/api/v1/auth/user', { headers: withCookie(busy) })).status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('limits failed logins with 429 and Retry-After', async () => {
    const client = await createMemoryHub(ENV);
    try {
      for (let i = 0; i < 10; i++)
        expect((await login(client, { username: 'alice', password: 'wrong' })).response.status).toBe(401);
      const limited = await login(client, { username: 'alice' });
      expect(limited.response.status).toBe(429);
      expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('keeps a used recovery code used and sessions alive across a restart with file storage', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dd-auth-'));
    dirs.push(dir);
    const env = { ...ENV, DD_STORE_DRIVER: 'fs', DD_STORE_PATH: dir };
    const first = await createServerHub(env);
    const { cookie } = await login(first, { username: 'bob', recoveryCode: RECOVERY[1] });
    expect(cookie).toBeDefined();
    await first.close();
    const second = await createServerHub(env);
    try {
      expect((await login(second, { username: 'bob', recoveryCode: RECOVERY[1] })).response.status).toBe(401);
      expect((await second.request('/api/v1/auth/user', { headers: withCookie(cookie as string) })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('refuses a WebSocket upgrade without a session cookie with 401', async () => {
    const client = await createServerHub(ENV);
    try {
      const url = `${(client.url as string).replace(/^http/, 'ws')}/api/v1/containers/abc/logs/stream`;
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(url);
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('open', () => reject(new Error('upgraded without a session')));
        socket.on('error', reject);
      });
      expect(status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('upgrades a WebSocket with a session cookie, and streams the application log', async () => {
    const client = await createServerHub(ENV);
    try {
      const { cookie } = await login(client, { username: 'alice' });
      client.hub.parts.logger.child('ws-test').warn('seen through a signed-in stream');
      const url = `${(client.url as string).replace(/^http/, 'ws')}/api/v1/log/stream?component=ws-test`;
      const frame = await new Promise<{ msg: string }>((resolve, reject) => {
        const socket = new WebSocket(url, { headers: withCookie(cookie as string, { origin: client.url as string }) });
        socket.on('message', (data) => {
          resolve(JSON.parse(String(data)));
          socket.close();
        });
        socket.on('unexpected-response', (_request, response) =>
          reject(new Error(`refused with ${response.statusCode}`)),
        );
        socket.on('error', reject);
      });
      expect(frame.msg).toBe('seen through a signed-in stream');
    } finally {
      await client.close();
    }
  });

  it('gives anonymous mode no preferences and an anonymous user', async () => {
    const client = await createMemoryHub();
    try {
      await expectJsonError(await client.request('/api/v1/preferences'), 403);
      expect(await (await client.request('/api/v1/auth/user')).json()).toEqual({
        username: 'anonymous',
        anonymous: true,
      });
    } finally {
      await client.close();
    }
  });
});

describeRuntimeMatrix(
  'metrics token with authentication configured (http-interface §5.10)',
  (client) => {
    it('opens /metrics to the token alone, and to nothing else without a session or key', async () => {
      expect((await client().request('/metrics', { headers: { authorization: 'Bearer scrape-token' } })).status).toBe(
        200,
      );
      expect((await client().request('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await client().request('/metrics')).status).toBe(401);
      // The token opens /metrics only.
      expect(
        (await client().request('/api/v1/settings', { headers: { authorization: 'Bearer scrape-token' } })).status,
      ).toBe(401);
    });
  },
  { ...ENV, DD_SERVER_METRICS_TOKEN: 'scrape-token' },
);
