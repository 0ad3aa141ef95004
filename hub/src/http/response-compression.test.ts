import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { HubEnv } from './hub-env';
import {
  COMPRESSION_THRESHOLD_BYTES,
  compressResponses,
  negotiateCoding,
  platformCompression,
  type ResponseCompression,
  webStreamCompression,
} from './response-compression';

const LARGE = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `container-${i}` })) });
const SMALL = JSON.stringify({ status: 'ok' });

/** Marks its output so a test can tell which coding ran, and counts the calls. */
function markingCompression(): ResponseCompression & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    codings: ['br', 'gzip'],
    async compress(coding, bytes) {
      calls.push(coding);
      return new TextEncoder().encode(`${coding}:${bytes.byteLength}`);
    },
  };
}

function appWith(compression: ResponseCompression) {
  const app = new Hono<HubEnv>();
  app.use(compressResponses(compression));
  app.get('/large', (c) => c.body(LARGE, 200, { 'Content-Type': 'application/json', ETag: '"v1"' }));
  app.get('/small', (c) => c.json(JSON.parse(SMALL)));
  app.get('/problem', (c) => c.body(LARGE, 500, { 'Content-Type': 'application/problem+json' }));
  app.get('/text', (c) => c.body(LARGE, 200, { 'Content-Type': 'text/plain' }));
  app.get('/events', (c) => c.body(LARGE, 200, { 'Content-Type': 'text/event-stream' }));
  app.get('/not-modified', (c) => c.body(null, 304, { ETag: '"v1"' }));
  app.get('/ranged', (c) =>
    c.body(LARGE.slice(0, 2000), 206, { 'Content-Type': 'application/json', 'Content-Range': 'bytes 0-1999/9999' }),
  );
  app.get('/no-transform', (c) =>
    c.body(LARGE, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-transform' }),
  );
  app.get('/gzipped', (c) => c.body(LARGE, 200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }));
  app.get('/varies', (c) => c.body(LARGE, 200, { 'Content-Type': 'application/json', Vary: 'Origin' }));
  return app;
}

const get = (app: Hono<HubEnv>, path: string, acceptEncoding?: string, method = 'GET') =>
  app.request(path, { method, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

describe('negotiateCoding', () => {
  it('takes the highest q the runtime offers, the runtime order breaking ties', () => {
    expect(negotiateCoding('gzip, deflate, br', ['br', 'gzip'])).toBe('br');
    expect(negotiateCoding('gzip;q=1, br;q=0.5', ['br', 'gzip'])).toBe('gzip');
    expect(negotiateCoding('br;q=0, gzip', ['br', 'gzip'])).toBe('gzip');
    expect(negotiateCoding('*', ['br', 'gzip'])).toBe('br');
    expect(negotiateCoding('*, br;q=0', ['br', 'gzip'])).toBe('gzip');
    expect(negotiateCoding('identity', ['br', 'gzip'])).toBeUndefined();
    expect(negotiateCoding('gzip;q=0', ['gzip'])).toBeUndefined();
    expect(negotiateCoding('br', ['gzip'])).toBeUndefined();
    expect(negotiateCoding(undefined, ['gzip'])).toBeUndefined();
  });
});

describe('compressResponses', () => {
  it('compresses a JSON answer above the threshold with the accepted coding, its length and Vary set', async () => {
    const compression = markingCompression();
    const response = await get(appWith(compression), '/large', 'gzip, br');
    const body = await response.text();
    expect(body).toBe(`br:${LARGE.length}`);
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('content-length')).toBe(String(body.length));
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    // The compressed bytes are another representation: a strong validator would claim they are the same.
    expect(response.headers.get('etag')).toBe('W/"v1"');
  });

  it('answers HEAD with the headers GET gets', async () => {
    const app = appWith(markingCompression());
    const [head, full] = await Promise.all([get(app, '/large', 'gzip', 'HEAD'), get(app, '/large', 'gzip')]);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-encoding')).toBe('gzip');
    expect(head.headers.get('content-length')).toBe(full.headers.get('content-length'));
  });

  it('sends identity with Vary to a client that accepts no offered coding', async () => {
    const compression = markingCompression();
    for (const acceptEncoding of [undefined, 'identity', 'gzip;q=0, br;q=0']) {
      const response = await get(appWith(compression), '/large', acceptEncoding);
      expect(await response.text()).toBe(LARGE);
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(response.headers.get('vary')).toBe('Accept-Encoding');
      expect(response.headers.get('etag')).toBe('"v1"');
    }
    expect(compression.calls).toEqual([]);
  });

  it('leaves small answers, streams, ranges, 304s, no-transform and encoded answers alone', async () => {
    const compression = markingCompression();
    const app = appWith(compression);
    const small = await get(app, '/small', 'gzip');
    expect(SMALL.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
    expect(await small.json()).toEqual(JSON.parse(SMALL));
    expect(small.headers.get('vary')).toBeNull();
    for (const path of ['/text', '/events', '/no-transform']) {
      const response = await get(app, path, 'gzip');
      expect(await response.text(), path).toBe(LARGE);
      expect(response.headers.get('content-encoding'), path).toBeNull();
    }
    const ranged = await get(app, '/ranged', 'gzip');
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe(LARGE.slice(0, 2000));
    const notModified = await get(app, '/not-modified', 'gzip');
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe('"v1"');
    const gzipped = await get(app, '/gzipped', 'gzip, br');
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(await gzipped.text()).toBe(LARGE);
    expect(compression.calls).toEqual([]);
  });

  it('compresses error bodies and keeps an existing Vary', async () => {
    const app = appWith(markingCompression());
    const problem = await get(app, '/problem', 'gzip');
    expect(problem.status).toBe(500);
    expect(problem.headers.get('content-encoding')).toBe('gzip');
    const varies = await get(app, '/varies', 'gzip');
    expect(varies.headers.get('vary')).toBe('Origin, Accept-Encoding');
  });

  it('compresses nothing where the platform does it (Workers)', async () => {
    const response = await get(appWith(platformCompression), '/large', 'gzip, br');
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.text()).toBe(LARGE);
  });

  it('gzips with CompressionStream by default, bytes that DecompressionStream restores', async () => {
    const response = await get(appWith(webStreamCompression), '/large', 'br, gzip');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(String(bytes.byteLength)).toBe(response.headers.get('content-length'));
    expect(bytes.byteLength).toBeLessThan(LARGE.length / 4);
    const restored = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    expect(await new Response(restored).text()).toBe(LARGE);
  });
});
