import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IconServer, startIconServer, TINY_PNG } from '../support/icon-server';
import { workersHubSet } from '../support/workers-hub';

let workDir: string;
let icons: IconServer;
const hubs = workersHubSet();

/** The hub's Worker bundle under real workerd, its Durable Object storage persisted under workDir. */
const startWorker = () =>
  hubs.start({
    persistDir: join(workDir, 'do'),
    vars: {
      DD_SERVER_HOST: '0.0.0.0',
      DD_ICONS_SELFHST_URL: `${icons.url}/selfhst`,
      DD_ICONS_SIMPLEICONS_URL: `${icons.url}/simple-icons`,
      DD_ICONS_DASHBOARDICONS_URL: `${icons.url}/dashboard-icons`,
      DD_ICONS_TIMEOUT: 2,
      DD_SERVER_WEBHOOK_TOKEN: 'workers-webhook-t0ken',
    },
  });

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-icons-'));
  icons = await startIconServer();
  icons.serve('/selfhst/svg/clean.svg', {
    contentType: 'image/svg+xml',
    body: '<svg viewBox="0 0 1 1" onload="alert(1)"><script>alert(2)</script><path id="p" d="M0 0h1v1z"/></svg>',
  });
  icons.serve('/dashboard-icons/png/raster.png', { contentType: 'image/png', body: TINY_PNG });
  icons.serve('/simple-icons/icons/huge.svg', {
    contentType: 'image/svg+xml',
    body: `<svg>${' '.repeat(300 * 1024)}</svg>`,
    chunked: true,
  });
}, 120_000);

afterAll(async () => {
  await hubs.disposeAll();
  await icons?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('icons and the system routes under workerd', () => {
  it('proxies, sanitises and caches icons in Durable Object storage, which a restarted workerd serves without asking the set', async () => {
    let hub = await startWorker();
    const request = (path: string, init?: RequestInit) => hub.fetch(path, init as never);
    const svg = await request('/api/v1/icons/selfhst/clean');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    const text = await svg.text();
    expect(text).toContain('id="p"');
    expect(text).not.toMatch(/script|onload|alert/);
    const png = await request('/api/v1/icons/dashboard-icons/raster');
    expect(png.status).toBe(200);
    expect(new Uint8Array(await png.arrayBuffer())).toEqual(TINY_PNG);
    const huge = await request('/api/v1/icons/simple-icons/huge');
    expect(huge.status).toBe(502);
    expect(((await huge.json()) as { details: { reason: string } }).details.reason).toBe('larger than 262144 bytes');
    const store = (await (await request('/api/v1/store')).json()) as Record<string, unknown>;
    expect(store).toMatchObject({ driver: 'durable-object', persistent: true, iconCache: { entries: 2 } });

    await hubs.stop(hub);
    const asked = icons.requests.length;
    hub = await startWorker();
    const again = await request('/api/v1/icons/selfhst/clean');
    expect(again.headers.get('x-icon-cache')).toBe('hit');
    expect(await again.text()).toBe(text);
    expect(icons.requests.length).toBe(asked);

    // internetlessMode: the cache only.
    const patched = await request('/api/v1/settings', {
      method: 'PATCH',
      body: JSON.stringify({ internetlessMode: true }),
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.status).toBe(200);
    const missing = await request('/api/v1/icons/selfhst/other');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { details: { reason: string } }).details.reason).toBe('internetless-mode');
    expect(icons.requests.length).toBe(asked);

    const cleared = await request('/api/v1/icons/cache', { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ cleared: 2 });

    // The dump, on this runtime too: no secret, audited.
    const dump = await request('/api/v1/debug/dump');
    expect(dump.status).toBe(200);
    const dumped = await dump.text();
    expect(dumped).not.toContain('workers-webhook-t0ken');
    expect(JSON.parse(dumped).server.runtime).toBe('workers');
    const audit = (await (await request('/api/v1/audit?action=debug-dump')).json()) as { total: number };
    expect(audit.total).toBe(1);
    const security = (await (await request('/api/v1/server/security/runtime')).json()) as Record<string, unknown>;
    expect(security).toMatchObject({ runtime: 'workers', hooks: { available: false } });
    await hubs.stop(hub);
  }, 120_000);
});
