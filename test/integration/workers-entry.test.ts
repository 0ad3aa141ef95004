import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Response as MiniflareResponse, RequestInit } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, WORKERD_BUILD_OPTIONS } from '../../scripts/build-workers.mjs';
import { type WorkersHub, workersHubSet } from '../support/workers-hub';

let workDir: string;
const hubs = workersHubSet();

/** The hub's bundle; its Durable Object's storage persists under workDir across restarts. */
const startWorker = (bindings: Record<string, unknown> = {}, persistDir = join(workDir, 'do')): Promise<WorkersHub> =>
  hubs.start({ persistDir, vars: { DD_LOG_LEVEL: 'info', DD_SERVER_HOST: '0.0.0.0', ...bindings } });

async function json(response: MiniflareResponse): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-'));
});

afterAll(async () => {
  await hubs.disposeAll();
  await rm(workDir, { recursive: true, force: true });
});

describe('the Workers entry under workerd', () => {
  let mf: WorkersHub;
  const request = (path: string, init?: RequestInit) => mf.fetch(path, init);
  const patchSettings = (body: string, contentType = 'application/json') =>
    request('/api/v1/settings', { method: 'PATCH', body, headers: { 'content-type': contentType } });

  beforeAll(async () => {
    mf = await startWorker();
  });

  it('is ready on the first request, because start-up runs inside blockConcurrencyWhile', async () => {
    const response = await request('/health');
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toEqual({ status: 'ok', uptime: expect.any(Number) });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('serves the default settings and says it runs on workers', async () => {
    const response = await request('/api/v1/settings');
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ internetlessMode: false, updateMode: 'manual', approvalRequired: false });
    expect(await json(await request('/api/v1/app'))).toMatchObject({ name: 'dockwatch', runtime: 'workers' });
  });

  it('names its real storage and refuses nothing when nothing Node-only is configured', async () => {
    const server = await json(await request('/api/v1/server'));
    expect(server).toMatchObject({ runtime: 'workers', storage: { driver: 'durable-object' }, refusedVariables: [] });
    expect((server.configuration as Record<string, unknown>).store).toEqual({ driver: 'durable-object' });
    // No Docker Engine on Workers: the default local watcher is not there to fail.
    expect((server.configuration as Record<string, unknown>).watchers).toEqual([]);
  });

  it('serves the web UI built into the bundle: the page at / and its gzipped, immutable script', async () => {
    const page = await request('/', { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    const script = /src="(\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    // A client-side route is the same page; an API client still gets JSON.
    expect((await request('/containers/x', { headers: { accept: 'text/html' } })).status).toBe(200);
    expect((await request('/containers/x')).status).toBe(404);
    const asset = await request(script ?? '', { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Decoded once, not twice: workerd sends the stored gzip body as is (encodeBody: 'manual').
    expect(await asset.text()).toMatch(/^(?:import|var|const|let|function|\(|!)/);
  });

  it('serves the API reference page at /api/v1/docs from the bundle, under the same CSP, with its script', async () => {
    const page = await request('/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="(\/assets\/docs-[A-Z0-9]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const asset = await request(script ?? '');
    expect(asset.status).toBe(200);
    expect(await asset.text()).toContain('/api/v1/openapi.json');
  });

  it('stores a PATCH in Durable Object storage', async () => {
    const response = await patchSettings(JSON.stringify({ updateMode: 'auto' }));
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ internetlessMode: false, updateMode: 'auto', approvalRequired: false });
    expect(await json(await request('/api/v1/settings'))).toEqual({
      internetlessMode: false,
      updateMode: 'auto',
      approvalRequired: false,
    });
  });

  it('keeps the settings across a restart of workerd with the same persistence directory', async () => {
    await hubs.stop(mf);
    mf = await startWorker();
    const response = await request('/api/v1/settings');
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ internetlessMode: false, updateMode: 'auto', approvalRequired: false });
  });

  it('reads [vars] given as TOML numbers and booleans', async () => {
    const typed = await startWorker(
      { DD_AUDIT_MAX_ENTRIES: 5000, DD_SERVER_FEATURE_DELETE: true },
      join(workDir, 'typed-vars'),
    );
    try {
      const body = await json(await typed.fetch('/api/v1/server'));
      expect(body.configuration).toMatchObject({ audit: { maxEntries: 5000 }, server: { featureDelete: true } });
    } finally {
      await hubs.stop(typed);
    }
  });

  it('answers CORS preflights for DD_SERVER_CORS_ORIGINS and nothing for other origins', async () => {
    const dashboard = 'https://dash.example';
    const withCors = await startWorker({ DD_SERVER_CORS_ORIGINS: dashboard }, join(workDir, 'cors'));
    try {
      const preflight = (origin: string) =>
        withCors.fetch('/api/v1/settings', {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'PATCH',
            'access-control-request-headers': 'content-type',
          },
        });
      const allowed = await preflight(dashboard);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(dashboard);
      expect(allowed.headers.get('access-control-allow-methods')).toContain('PATCH');
      const other = await preflight('https://evil.example');
      expect(other.status).toBe(405);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      await other.arrayBuffer();
      const patched = await withCors.fetch('/api/v1/settings', {
        method: 'PATCH',
        body: JSON.stringify({ updateMode: 'notify' }),
        headers: { origin: dashboard, 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
      });
      expect(patched.status).toBe(200);
      expect(patched.headers.get('access-control-allow-origin')).toBe(dashboard);
      await patched.arrayBuffer();
    } finally {
      await hubs.stop(withCors);
    }
  });

  it('serves the OpenAPI document', async () => {
    const response = await request('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths as object)).toContain('/api/v1/settings');
  });

  it('answers an unknown route with 404 JSON', async () => {
    const response = await request('/api/v1/no-such-route');
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: expect.any(String) });
  });

  it('refuses malformed JSON, an invalid value and a non-JSON content type', async () => {
    const malformed = await patchSettings('{"updateMode":');
    expect(malformed.status).toBe(400);
    expect(await json(malformed)).toMatchObject({ error: expect.any(String) });

    const invalid = await patchSettings(JSON.stringify({ updateMode: 'nope' }));
    expect(invalid.status).toBe(400);
    expect(await json(invalid)).toMatchObject({ error: expect.any(String), details: expect.any(Object) });

    const wrongType = await patchSettings('updateMode=auto', 'application/x-www-form-urlencoded');
    expect(wrongType.status).toBe(415);
    expect(await json(wrongType)).toMatchObject({ error: expect.any(String) });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const response = await request('/api/v1/settings', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/GET/);
    expect(await json(response)).toMatchObject({ error: expect.any(String) });
  });

  it('answers the unversioned API with 410 pointing at /api/v1', async () => {
    const response = await request('/api/containers');
    expect(response.status).toBe(410);
    expect(await json(response)).toMatchObject({ details: { canonicalBasePath: '/api/v1' } });
  });

  it('marks PUT /api/v1/settings as deprecated', async () => {
    const response = await request('/api/v1/settings', {
      method: 'PUT',
      body: JSON.stringify({ updateMode: 'manual' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ internetlessMode: false, updateMode: 'manual', approvalRequired: false });
    expect(response.headers.get('deprecation')).toBeTruthy();
    expect(response.headers.get('sunset')).toBeTruthy();
  });

  it('serves the log buffer, holding the start-up warning', async () => {
    const response = await request('/api/v1/log/entries');
    expect(response.status).toBe(200);
    const entries = await response.json();
    expect(Array.isArray(entries)).toBe(true);
    expect(entries).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: expect.stringContaining('anonymous mode') }),
    );
  });

  // Regression: hono/cloudflare-workers' upgradeWebSocket never calls onOpen, where the log stream
  // sends its backfill and subscribes, so the stream stayed silent on Workers.
  it('streams the log buffer over a WebSocket', async () => {
    const response = await request('/api/v1/log/stream?level=warn', { headers: { upgrade: 'websocket' } });
    expect(response.status).toBe(101);
    const socket = response.webSocket;
    if (!socket) throw new Error('no WebSocket in the 101 response');
    const first = new Promise<string>((resolve, reject) => {
      const silence = setTimeout(() => reject(new Error('no log entry within 5 s')), 5000);
      socket.addEventListener('message', (event) => resolve(String(event.data)), { once: true });
      socket.addEventListener('close', () => clearTimeout(silence), { once: true });
    });
    socket.accept();
    expect(JSON.parse(await first)).toMatchObject({ level: 'warn', msg: expect.stringContaining('anonymous mode') });
    const closed = new Promise<number>((resolve) =>
      socket.addEventListener('close', (event) => resolve(event.code), { once: true }),
    );
    socket.close(1000);
    expect(await closed).toBe(1000);
  });

  it('puts an x-request-id on every response', async () => {
    for (const [path, init] of [
      ['/health', undefined],
      ['/api/v1/nowhere', undefined],
      ['/api/v1/settings', { method: 'DELETE' }],
      ['/api/containers', undefined],
    ] as const) {
      const response = await request(path, init);
      await response.arrayBuffer();
      expect(response.headers.get('x-request-id'), path).toBeTruthy();
    }
  });
});

describe('the Workers entry with a bad configuration', () => {
  it.each([
    { bindings: { DD_LOG_LEVEL: 'loud' }, variable: 'DD_LOG_LEVEL' },
    // No DD_AUTH_* and no DD_SERVER_HOST saying "open on purpose": a Worker is on the internet.
    { bindings: { DD_SERVER_HOST: '127.0.0.1' }, variable: 'DD_SERVER_HOST' },
    { bindings: { DD_SERVER_METRICS_TOKEN__FILE: '/run/secrets/token' }, variable: 'DD_SERVER_METRICS_TOKEN__FILE' },
    { bindings: { DD_AUDIT_MAX_ENTRIES: { many: true } }, variable: 'DD_AUDIT_MAX_ENTRIES' },
    // Registry providers load asynchronously, inside blockConcurrencyWhile: their errors must surface the same way.
    { bindings: { DD_REGISTRY_NOPE_MINE_URL: 'https://example' }, variable: 'DD_REGISTRY_NOPE_MINE_URL' },
  ])('answers every request with a 500 JSON error naming $variable', async ({ bindings, variable }) => {
    const mf = await startWorker(bindings, join(workDir, `bad-${variable}`));
    try {
      for (const path of ['/health', '/api/v1/settings']) {
        const response = await mf.fetch(path);
        expect(response.status).toBe(500);
        const body = await json(response);
        expect(body.error).toMatch(new RegExp(`^configuration error: ${variable}\\b`));
        expect(response.headers.get('x-request-id')).toBeTruthy();
      }
    } finally {
      await hubs.stop(mf);
    }
  });
});

describe('the Workers entry with Node-only configuration', () => {
  const NODE_ONLY = {
    DD_NOTIFICATION_SMTP_MAIL_HOST: 'smtp.example.test',
    DD_NOTIFICATION_SMTP_MAIL_FROM: 'hub@example.test',
    DD_NOTIFICATION_SMTP_MAIL_TO: 'ops@example.test',
    DD_NOTIFICATION_MQTT_HOME_URL: 'mqtt://broker.example.test:1883',
    DD_WATCHER_LOCAL_SOCKET: '/var/run/docker.sock',
    DD_HOOKS_ENABLED: 'true',
    DD_STORE_DRIVER: 'redis',
  };

  it('runs without it: every request is served, and the log and /api/v1/server name each variable and the runtime', async () => {
    const mf = await startWorker({ ...NODE_ONLY, DD_NOTIFICATION_NTFY_OPS_TOPIC: 'ops' }, join(workDir, 'node-only'));
    try {
      const request = (path: string) => mf.fetch(path);
      expect((await request('/health')).status).toBe(200);
      expect((await request('/api/v1/settings')).status).toBe(200);

      const server = await json(await request('/api/v1/server'));
      expect(server.storage).toEqual({ driver: 'durable-object' });
      const refused = server.refusedVariables as { variable: string; reason: string }[];
      expect(refused.map((refusal) => refusal.variable)).toEqual(Object.keys(NODE_ONLY).sort());
      expect(refused.find((refusal) => refusal.variable === 'DD_NOTIFICATION_SMTP_MAIL_HOST')?.reason).toMatch(
        /smtp needs raw TCP sockets/,
      );
      expect(refused.find((refusal) => refusal.variable === 'DD_WATCHER_LOCAL_SOCKET')?.reason).toMatch(/edge agent/);

      // The portable trigger beside them is there; the Node-only ones are not half-built.
      const triggers = (await (await request('/api/v1/triggers')).json()) as { data: { type: string }[] };
      expect(triggers.data.map((trigger) => trigger.type).filter((type) => type !== 'docker')).toEqual(['ntfy']);

      const log = (await (await request('/api/v1/log/entries')).json()) as Record<string, unknown>[];
      const refusedInLog = log.filter((entry) => String(entry.msg).includes('not available on the workers runtime'));
      expect(refusedInLog.map((entry) => String(entry.msg).split(':')[0]).sort()).toEqual(
        Object.keys(NODE_ONLY).sort(),
      );
      expect(refusedInLog.every((entry) => entry.level === 'error')).toBe(true);
    } finally {
      await hubs.stop(mf);
    }
  });

  // Going on without these could weaken the hub (a secret from a file unset; a listen agent's https turned to http).
  it.each([
    {
      bindings: {
        DD_AGENT_EDGE1_HOST: 'agent.example.test',
        DD_AGENT_EDGE1_SECRET: 's',
        DD_AGENT_EDGE1_CAFILE: '/ca.pem',
      },
      variable: 'DD_AGENT_EDGE1_CAFILE',
    },
    { bindings: { DD_AUTH_BASIC_ADMIN_HASH__FILE: '/run/secrets/hash' }, variable: 'DD_AUTH_BASIC_ADMIN_HASH__FILE' },
  ])('refuses to run with $variable, naming the variable and the runtime', async ({ bindings, variable }) => {
    const mf = await startWorker(bindings, join(workDir, `fatal-${variable}`));
    try {
      const response = await mf.fetch('/api/v1/settings');
      expect(response.status).toBe(500);
      expect((await json(response)).error).toMatch(
        new RegExp(`^configuration error: ${variable}: not available on the workers runtime: `),
      );
    } finally {
      await hubs.stop(mf);
    }
  });
});

/**
 * The storage contract (test/contracts) cannot reach Durable Object storage from Node, so a probe
 * Durable Object runs unstorage over the driver inside workerd and the checks drive it by fetch.
 */
const PROBE_SOURCE = `
import { prefixStorage } from 'unstorage';
import { createDurableObjectStorage } from './hub/src/adapter/workers/durable-object-driver';
export class StorageProbe {
  constructor(state) {
    this.storage = createDurableObjectStorage(state.storage);
  }
  async fetch(request) {
    const results = [];
    for (const { op, args, prefix } of await request.json()) {
      const target = prefix ? prefixStorage(this.storage, prefix) : this.storage;
      results.push((await target[op](...args)) ?? null);
    }
    return Response.json(results);
  }
}
export default { fetch: (request, env) => env.HUB.get(env.HUB.idFromName('probe')).fetch(request) };
`;

interface ProbeOp {
  op: 'setItem' | 'setItems' | 'getItem' | 'hasItem' | 'removeItem' | 'getKeys' | 'clear';
  args: unknown[];
  prefix?: string;
}

describe('the Durable Object storage driver under workerd', () => {
  let mf: WorkersHub;
  const run = async (...ops: ProbeOp[]): Promise<unknown[]> => {
    const response = await mf.fetch('/', { method: 'POST', body: JSON.stringify(ops) });
    expect(response.status).toBe(200);
    return (await response.json()) as unknown[];
  };
  const set = (key: string, value: unknown): ProbeOp => ({ op: 'setItem', args: [key, value] });
  const keys = async (base?: string, prefix?: string) =>
    (
      (
        await run({
          op: 'getKeys',
          args: base === undefined ? [] : [base],
          ...(prefix === undefined ? {} : { prefix }),
        })
      )[0] as string[]
    ).sort();

  beforeAll(async () => {
    const outfile = join(workDir, 'probe', 'index.js');
    await build({
      ...WORKERD_BUILD_OPTIONS,
      stdin: { contents: PROBE_SOURCE, resolveDir: ROOT, loader: 'js' },
      outfile,
    });
    mf = await hubs.start({ scriptPath: outfile, className: 'StorageProbe' });
  });

  it('round-trips values of every JSON type, unicode keys and a 1 MiB value', async () => {
    const values: Record<string, unknown> = {
      object: { a: 1, nested: { list: [1, 'two', null] } },
      string: 'Grüße, мир 🌍',
      number: 42.5,
      no: false,
      'café🚀': { text: 'naïve — 日本語' },
      large: 'x'.repeat(1024 * 1024),
    };
    await run(...Object.entries(values).map(([key, value]) => set(`values:${key}`, value)));
    const read = await run(...Object.keys(values).map((key): ProbeOp => ({ op: 'getItem', args: [`values:${key}`] })));
    expect(read).toEqual(Object.values(values));
  });

  it('answers hasItem, removes items, and reads a missing key as null', async () => {
    expect(
      await run(
        set('has:k', { v: 1 }),
        { op: 'hasItem', args: ['has:k'] },
        { op: 'removeItem', args: ['has:k'] },
        { op: 'hasItem', args: ['has:k'] },
        { op: 'getItem', args: ['has:k'] },
        { op: 'removeItem', args: ['has:never-set'] },
      ),
    ).toEqual([null, true, null, false, null, null]);
  });

  it('lists and clears by segment prefix: "audit" covers audit:* only, not the bare key nor auditx:*', async () => {
    await run(
      { op: 'clear', args: [] },
      ...['audit', 'audit:1', 'audit:2024:x', 'auditx:1', 'other:1'].map((key) => set(key, { key })),
    );
    expect(await keys()).toEqual(['audit', 'audit:1', 'audit:2024:x', 'auditx:1', 'other:1']);
    expect(await keys('audit')).toEqual(['audit:1', 'audit:2024:x']);
    expect(await keys('audit:2024')).toEqual(['audit:2024:x']);
    expect(await keys(undefined, 'audit')).toEqual(['1', '2024:x']);
    // Regression: unstorage 1.17.6's own clear(base) deleted nothing (unjs/unstorage#801).
    await run({ op: 'clear', args: ['audit'] });
    expect(await keys()).toEqual(['audit', 'auditx:1', 'other:1']);
    await run({ op: 'clear', args: [], prefix: 'other' });
    expect(await keys()).toEqual(['audit', 'auditx:1']);
  });

  it('writes a batch with setItems (one transaction, more keys than one put takes), every record readable', async () => {
    const batch = Array.from({ length: 300 }, (_, i) => ({ key: `batch:${String(i).padStart(3, '0')}`, value: { i } }));
    await run({ op: 'setItems', args: [batch] });
    expect(await keys('batch')).toEqual(batch.map(({ key }) => key));
    const read = await run(...batch.map(({ key }): ProbeOp => ({ op: 'getItem', args: [key] })));
    expect(read).toEqual(batch.map(({ value }) => value));
  });

  it('lists and clears more keys than one list page or one delete batch holds', async () => {
    const count = 1300;
    await run(...Array.from({ length: count }, (_, i) => set(`many:${String(i).padStart(4, '0')}`, { i })));
    expect(await keys('many')).toHaveLength(count);
    await run({ op: 'clear', args: ['many'] });
    expect(await keys('many')).toEqual([]);
  });
});
