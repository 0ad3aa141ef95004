import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkersBundle } from '../../scripts/build-workers.mjs';
import { type IconServer, startIconServer, TINY_PNG } from '../support/icon-server';

// The same date as wrangler.toml, so the test runs what `wrangler dev` runs.
const COMPATIBILITY_DATE = '2026-04-01';
const ORIGIN = 'http://hub.test';

let workDir: string;
let scriptPath: string;
let icons: IconServer;
const running = new Set<Miniflare>();

/** The hub's Worker bundle under real workerd, its Durable Object storage persisted under workDir. */
async function startWorker(): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: dirname(scriptPath),
    compatibilityDate: COMPATIBILITY_DATE,
    durableObjects: { HUB: { className: 'HubDurableObject', useSQLite: true } },
    durableObjectsPersist: join(workDir, 'do'),
    bindings: {
      DD_SERVER_HOST: '0.0.0.0',
      DD_ICONS_SELFHST_URL: `${icons.url}/selfhst`,
      DD_ICONS_SIMPLEICONS_URL: `${icons.url}/simple-icons`,
      DD_ICONS_DASHBOARDICONS_URL: `${icons.url}/dashboard-icons`,
      DD_ICONS_TIMEOUT: 2,
      DD_SERVER_WEBHOOK_TOKEN: 'workers-webhook-t0ken',
    },
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume();
      stderr.resume();
    },
  } as MiniflareOptions);
  running.add(mf);
  await mf.ready;
  return mf;
}

async function stopWorker(mf: Miniflare): Promise<void> {
  running.delete(mf);
  await mf.dispose();
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-icons-'));
  scriptPath = await buildWorkersBundle({ outfile: join(workDir, 'bundle', 'index.js') });
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
  await Promise.all([...running].map((mf) => mf.dispose()));
  await icons?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('icons and the system routes under workerd', () => {
  it('proxies, sanitises and caches icons in Durable Object storage, which a restarted workerd serves without asking the set', async () => {
    let mf = await startWorker();
    const request = (path: string, init?: RequestInit) => mf.dispatchFetch(`${ORIGIN}${path}`, init as never);
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

    await stopWorker(mf);
    const asked = icons.requests.length;
    mf = await startWorker();
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
    await stopWorker(mf);
  }, 120_000);
});
