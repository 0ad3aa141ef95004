import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FAILED_ATTEMPT_LIMIT } from '../../hub/src/auth/api-key-auth';
import { MAX_BODY_BYTES } from '../../hub/src/http/body-size';
import { type EdgePeer, newEdgeIdentity, signedInPeer } from '../support/edge-peer';
import { startWorkersHub, type WorkersHub } from '../support/workers-hub';

/**
 * Regression: "Uncaught TypeError: Can't read from request stream after response has been sent".
 * The Worker handed the client's body stream to the Durable Object's fetch; when the hub answered
 * without reading it (401, 403, 404, 405, 413, 429), workerd's pump of that body went on reading
 * the client's stream after the Worker's response had gone out. Clients saw connections reset, and
 * under `wrangler dev` a following request got 503 "Your worker restarted mid-request". Plain
 * Miniflare logs the error only with workerd's --verbose, so this suite turns it on and reads
 * workerd's output; it also checks that the object and an edge agent signed in beforehand outlive it.
 */

const AGENT = 'edge-beside-refusals';
const SIZES = { small: 100, '64KiB': 64 * 1024, '1.5MiB': 1.5 * 1024 * 1024 } as const;
// How workerd (--verbose) and wrangler report an exception nobody caught.
const UNCAUGHT = /uncaught exception|Uncaught|Can't read from request stream/;
// Not the hub's: writing the answer to a client that had already hung up (the abandoned upload).
const CLIENT_HUNG_UP = /disconnected: .*(Broken pipe|Connection reset)/;

let mf: WorkersHub;
let hubUrl: string;

/** A JSON document of about `size` bytes. */
const jsonOfSize = (size: number) =>
  new TextEncoder().encode(JSON.stringify({ name: 'refused', scopes: ['read'], pad: 'x'.repeat(size) }));

/**
 * The same bytes as a chunked upload that arrives in 16 KiB pieces, one event-loop turn apart;
 * with `failAt`, the client gives up there instead.
 */
function streamed(bytes: Uint8Array, failAt = Number.POSITIVE_INFINITY): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      if (offset >= failAt) return controller.error(new Error('the client gave up'));
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 16 * 1024));
      offset += 16 * 1024;
    },
  });
}

/** A status, or what the client saw instead (fetch rejects with the socket error as its cause). */
async function send(path: string, init: RequestInit): Promise<string> {
  try {
    const response = await fetch(`${hubUrl}${path}`, { ...init, duplex: 'half' } as RequestInit);
    const body = (await response.json()) as { error?: unknown };
    return `${response.status}${typeof body.error === 'string' ? '' : ' (no JSON error)'}`;
  } catch (error) {
    return `${(error as Error).message} ${String((error as { cause?: { code?: string } }).cause?.code ?? '')}`.trim();
  }
}

/** fetch() sends no body with a GET; node:http does. */
function getWithBody(path: string, headers: Record<string, string>, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${hubUrl}${path}`, {
      method: 'GET',
      headers: { ...headers, 'content-length': String(body.length) },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(body);
  });
}

interface Refusal {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The answer to a body within the limit; a body over it gets 413 where the limit is reached first. */
  status: number;
  overLimitStatus: number;
}

async function bootId(): Promise<string> {
  const response = await fetch(`${hubUrl}/api/v1/server`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { bootId: string }).bootId;
}

beforeAll(async () => {
  mf = await startWorkersHub({
    vars: { DD_LOG_LEVEL: 'warn', DD_SERVER_HOST: '0.0.0.0' },
    // workerd reports an uncaught exception of a request at info level only.
    verbose: true,
    // Real HTTP on the runtime's socket, as a client of `wrangler dev` would send it.
    listen: true,
  });
  hubUrl = mf.url;
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
});

describe('requests with a body that the hub refuses under workerd', () => {
  let peer: EdgePeer;
  let readKey: string;
  let bootBefore: string;

  beforeAll(async () => {
    const identity = await newEdgeIdentity();
    const registered = await fetch(`${hubUrl}/api/v1/edge/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: identity.publicKeyBase64, label: 'refusals' }),
    });
    expect(registered.status).toBe(201);
    peer = await signedInPeer(hubUrl, identity, AGENT);
    const created = await fetch(`${hubUrl}/api/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'read only', scopes: ['read'] }),
    });
    expect(created.status).toBe(201);
    readKey = ((await created.json()) as { apiKey: string }).apiKey;
    bootBefore = await bootId();
    // Every failed key attempt from this address counts; the 429 case then needs no waiting.
    for (let attempt = 0; attempt < FAILED_ATTEMPT_LIMIT; attempt += 1) {
      const response = await fetch(`${hubUrl}/api/v1/app`, {
        headers: { authorization: 'Bearer ddk_aaaaaaaaaaaa_wrong', 'cf-connecting-ip': '203.0.113.29' },
      });
      await response.arrayBuffer();
    }
  });

  afterAll(() => peer?.close());

  it('answers each refusal with its own status and JSON error', async () => {
    const json = { 'content-type': 'application/json' };
    const refusals: Refusal[] = [
      {
        name: 'PATCH without the scope',
        method: 'PATCH',
        path: '/api/v1/settings',
        headers: { ...json, authorization: `Bearer ${readKey}` },
        status: 403,
        overLimitStatus: 413,
      },
      {
        name: 'key creation beyond the caller key',
        method: 'POST',
        path: '/api/v1/api-keys',
        headers: { ...json, authorization: `Bearer ${readKey}` },
        status: 403,
        overLimitStatus: 413,
      },
      {
        name: 'an invalid key',
        method: 'PUT',
        path: '/api/v1/settings',
        headers: { ...json, authorization: 'Bearer ddk_bbbbbbbbbbbb_wrong', 'cf-connecting-ip': '203.0.113.40' },
        status: 401,
        overLimitStatus: 401,
      },
      {
        name: 'a blocked address',
        method: 'PATCH',
        path: '/api/v1/settings',
        headers: { ...json, authorization: 'Bearer ddk_cccccccccccc_wrong', 'cf-connecting-ip': '203.0.113.29' },
        status: 429,
        overLimitStatus: 429,
      },
      {
        name: 'an unknown route',
        method: 'POST',
        path: '/api/v1/nowhere',
        headers: json,
        status: 404,
        overLimitStatus: 413,
      },
      {
        name: 'a wrong method',
        method: 'DELETE',
        path: '/api/v1/settings',
        headers: json,
        status: 405,
        overLimitStatus: 413,
      },
    ];

    const answers: string[] = [];
    const expected: string[] = [];
    for (const refusal of refusals) {
      for (const [sizeName, size] of Object.entries(SIZES)) {
        for (const chunked of [false, true]) {
          const bytes = jsonOfSize(size);
          const label = `${refusal.name}, ${sizeName}${chunked ? ' chunked' : ''}`;
          expected.push(`${label}: ${bytes.length > MAX_BODY_BYTES ? refusal.overLimitStatus : refusal.status}`);
          const answer = await send(refusal.path, {
            method: refusal.method,
            headers: refusal.headers,
            body: chunked ? streamed(bytes) : bytes,
          });
          answers.push(`${label}: ${answer}`);
        }
      }
    }
    expect(answers).toEqual(expected);
  });

  it('answers a GET with a body, and outlives an abandoned upload and one past what is drained', async () => {
    const body = jsonOfSize(64 * 1024);
    expect(await getWithBody('/api/v1/nowhere', {}, body)).toBe(404);
    expect(
      await getWithBody(
        '/api/v1/settings',
        { authorization: 'Bearer ddk_dddddddddddd_wrong', 'cf-connecting-ip': '203.0.113.41' },
        body,
      ),
    ).toBe(401);
    const abandoned = await send('/api/v1/settings', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: streamed(body, 32 * 1024),
    });
    expect(abandoned).toMatch(/^fetch failed/);
    // Past eight times the limit the hub stops reading: the client may see its 413 or a reset.
    const endless = await send('/api/v1/nowhere', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: streamed(jsonOfSize(10 * MAX_BODY_BYTES)),
    });
    expect(endless).toMatch(/^413$|ECONNRESET|EPIPE|other side closed|terminated/);
  });

  it('keeps the object and its edge agent, and logs no uncaught exception', async () => {
    // The same object answers: nothing restarted it.
    expect(await bootId()).toBe(bootBefore);
    // The agent signed in before the refusals is still there, on the same socket, and still heard.
    expect(peer.ws.readyState).toBe(WebSocket.OPEN);
    const agents = (await (await fetch(`${hubUrl}/api/v1/agents`)).json()) as {
      data: { name: string; connected: boolean }[];
    };
    expect(agents.data).toContainEqual(expect.objectContaining({ name: AGENT, connected: true }));
    peer.send({ type: 'ping' });
    await peer.next('pong');
    expect(
      mf
        .output()
        .split('\n')
        .filter((line) => UNCAUGHT.test(line) && !CLIENT_HUNG_UP.test(line)),
    ).toEqual([]);
  });
});
