/**
 * Regression: cross-site-anonymous. Without authentication configured (and on the legacy compat
 * routes) the hub carried out any mutation a browser sent on behalf of another origin's page: a form
 * or a no-cors fetch on any site, opened on the hub's machine, could watch, update or delete
 * through it. Only session cookies were checked. Here the header matrix, in memory; the same
 * attacks from a real Chromium are in test/integration/cross-site-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryHub, expectJsonError, type HubClient, jsonInit } from '../support/hub-harness';
import { USERS_ENV } from './auth-fixtures';

const HUB = 'http://127.0.0.1:3000';
const EVIL = 'http://evil.example';
const WATCH = '/api/v1/containers/watch';
const COMPAT_WATCH = '/api/containers/watch';

/** What a browser sends from another origin's page, or what it would if it were that page. */
const CROSS_SITE: readonly [string, Record<string, string>][] = [
  ['another host', { origin: EVIL }],
  ['another port of the same host (same-site)', { origin: 'http://127.0.0.1:8080' }],
  ['another scheme', { origin: 'https://127.0.0.1:3000' }],
  ['an opaque origin (sandboxed frame, data: URL)', { origin: 'null' }],
  ['a malformed Origin', { origin: 'http://' }],
  ['Sec-Fetch-Site cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
  ['Sec-Fetch-Site same-site without Origin', { 'sec-fetch-site': 'same-site' }],
  ['its own Origin with Sec-Fetch-Site cross-site', { origin: HUB, 'sec-fetch-site': 'cross-site' }],
  ['Sec-Fetch-Site same-origin with another Origin', { origin: EVIL, 'sec-fetch-site': 'same-origin' }],
  ['X-Forwarded-Host naming the other origin, no proxy trusted', { origin: EVIL, 'x-forwarded-host': 'evil.example' }],
];

/** What curl, CI scripts and the hub's own pages send. */
const OWN_OR_NO_BROWSER: readonly [string, Record<string, string>][] = [
  ['neither Origin nor Sec-Fetch-Site (curl, CI)', {}],
  ['its own Origin', { origin: HUB }],
  ['its own Origin, Sec-Fetch-Site same-origin', { origin: HUB, 'sec-fetch-site': 'same-origin' }],
  ['Sec-Fetch-Site same-origin without Origin', { 'sec-fetch-site': 'same-origin' }],
  ['Sec-Fetch-Site none (typed by the user)', { 'sec-fetch-site': 'none' }],
];

/** Successful POST /api/v1/containers/watch so far, as the hub's own request counter has them (compat ones included). */
async function watchesServed(client: HubClient): Promise<number> {
  const text = await (await client.request('/metrics')).text();
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith('dd_http_requests_total{') &&
        candidate.includes(`route="${WATCH}"`) &&
        candidate.includes('status="200"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function expectCrossOriginRefusal(response: Response, context: string): Promise<void> {
  const body = await expectJsonError(response, 403).catch((error: Error) => {
    throw new Error(`${context}: ${error.message}`);
  });
  expect(body.details, context).toEqual({ reason: 'cross-origin' });
}

describe('cross-site mutations in anonymous mode, compat routes on', () => {
  let client: HubClient;
  const send = (path: string, init: RequestInit = {}) => client.request(`${HUB}${path}`, init);
  const keyNames = async () =>
    ((await (await send('/api/v1/api-keys?limit=200')).json()) as { data: { name: string; status: string }[] }).data;

  beforeAll(async () => {
    client = await createMemoryHub({ DD_COMPAT_WUDCARD: 'true' });
  });
  afterAll(() => client.close());

  it('refuses every mutation sent from another origin with 403 JSON, and none of them lands', async () => {
    const existing = await (
      await send('/api/v1/api-keys', jsonInit('POST', { name: 'existing', scopes: ['read'] }))
    ).json();
    const settings = await (await send('/api/v1/settings')).json();
    const watches = await watchesServed(client);
    for (const [label, headers] of CROSS_SITE) {
      const attempts: [string, string, RequestInit][] = [
        ['POST', WATCH, { method: 'POST', headers }],
        ['POST (compat)', COMPAT_WATCH, { method: 'POST', headers }],
        ['POST (compat trigger)', '/api/containers/c0ffee/triggers/docker/deploy', { method: 'POST', headers }],
        ['POST', '/api/v1/api-keys', jsonInit('POST', { name: 'forged', scopes: ['admin'] }, headers)],
        ['PATCH', '/api/v1/settings', jsonInit('PATCH', { updateMode: 'auto' }, headers)],
        ['PUT', '/api/v1/settings', jsonInit('PUT', { updateMode: 'auto' }, headers)],
        [
          'DELETE',
          `/api/v1/api-keys/${existing.keyId}`,
          { method: 'DELETE', headers: { ...headers, 'X-DD-Confirm-Action': 'api-key-revoke' } },
        ],
      ];
      for (const [method, path, init] of attempts)
        await expectCrossOriginRefusal(await send(path, init), `${method} ${path} from ${label}`);
    }
    expect(await watchesServed(client)).toBe(watches);
    expect((await keyNames()).map((key) => [key.name, key.status])).toEqual([['existing', 'active']]);
    expect(await (await send('/api/v1/settings')).json()).toEqual(settings);
  });

  it('carries out the same mutations for curl, CI and its own origin', async () => {
    for (const [label, headers] of OWN_OR_NO_BROWSER) {
      const watches = await watchesServed(client);
      expect((await send(WATCH, { method: 'POST', headers })).status, label).toBe(200);
      expect((await send(COMPAT_WATCH, { method: 'POST', headers })).status, `compat, ${label}`).toBe(200);
      expect(await watchesServed(client), label).toBe(watches + 2);
      const created = await send('/api/v1/api-keys', jsonInit('POST', { name: 'own', scopes: ['read'] }, headers));
      expect(created.status, label).toBe(201);
      expect((await send('/api/v1/settings', jsonInit('PATCH', { updateMode: 'manual' }, headers))).status, label).toBe(
        200,
      );
    }
  });

  it('leaves GET, HEAD and OPTIONS alone, whatever their origin', async () => {
    const headers = { origin: EVIL, 'sec-fetch-site': 'cross-site' };
    expect((await send('/api/v1/settings', { headers })).status).toBe(200);
    expect((await send('/api/v1/settings', { method: 'HEAD', headers })).status).toBe(200);
    expect((await send('/api/containers', { headers })).status).toBe(200);
    expect((await send('/api/v1/settings', { method: 'OPTIONS', headers })).status).not.toBe(403);
  });

  it('exempts API keys (http-interface §5.2): a page cannot attach one without a preflight the hub never grants', async () => {
    const { apiKey } = await (
      await send('/api/v1/api-keys', jsonInit('POST', { name: 'ci', scopes: ['containers:watch'] }))
    ).json();
    const headers = { authorization: `Bearer ${apiKey}`, origin: EVIL, 'sec-fetch-site': 'cross-site' };
    expect((await send(WATCH, { method: 'POST', headers })).status).toBe(200);
    expect((await send(COMPAT_WATCH, { method: 'POST', headers })).status).toBe(200);
  });

  it('answers a body that is not JSON with 415, even where the route ignores its body; bodiless and empty posts pass', async () => {
    const watches = await watchesServed(client);
    const form = new FormData();
    form.set('a', 'b');
    const refused: [string, string, RequestInit][] = [
      ['text/plain', WATCH, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }],
      ['urlencoded', WATCH, { method: 'POST', body: new URLSearchParams({ a: 'b' }) }],
      ['multipart', WATCH, { method: 'POST', body: form }],
      ['no content type', WATCH, { method: 'POST', headers: { 'content-type': '' }, body: '{}' }],
      ['text/plain (compat)', COMPAT_WATCH, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }],
      [
        'urlencoded (compat trigger)',
        '/api/containers/c0ffee/triggers/docker/deploy',
        { method: 'POST', body: new URLSearchParams({ a: 'b' }) },
      ],
      // The classic JSON-in-a-text/plain-form forgery.
      [
        'text/plain JSON',
        '/api/v1/api-keys',
        { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"forged","scopes":["admin"]}' },
      ],
    ];
    for (const [label, path, init] of refused)
      await expectJsonError(await send(path, init), 415).catch((error: Error) => {
        throw new Error(`${label}: ${error.message}`);
      });
    expect(await watchesServed(client)).toBe(watches);
    expect((await keyNames()).some((key) => key.name === 'forged')).toBe(false);

    const served: [string, RequestInit][] = [
      ['bodiless', { method: 'POST' }],
      [
        'empty with a form type (curl -d "")',
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' },
      ],
      ['JSON', jsonInit('POST', {})],
      [
        'a +json type',
        { method: 'POST', headers: { 'content-type': 'application/vnd.dockwatch+json; charset=utf-8' }, body: '{}' },
      ],
    ];
    for (const [label, init] of served) expect((await send(WATCH, init)).status, label).toBe(200);
    expect(await watchesServed(client)).toBe(watches + served.length);
  });
});

describe('cross-site mutations behind a trusted proxy (DD_SERVER_TRUSTPROXY=1)', () => {
  let client: HubClient;
  beforeAll(async () => {
    client = await createMemoryHub({ DD_SERVER_TRUSTPROXY: '1' });
  });
  afterAll(() => client.close());

  it("takes the server's origin from X-Forwarded-Proto and X-Forwarded-Host", async () => {
    const send = (headers: Record<string, string>) =>
      client.request(`http://10.0.0.5:3000${WATCH}`, { method: 'POST', headers });
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'hub.example.com' };
    expect((await send({ ...forwarded, origin: 'https://hub.example.com' })).status).toBe(200);
    await expectCrossOriginRefusal(await send({ ...forwarded, origin: EVIL }), 'another origin behind the proxy');
    await expectCrossOriginRefusal(
      await send({ origin: 'https://hub.example.com' }),
      'the public origin without forwarded headers',
    );
  });
});

describe('cross-site mutations with sign-in configured', () => {
  let client: HubClient;
  beforeAll(async () => {
    client = await createMemoryHub(USERS_ENV);
  });
  afterAll(() => client.close());

  it('refuses a forged sign-in and an unauthenticated mutation from another origin alike', async () => {
    const login = (headers: Record<string, string>) =>
      client.request(`${HUB}/api/v1/auth/login`, jsonInit('POST', { username: 'alice', password: 'wrong' }, headers));
    await expectCrossOriginRefusal(await login({ origin: EVIL }), 'sign-in from another origin');
    await expectJsonError(await login({ origin: HUB }), 401);
    await expectCrossOriginRefusal(
      await client.request(`${HUB}${WATCH}`, { method: 'POST', headers: { origin: EVIL } }),
      'watch',
    );
  });
});
