/**
 * DD_SERVER_CORS_ORIGINS from a real Chromium (issue 17 item 4). A dashboard page on the configured
 * origin reads and changes state through the hub with an API key, with the session cookie, and
 * follows the event stream; pages on two other origins (another port of the same host, so the
 * session cookie still rides along, and `localhost`, cross-site) can neither read an answer nor
 * land a mutation, whether the browser preflights it or not. The header-level matrix is in
 * test/http/http/cors.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieHeader, PASSWORD, sessionIdOf, USERS_ENV } from '../security/auth-fixtures';
import { gotoSteady, launchChromium } from '../support/chromium';
import { createServerHub, type HubClient, jsonInit } from '../support/hub-harness';

const WATCH = '/api/v1/containers/watch';
const KEYS = '/api/v1/api-keys';

/** A page server: the same empty page on whichever origin it listens. */
async function startPageServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>a dashboard</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** What the page saw: the status and body it could read, or the error the browser gave instead. */
type Outcome = { status: number; body: unknown } | { blocked: string };

function call(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: RequestCredentials },
): Promise<Outcome> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : null };
      } catch (error) {
        return { blocked: String(error) };
      }
    },
    { url, init },
  );
}

describe('CORS from a real Chromium', () => {
  let hub: HubClient;
  let dashboard: { server: Server; port: number };
  let other: { server: Server; port: number };
  let browser: Browser;
  let context: BrowserContext;
  let sessionId: string;
  let key: string;
  const admin = () => ({ authorization: `Bearer ${key}` });

  /** Successful POST /containers/watch so far, from the hub's own request counter. */
  async function watchesServed(): Promise<number> {
    const text = await (await hub.request('/metrics', { headers: admin() })).text();
    const line = text
      .split('\n')
      .find(
        (candidate) =>
          candidate.startsWith('dd_http_requests_total{') &&
          candidate.includes(`route="${WATCH}"`) &&
          candidate.includes('method="POST"') &&
          candidate.includes('status="200"'),
      );
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }
  const keyNames = async () =>
    (
      (await (await hub.request(`${KEYS}?limit=200`, { headers: cookieHeader(sessionId) })).json()) as {
        data: { name: string }[];
      }
    ).data.map((k) => k.name);

  beforeAll(async () => {
    dashboard = await startPageServer();
    other = await startPageServer();
    hub = await createServerHub({ ...USERS_ENV, DD_SERVER_CORS_ORIGINS: `http://127.0.0.1:${dashboard.port}` });
    const login = await hub.request('/api/v1/auth/login', jsonInit('POST', { username: 'alice', password: PASSWORD }));
    expect(login.status).toBe(200);
    sessionId = sessionIdOf(login) as string;
    const created = await hub.request(
      KEYS,
      jsonInit('POST', { name: 'dashboard', scopes: ['admin'] }, cookieHeader(sessionId)),
    );
    expect(created.status).toBe(201);
    key = ((await created.json()) as { apiKey: string }).apiKey;
    browser = await launchChromium();
    context = await browser.newContext();
    // Cookies belong to a host, not a port: every page on 127.0.0.1 sends this one where SameSite allows.
    await context.addCookies([
      { name: 'dd.sid', value: sessionId, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax' },
    ]);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await hub?.close();
    await Promise.all([dashboard, other].map(({ server }) => new Promise((resolve) => server?.close(resolve))));
  });

  it('lets a page on the configured origin read and change state with an API key', async () => {
    const page = await context.newPage();
    await gotoSteady(page, `http://127.0.0.1:${dashboard.port}/`);
    const before = await watchesServed();
    const bearer = { authorization: `Bearer ${key}` };
    const list = await call(page, `${hub.url}/api/v1/containers`, { headers: bearer, credentials: 'omit' });
    expect(list).toMatchObject({ status: 200, body: { data: [] } });
    const watch = await call(page, `${hub.url}${WATCH}`, { method: 'POST', headers: bearer, credentials: 'omit' });
    expect(watch).toMatchObject({ status: 200 });
    expect(await watchesServed()).toBe(before + 1);
    await page.close();
  }, 30_000);

  it('lets a page on the configured origin read and change state with the session cookie', async () => {
    const page = await context.newPage();
    await gotoSteady(page, `http://127.0.0.1:${dashboard.port}/`);
    const user = await call(page, `${hub.url}/api/v1/auth/user`, { credentials: 'include' });
    expect(user).toMatchObject({ status: 200, body: { username: 'alice' } });
    const createdKey = await call(page, `${hub.url}${KEYS}`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'made-by-dashboard', scopes: ['read'] }),
    });
    expect(createdKey).toMatchObject({ status: 201 });
    expect(await keyNames()).toContain('made-by-dashboard');
    // A cross-origin EventSource with credentials: the stream's own CORS request.
    const firstEvent = await page.evaluate(
      (url) =>
        new Promise<string>((resolve, reject) => {
          const source = new EventSource(url, { withCredentials: true });
          source.addEventListener('dd:connected', () => {
            source.close();
            resolve('dd:connected');
          });
          source.onerror = () => {
            source.close();
            reject(new Error('the event stream failed'));
          };
        }),
      `${hub.url}/api/v1/events/ui`,
    );
    expect(firstEvent).toBe('dd:connected');
    await page.close();
  }, 30_000);

  for (const [label, host] of [
    ['another port of the same host (same-site: the cookie is sent)', '127.0.0.1'],
    ['localhost (cross-site)', 'localhost'],
  ] as const) {
    it(`keeps a page on ${label} from reading or mutating`, async () => {
      const page = await context.newPage();
      await gotoSteady(page, `http://${host}:${other.port}/`);
      const before = await watchesServed();
      const keysBefore = await keyNames();
      const attempts = {
        'read with the key': await call(page, `${hub.url}/api/v1/containers`, {
          headers: admin(),
          credentials: 'omit',
        }),
        'read with the cookie': await call(page, `${hub.url}/api/v1/auth/user`, { credentials: 'include' }),
        'watch with the key': await call(page, `${hub.url}${WATCH}`, {
          method: 'POST',
          headers: admin(),
          credentials: 'omit',
        }),
        'watch with the cookie, no preflight': await call(page, `${hub.url}${WATCH}`, {
          method: 'POST',
          credentials: 'include',
        }),
        'create a key with the cookie': await call(page, `${hub.url}${KEYS}`, {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'forged', scopes: ['admin'] }),
        }),
      };
      for (const [attempt, outcome] of Object.entries(attempts)) {
        expect(outcome, attempt).toHaveProperty('blocked');
      }
      expect(await watchesServed()).toBe(before);
      expect(await keyNames()).toEqual(keysBefore);
      await page.close();
    }, 30_000);
  }
});
