/**
 * Compressed API answers (issue 30 item 4), in memory (CompressionStream's gzip) and on a real Node
 * socket (zlib's brotli and gzip), measured as the bytes that cross the wire: node:http, which does
 * not decode, rather than fetch, which does. 10,000 container records are put in the hub's store as
 * a watch cycle would store them, no dockerd needed: the records of the container-list benchmark
 * (bench/support/container-records.ts), shared as in a real fleet (see `fleet`).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { fleetRecords } from '../../../bench/support/container-records';
import type { Container } from '../../../shared/schemas/container';
import { describeHubMatrix, type HubClient } from '../../support/hub-harness';

const FLEET = 10_000;
const ONE_MB = 1_000_000;
const IMAGES = 300;
const REPLICAS = 5;

/**
 * 10,000 containers with their own random Docker ids, running 300 images (an image's id and digest
 * are the image's, not the container's) as 2,000 compose services of 5 replicas (a service's
 * config hash and environment are the service's). fleetRecords alone gives every container its own
 * image, hash and secrets: about 1.6 MB of random hex that no coding shrinks (docs/benchmarks.md).
 */
function fleet(): Container[] {
  const records = fleetRecords(FLEET);
  const at = (index: number) => records[index] as Container;
  return records.map((record, index) => {
    const service = at(Math.floor(index / REPLICAS) * REPLICAS);
    const hash = service.labels['com.docker.compose.config-hash'] ?? '';
    return {
      ...record,
      image: at(index % IMAGES).image,
      env: service.env,
      labels: { ...record.labels, 'com.docker.compose.config-hash': hash },
    };
  });
}

interface WireAnswer {
  status: number;
  headers: Headers;
  /** The body as it crossed the wire, still encoded. */
  bytes: Uint8Array;
}

const toHeaders = (raw: IncomingHttpHeaders) => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) if (typeof value === 'string') headers.set(name, value);
  return headers;
};

/** Over the socket with node:http (no decoding); in memory the Response's own bytes. */
async function wire(client: HubClient, path: string, headers: Record<string, string>, method = 'GET') {
  if (client.url === undefined) {
    const response = await client.request(path, { method, headers });
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  }
  return new Promise<WireAnswer>((resolve, reject) => {
    const sent = httpRequest(`${client.url}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: toHeaders(response.headers),
          bytes: new Uint8Array(Buffer.concat(chunks)),
        }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** Only the status and headers of a stream that never ends (SSE). */
async function streamHeaders(client: HubClient, path: string, headers: Record<string, string>): Promise<Headers> {
  const controller = new AbortController();
  const response = await client.request(path, { headers, signal: controller.signal });
  controller.abort();
  await response.body?.cancel().catch(() => undefined);
  expect(response.status).toBe(200);
  return response.headers;
}

const decode = (answer: WireAnswer) => {
  const coding = answer.headers.get('content-encoding');
  if (coding === 'br') return brotliDecompressSync(answer.bytes).toString('utf8');
  if (coding === 'gzip') return gunzipSync(answer.bytes).toString('utf8');
  return new TextDecoder().decode(answer.bytes);
};

describeHubMatrix('compressed API answers', (client, mode) => {
  let identity: WireAnswer;
  beforeAll(async () => {
    await client().hub.parts.containers.putMany(fleet());
    identity = await wire(client(), '/api/v1/containers', {});
  }, 120_000);

  it('gzips the list of 10,000 containers to a tenth of its size for a client that accepts gzip', async () => {
    expect(identity.status).toBe(200);
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect(identity.headers.get('vary')).toMatch(/accept-encoding/i);
    const listed = JSON.parse(decode(identity)) as { data: unknown[]; total: number };
    expect(listed.data).toHaveLength(FLEET);
    expect(identity.bytes.byteLength).toBeGreaterThan(15 * ONE_MB);

    const gzip = await wire(client(), '/api/v1/containers', { 'accept-encoding': 'gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(gzip.headers.get('content-length')).toBe(String(gzip.bytes.byteLength));
    expect(gzip.bytes.byteLength).toBeLessThan(identity.bytes.byteLength / 10);
    expect(decode(gzip)).toBe(decode(identity));
  });

  // In memory the hub has the portable CompressionStream only, which has no brotli.
  it.skipIf(mode === 'memory')('sends the list in under 1 MB with brotli, which Node offers first', async () => {
    const best = await wire(client(), '/api/v1/containers', { 'accept-encoding': 'gzip, deflate, br' });
    expect(best.headers.get('content-encoding')).toBe('br');
    expect(best.headers.get('content-length')).toBe(String(best.bytes.byteLength));
    expect(best.bytes.byteLength).toBeLessThan(ONE_MB);
    expect(decode(best)).toBe(decode(identity));
  });

  it('prefers what the client weighs higher', async () => {
    const gzip = await wire(client(), '/api/v1/containers?limit=200', { 'accept-encoding': 'br;q=0.5, gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const none = await wire(client(), '/api/v1/containers?limit=200', { 'accept-encoding': 'gzip;q=0, br;q=0' });
    expect(none.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(decode(none)).data).toHaveLength(200);
  });

  it('answers HEAD with the headers of the compressed GET and no body', async () => {
    const headers = { 'accept-encoding': 'gzip' };
    const [head, get] = [
      await wire(client(), '/api/v1/containers', headers, 'HEAD'),
      await wire(client(), '/api/v1/containers', headers),
    ];
    expect(head.status).toBe(200);
    expect(head.bytes.byteLength).toBe(0);
    expect(head.headers.get('content-encoding')).toBe('gzip');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
  });

  it('leaves a small answer uncompressed', async () => {
    const small = await wire(client(), '/api/v1/settings', { 'accept-encoding': 'gzip, br' });
    expect(small.status).toBe(200);
    expect(small.bytes.byteLength).toBeLessThan(1024);
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(decode(small))).toHaveProperty('updateMode');
  });

  it('compresses a large JSON answer of another route the same way (the OpenAPI document)', async () => {
    const document = await wire(client(), '/api/v1/openapi.json', { 'accept-encoding': 'gzip' });
    expect(document.status).toBe(200);
    expect(document.headers.get('content-encoding')).toBe('gzip');
    expect(JSON.parse(decode(document))).toHaveProperty('openapi');
  });

  it('never compresses the UI event stream (SSE)', async () => {
    const headers = await streamHeaders(client(), '/api/v1/events/ui', { 'accept-encoding': 'gzip, br' });
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(headers.get('content-encoding')).toBeNull();
  });
});
