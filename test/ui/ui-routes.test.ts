/**
 * The web UI's routes in memory (app.request): the page and its hashed assets with their cache
 * headers, the CSP, gzip negotiation, the SPA fallback for HTML GETs only, and /api, /health and
 * /metrics answering exactly as before. Uses the real build (scripts/build-ui.mjs, not written).
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UiBundle } from '../../hub/src/ui/ui-bundle';
import { acceptsGzip } from '../../hub/src/ui/ui-routes';
import { buildUi } from '../../scripts/build-ui.mjs';
import { createMemoryHub, type HubClient } from '../support/hub-harness';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
let bundle: UiBundle;
let hub: HubClient;

beforeAll(async () => {
  bundle = (await buildUi({ write: false })).bundle;
  hub = await createMemoryHub({}, { ui: bundle });
});
afterAll(() => hub.close());

const assetPath = (ext: string) => {
  const found = bundle.assets.find((a) => a.path.startsWith('/assets/') && a.path.endsWith(ext));
  if (!found) throw new Error(`no ${ext} asset`);
  return found.path;
};

describe('the web UI routes', () => {
  it('serves the page at / with no-cache and a strict CSP, naming only hashed same-origin assets', async () => {
    const response = await hub.request('/', { headers: HTML });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const csp = response.headers.get('content-security-policy') ?? '';
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await response.text();
    expect(html).toMatch(/<script type="module" src="\/assets\/app-[A-Z0-9]+\.js"><\/script>/);
    expect(html).not.toMatch(/<script>|<style|style=|https?:\/\//);
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
  });

  it('serves hashed assets as immutable, gzip only when asked for, and 304 on a matching ETag', async () => {
    const js = assetPath('.js');
    expect(js).toMatch(/^\/assets\/app-[A-Z0-9]+\.js$/);
    const plain = await hub.request(js);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Accept-Encoding');
    const identity = Buffer.from(await plain.arrayBuffer());

    const zipped = await hub.request(js, { headers: { 'accept-encoding': 'br, gzip;q=0.8' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    const compressed = Buffer.from(await zipped.arrayBuffer());
    expect(compressed.length).toBeLessThan(identity.length);
    expect(gunzipSync(compressed).equals(identity)).toBe(true);
    expect(
      (await hub.request(js, { headers: { 'accept-encoding': 'gzip;q=0' } })).headers.get('content-encoding'),
    ).toBeNull();

    const etag = plain.headers.get('etag') ?? '';
    const again = await hub.request(js, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await hub.request(assetPath('.css'))).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  // Regression (issue 33, item 15): `curl http://hub:3000/` got {"error":"No route for GET /"}.
  it('answers GET and HEAD / with the page whatever the Accept header; other methods keep the JSON answer', async () => {
    const page = await (await hub.request('/', { headers: HTML })).text();
    for (const headers of [{}, { accept: '*/*' }, { accept: 'application/json' }]) {
      const label = JSON.stringify(headers);
      const response = await hub.request('/', { headers });
      expect(response.status, label).toBe(200);
      expect(response.headers.get('content-type'), label).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy'), label).toContain("script-src 'self'");
      expect(await response.text(), label).toBe(page);

      const head = await hub.request('/', { method: 'HEAD', headers });
      expect(head.status, label).toBe(200);
      expect(head.headers.get('content-type'), label).toBe('text/html; charset=utf-8');
      expect(head.headers.get('content-length'), label).toBe(String(new TextEncoder().encode(page).byteLength));
      expect(head.headers.get('etag'), label).toBe(response.headers.get('etag'));
      expect(await head.text(), label).toBe('');
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await hub.request('/', { method, headers: { accept: '*/*' } });
      expect(response.status, method).toBe(404);
      expect(response.headers.get('content-type'), method).toMatch(/^application\/json/);
    }
  });

  it('answers client-side routes with the page, but only GETs that ask for HTML', async () => {
    for (const path of ['/containers', '/containers/abc123', '/some/deep/route?x=1']) {
      const response = await hub.request(path, { headers: HTML });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
    }
    // API clients and unknown files keep the JSON 404.
    for (const [path, headers] of [
      ['/containers', {}],
      ['/containers', { accept: '*/*' }],
      ['/favicon.ico', { accept: 'image/*' }],
      ['/assets/app-NOPE.js', HTML],
    ] as const) {
      const response = await hub.request(path, { headers });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/json/);
    }
    const post = await hub.request('/containers', { method: 'POST', headers: HTML });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('leaves /api, /api/*, /health and /metrics as they were, even for a browser asking for HTML', async () => {
    const cases: [string, number][] = [
      ['/api/v1/nope', 404],
      ['/api/v1', 404],
      ['/api/containers', 410],
      ['/api', 410],
      ['/health', 200],
      ['/api/v1/auth/status', 200],
    ];
    for (const [path, status] of cases) {
      const response = await hub.request(path, { headers: HTML });
      expect(response.status, path).toBe(status);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(response.headers.get('content-security-policy'), path).toBeNull();
    }
    const metrics = await hub.request('/metrics', { headers: HTML });
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const wrongMethod = await hub.request('/api/v1/auth/status', { method: 'DELETE', headers: HTML });
    expect(wrongMethod.status).toBe(405);
  });

  it('negotiates gzip as Accept-Encoding says', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('deflate, gzip;q=1.0')).toBe(true);
    expect(acceptsGzip('GZIP;Q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('br, identity')).toBe(false);
  });
});

describe('a hub whose UI is not built', () => {
  it('says how to build it on the page (503), and the API is untouched', async () => {
    const bare = await createMemoryHub(
      {},
      { ui: { unavailable: 'dist/ui/ui-bundle.json does not exist. Run <npm run build:ui>.' } },
    );
    try {
      const page = await bare.request('/', { headers: HTML });
      expect(page.status).toBe(503);
      const text = await page.text();
      expect(text).toContain('The web UI is not built');
      expect(text).toContain('Run &#60;npm run build:ui&#62;.');
      expect((await bare.request('/api/v1/nope', { headers: HTML })).status).toBe(404);
      // `/` is the page for every client, so it says why it is missing to them too.
      expect((await bare.request('/')).status).toBe(503);
      expect((await bare.request('/', { headers: { accept: 'application/json' } })).status).toBe(503);
      expect((await bare.request('/containers')).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
