/**
 * Regression: preflight-refused. A browser preflight got 405 on every API path and 410 on the compat
 * paths that are actually served, so no dashboard on another origin could call the hub. With
 * DD_SERVER_CORS_ORIGINS the configured origins get 204 preflights on every kind of served path,
 * and allow headers on every answer; any other origin gets no CORS header at all. Real Chromium on
 * both kinds of origin: test/integration/cors-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieHeader, PASSWORD, sessionIdOf, USERS_ENV } from '../../security/auth-fixtures';
import { createMemoryHub, describeRuntimeMatrix, type HubClient, jsonInit } from '../../support/hub-harness';

const DASHBOARD = 'http://dash.example:8080';
const OTHER = 'http://evil.example';
const ENV = { DD_SERVER_CORS_ORIGINS: `${DASHBOARD}, https://second.example`, DD_COMPAT_WUDCARD: 'true' };

/** One path of each kind the hub serves, a method a page would ask to use on it, and methods it serves. */
const SERVED: readonly [kind: string, path: string, method: string, served: string[]][] = [
  ['api read', '/api/v1/containers', 'GET', ['GET', 'HEAD']],
  ['api mutation', '/api/v1/containers/watch', 'POST', ['POST']],
  ['api mutation with a confirmation header', '/api/v1/api-keys/abc123def456', 'DELETE', ['DELETE']],
  ['several methods on one path', '/api/v1/settings', 'PATCH', ['GET', 'HEAD', 'PATCH', 'PUT']],
  ['the UI event stream (SSE)', '/api/v1/events/ui', 'GET', ['GET', 'HEAD']],
  ['the OpenAPI document', '/api/v1/openapi.json', 'GET', ['GET', 'HEAD']],
  ['compat alias, reshaped list', '/api/containers', 'GET', ['GET']],
  ['compat alias, watch', '/api/containers/watch', 'POST', ['POST']],
  ['compat alias, container triggers', '/api/containers/c1/triggers', 'GET', ['GET']],
  ['compat alias, run a trigger', '/api/containers/c1/triggers/docker/local', 'POST', ['POST']],
  ['permanent auth status alias', '/api/auth/status', 'GET', ['GET', 'HEAD']],
  ['root route', '/health', 'GET', ['GET', 'HEAD']],
];

const preflight = (origin: string, method: string, headers = 'authorization, content-type'): RequestInit => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
});

const corsHeadersOf = (response: Response): string[] =>
  [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

function expectAllowed(response: Response, origin = DASHBOARD): void {
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  expect(response.headers.get('vary')).toMatch(/(^|, )Origin(,|$)/);
}

describeRuntimeMatrix(
  'CORS with DD_SERVER_CORS_ORIGINS',
  (client) => {
    it.each(SERVED)(
      'answers a preflight on %s (%s) with 204 and what the page may send',
      async (_kind, path, method, served) => {
        const response = await client().request(path, preflight(DASHBOARD, method));
        expect(response.status).toBe(204);
        expect(await response.text()).toBe('');
        expectAllowed(response);
        // The path's methods, as its 405 Allow would list them (a pattern route may add some).
        expect(response.headers.get('access-control-allow-methods')?.split(', ')).toEqual(
          expect.arrayContaining(served),
        );
        const allowedHeaders = response.headers.get('access-control-allow-headers')?.toLowerCase().split(', ');
        expect(allowedHeaders).toEqual(
          expect.arrayContaining(['authorization', 'content-type', 'x-dd-confirm-action', 'last-event-id']),
        );
        expect(response.headers.get('access-control-max-age')).toBe('600');
      },
    );

    it('answers the second configured origin with itself, never a wildcard or the first', async () => {
      const response = await client().request('/api/v1/containers', preflight('https://second.example', 'GET'));
      expect(response.status).toBe(204);
      expectAllowed(response, 'https://second.example');
    });

    it.each(SERVED)('gives a preflight from another origin on %s no CORS header', async (_kind, path, method) => {
      const response = await client().request(path, preflight(OTHER, method));
      expect(response.status).not.toBe(204);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(corsHeadersOf(response)).toEqual([]);
      // A cache must not hand this answer to the dashboard, nor the dashboard's to this page.
      expect(response.headers.get('vary')).toMatch(/(^|, )Origin(,|$)/);
    });

    it('refuses a preflight on a path the hub does not serve', async () => {
      const response = await client().request('/api/v1/no-such-thing', preflight(DASHBOARD, 'GET'));
      expect(response.status).toBe(404);
      expect(response.headers.get('access-control-allow-methods')).toBeNull();
    });

    it('puts the allow headers on answers to the configured origin: success, errors, compat and the stream', async () => {
      const headers = { origin: DASHBOARD };
      const list = await client().request('/api/v1/containers', { headers });
      expect(list.status).toBe(200);
      expectAllowed(list);
      expect(list.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
      const compat = await client().request('/api/containers', { headers });
      expect(compat.status).toBe(200);
      expect(Array.isArray(await compat.json())).toBe(true);
      expectAllowed(compat);
      expect(compat.headers.get('vary')).toBe('Origin');
      const gone = await client().request('/api/containers/stats', { headers });
      expect(gone.status).toBe(410);
      expectAllowed(gone);
      const missing = await client().request('/api/v1/containers/nope', { headers });
      expect(missing.status).toBe(404);
      expectAllowed(missing);
      const stream = await client().request('/api/v1/events/ui', {
        headers: { ...headers, accept: 'text/event-stream' },
      });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      expectAllowed(stream);
      await stream.body?.cancel();
    });

    it('gives another origin no allow header on an actual request', async () => {
      const response = await client().request('/api/v1/containers', { headers: { origin: OTHER } });
      expect(response.status).toBe(200);
      expect(corsHeadersOf(response)).toEqual([]);
      await response.arrayBuffer();
    });

    it('lets the configured origin change state, and still refuses another one (the cross-site guard)', async () => {
      const crossSite = (origin: string) => ({ origin, 'sec-fetch-site': 'cross-site' });
      const allowed = await client().request('/api/v1/containers/watch', {
        method: 'POST',
        headers: crossSite(DASHBOARD),
      });
      expect(allowed.status).toBe(200);
      expectAllowed(allowed);
      await allowed.arrayBuffer();
      const key = await client().request(
        '/api/v1/api-keys',
        jsonInit('POST', { name: 'from-dashboard', scopes: ['read'] }, crossSite(DASHBOARD)),
      );
      expect(key.status).toBe(201);
      await key.arrayBuffer();
      for (const origin of [OTHER, 'null', `${DASHBOARD}/`, 'http://dash.example:8081']) {
        const refused = await client().request('/api/v1/containers/watch', {
          method: 'POST',
          headers: crossSite(origin),
        });
        expect(refused.status, origin).toBe(403);
        expect(await refused.json()).toMatchObject({ details: { reason: 'cross-origin' } });
      }
    });
  },
  ENV,
);

describe('CORS is off by default', () => {
  let hub: HubClient;
  beforeAll(async () => {
    hub = await createMemoryHub({ DD_COMPAT_WUDCARD: 'true' });
  });
  afterAll(() => hub.close());

  it('answers no preflight and adds no CORS header, whatever the origin', async () => {
    const refused = await hub.request('/api/v1/containers', preflight(DASHBOARD, 'GET'));
    expect(refused.status).toBe(405);
    expect(corsHeadersOf(refused)).toEqual([]);
    const read = await hub.request('/api/v1/containers', { headers: { origin: DASHBOARD } });
    expect(corsHeadersOf(read)).toEqual([]);
    expect(read.headers.get('vary') ?? '').not.toContain('Origin');
  });
});

describe('CORS with authentication configured', () => {
  let hub: HubClient;
  beforeAll(async () => {
    hub = await createMemoryHub({ ...USERS_ENV, DD_SERVER_CORS_ORIGINS: DASHBOARD });
  });
  afterAll(() => hub.close());

  it('answers a preflight without credentials (a browser never sends them on one)', async () => {
    const response = await hub.request('/api/v1/containers', preflight(DASHBOARD, 'GET'));
    expect(response.status).toBe(204);
    expectAllowed(response);
  });

  it('lets the page read the 401, so it can tell the user to sign in', async () => {
    const response = await hub.request('/api/v1/containers', { headers: { origin: DASHBOARD } });
    expect(response.status).toBe(401);
    expectAllowed(response);
  });

  it('lets the configured origin sign in and use the session cookie for mutations; another origin still gets 403', async () => {
    const signIn = (origin: string) =>
      hub.request('/api/v1/auth/login', jsonInit('POST', { username: 'alice', password: PASSWORD }, { origin }));
    const refusedSignIn = await signIn(OTHER);
    expect(refusedSignIn.status).toBe(403);
    const login = await signIn(DASHBOARD);
    expect(login.status).toBe(200);
    expectAllowed(login);
    const session = cookieHeader(sessionIdOf(login) as string);
    const create = (origin: string, name: string) =>
      hub.request('/api/v1/api-keys', jsonInit('POST', { name, scopes: ['read'] }, { ...session, origin }));
    expect((await create(DASHBOARD, 'from-dashboard')).status).toBe(201);
    const refused = await create(OTHER, 'forged');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ details: { reason: 'cross-origin' } });
  });
});
