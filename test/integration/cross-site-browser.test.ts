/**
 * Regression: cross-site-anonymous, from a real Chromium. A page on another origin (another port
 * of the hub's host: same-site; and `localhost`: cross-site) tries every mutation a browser sends
 * without a CORS preflight against a hub in anonymous mode with the compat routes on: HTML forms
 * (urlencoded, multipart, text/plain, empty), no-cors fetches with and without a body, and
 * sendBeacon. Each must reach the hub and be refused, and none may land; the same requests from
 * the hub's own origin still do. The header matrix is in test/security/cross-site-requests.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
import { waitFor } from '../support/edge-peer';
import { createServerHub, type HubClient } from '../support/hub-harness';

const WATCH = '/api/v1/containers/watch';
const COMPAT_WATCH = '/api/containers/watch';
const KEYS = '/api/v1/api-keys';
/** A text/plain form whose body reads as JSON: `{"name":"forged","scopes":["admin"],"x":"="}`. */
const JSON_IN_FORM: [string, string] = ['{"name":"forged","scopes":["admin"],"x":"', '"}'];
const FORGED_KEY = JSON.stringify({ name: 'forged', scopes: ['admin'] });

/** POSTs the hub answered so far, by route template and status (its own request counter). */
async function postsServed(hub: HubClient): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of (await (await hub.request('/metrics')).text()).split('\n')) {
    const match = /^dd_http_requests_total\{(.*)\} (\d+)$/.exec(line);
    if (!match?.[1]?.includes('method="POST"')) continue;
    const route = /route="([^"]*)"/.exec(match[1])?.[1];
    const status = /status="(\d+)"/.exec(match[1])?.[1];
    counts.set(`${route} ${status}`, Number(match[2]));
  }
  return counts;
}

const total = (counts: Map<string, number>): number => [...counts.values()].reduce((sum, count) => sum + count, 0);
const landed = (counts: Map<string, number>): string[] =>
  [...counts].filter(([key]) => / 2\d\d$/.test(key)).map(([key, count]) => `${key} x${count}`);

interface Attack {
  name: string;
  run(page: Page, hubOrigin: string): Promise<unknown>;
}

function formPost(name: string, path: string, enctype: string, fields: [string, string][]): Attack {
  return {
    name,
    run: (page, hubOrigin) =>
      page.evaluate(
        ({ action, enctype, fields }) => {
          const form = document.createElement('form');
          form.method = 'POST';
          form.action = action;
          form.enctype = enctype;
          // Into a fresh frame, so the page stays for the next attempt.
          const frame = document.createElement('iframe');
          frame.name = `sink-${document.querySelectorAll('iframe').length}`;
          document.body.append(frame);
          form.target = frame.name;
          for (const [name, value] of fields) {
            const input = document.createElement('input');
            input.type = 'hidden';
            input.name = name;
            input.value = value;
            form.append(input);
          }
          document.body.append(form);
          form.submit();
        },
        { action: `${hubOrigin}${path}`, enctype, fields },
      ),
  };
}

function noCorsFetch(name: string, path: string, init: { body?: string; contentType?: string }): Attack {
  return {
    name,
    run: (page, hubOrigin) =>
      page.evaluate(
        async ({ url, body, contentType }) => {
          // No-cors drops a content type other than the three a form can send: the body goes as text/plain.
          const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
          await fetch(url, { method: 'POST', mode: 'no-cors', headers, ...(body !== undefined && { body }) });
        },
        { url: `${hubOrigin}${path}`, body: init.body, contentType: init.contentType },
      ),
  };
}

function beacon(name: string, path: string, data: 'none' | 'text' | 'urlencoded' | 'multipart'): Attack {
  return {
    name,
    run: (page, hubOrigin) =>
      page.evaluate(
        ({ url, data, forged }) => {
          const form = new FormData();
          form.set('a', 'b');
          const payloads = {
            none: undefined,
            text: forged,
            urlencoded: new URLSearchParams({ a: 'b' }),
            multipart: form,
          };
          const payload = payloads[data];
          if (!navigator.sendBeacon(url, payload)) throw new Error('the browser did not queue the beacon');
        },
        { url: `${hubOrigin}${path}`, data, forged: FORGED_KEY },
      ),
  };
}

const ATTACKS: Attack[] = [
  formPost('form, urlencoded', WATCH, 'application/x-www-form-urlencoded', [['a', 'b']]),
  formPost('form, multipart', WATCH, 'multipart/form-data', [['a', 'b']]),
  formPost('form, no fields (empty body)', WATCH, 'application/x-www-form-urlencoded', []),
  formPost('form, text/plain JSON', KEYS, 'text/plain', [JSON_IN_FORM]),
  formPost('form, urlencoded, compat route', COMPAT_WATCH, 'application/x-www-form-urlencoded', [['a', 'b']]),
  noCorsFetch('no-cors fetch, no body', WATCH, {}),
  noCorsFetch('no-cors fetch, text body', WATCH, { body: 'x' }),
  noCorsFetch('no-cors fetch claiming JSON', KEYS, { body: FORGED_KEY, contentType: 'application/json' }),
  noCorsFetch('no-cors fetch, no body, compat route', COMPAT_WATCH, {}),
  beacon('sendBeacon, no body', WATCH, 'none'),
  beacon('sendBeacon, text', KEYS, 'text'),
  beacon('sendBeacon, urlencoded', WATCH, 'urlencoded'),
  beacon('sendBeacon, multipart', COMPAT_WATCH, 'multipart'),
];

describe('cross-site mutations from a real Chromium against an anonymous hub', () => {
  let hub: HubClient;
  let browser: Browser;
  let attacker: Server;
  let attackerPort: number;
  let context: BrowserContext;

  beforeAll(async () => {
    hub = await createServerHub({ DD_COMPAT_WUDCARD: 'true' });
    attacker = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>a page on another site</title>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerPort = (attacker.address() as AddressInfo).port;
    browser = await launchChromium();
    context = await browser.newContext();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await hub?.close();
  });

  for (const site of ['same-site (127.0.0.1, another port)', 'cross-site (localhost)']) {
    it(`refuses every preflight-free mutation from a ${site} page, and none lands`, async () => {
      const host = site.startsWith('same-site') ? '127.0.0.1' : 'localhost';
      const page = await context.newPage();
      await gotoSteady(page, `http://${host}:${attackerPort}/`);
      const hubOrigin = hub.url as string;
      const before = await postsServed(hub);
      for (const attack of ATTACKS) {
        const answered = total(await postsServed(hub));
        await attack.run(page, hubOrigin);
        // Each attempt reaches the hub (the browser itself stops none of them), one after the other.
        await waitFor(
          async () => (total(await postsServed(hub)) > answered ? true : undefined),
          10_000,
          `"${attack.name}" to arrive`,
        );
      }
      const counts = await postsServed(hub);
      expect(landed(counts), 'POSTs the hub carried out').toEqual([]);
      expect(
        (counts.get('unmatched 403') ?? 0) - (before.get('unmatched 403') ?? 0),
        'POSTs refused as cross-origin',
      ).toBe(ATTACKS.length);
      const keys = (await (await hub.request(KEYS)).json()) as { data: unknown[] };
      expect(keys.data).toEqual([]);
      await page.close();
    }, 60_000);
  }

  it("still carries out the same requests from the hub's own origin", async () => {
    const page = await context.newPage();
    await gotoSteady(page, `${hub.url}/health`);
    const statuses = await page.evaluate(
      async ({ watch, compat, keys }) => {
        const post = async (path: string, init: RequestInit = {}) =>
          (await fetch(path, { method: 'POST', ...init })).status;
        return [
          await post(watch),
          await post(compat),
          await post(keys, {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'own', scopes: ['read'] }),
          }),
        ];
      },
      { watch: WATCH, compat: COMPAT_WATCH, keys: KEYS },
    );
    expect(statuses).toEqual([200, 200, 201]);
    const served = (await postsServed(hub)).get(`${WATCH} 200`) ?? 0;
    expect(await page.evaluate((path) => navigator.sendBeacon(path), WATCH)).toBe(true);
    await waitFor(
      async () => (((await postsServed(hub)).get(`${WATCH} 200`) ?? 0) > served ? true : undefined),
      10_000,
      'the beacon',
    );
    await page.close();
  }, 60_000);
});
