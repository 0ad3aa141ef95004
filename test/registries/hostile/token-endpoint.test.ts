/**
 * A misbehaving token endpoint: unreadable or oversized answers, no token, odd lifetimes, refused
 * credentials, and a registry that refuses the token it just had issued. Every case ends in one
 * exact RegistryError kind after a bounded number of requests.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerChallenge,
  type FakeServer,
  type Handler,
  reply,
  startFakeServer,
} from '../../support/fixtures/fake-registry';
import { BASIC_ALICE, CREDENTIALS, errorOf, hostileClient, SHORT_DEADLINE_MS, timed } from './hostile-helpers';

describe('token endpoint misbehaviour', () => {
  let registry: FakeServer;
  let tokens: FakeServer;
  let accepted: string | undefined;

  beforeAll(async () => {
    registry = await startFakeServer();
    tokens = await startFakeServer();
  });
  afterAll(async () => {
    await Promise.all([registry.close(), tokens.close()]);
  });

  /** The registry accepts `Bearer <accepted>` only; the token endpoint answers with `handler`. */
  function setUp(handler: Handler, token: string | undefined = 'good'): void {
    accepted = token;
    registry.reset((req, res) => {
      if (accepted !== undefined && req.headers.authorization === `Bearer ${accepted}`)
        return reply(res, 200, { tags: ['1.0.0'] });
      reply(res, 401, {}, bearerChallenge(`${tokens.origin}/token`, 'fixture', 'repository:app:pull'));
    });
    tokens.reset(handler);
  }

  const answer =
    (body: unknown, status = 200): Handler =>
    (_req, res) =>
      reply(res, status, body);

  async function kindOf(credentials?: typeof CREDENTIALS): Promise<string> {
    const { value, ms } = await timed(() =>
      errorOf(hostileClient(registry.host, { credentials }).client.listTags('app')),
    );
    expect(ms).toBeLessThan(1_000);
    return value.kind;
  }

  it('unreadable, oversized or token-less answers are protocol errors', async () => {
    const cases: [string, Handler][] = [
      ['non-JSON', answer('<html>login</html>')],
      ['truncated JSON', answer('{"token": "goo')],
      ['huge JSON (100 KB)', answer({ token: 'good', padding: 'x'.repeat(100 * 1024) })],
      ['huge chunked body (1 MB)', (_req, res) => void res.end(`{"token":"good","p":"${'x'.repeat(1024 * 1024)}"}`)],
      ['{}', answer({})],
      ['empty token', answer({ token: '', access_token: '' })],
      ['numeric token', answer({ token: 42 })],
      ['JSON string', answer('"good"')],
      ['JSON array', answer('["good"]')],
    ];
    for (const [name, handler] of cases) {
      setUp(handler);
      expect({ name, kind: await kindOf(CREDENTIALS) }).toEqual({ name, kind: 'protocol' });
      expect({ name, token: tokens.requests.length, registry: registry.requests.length }).toEqual({
        name,
        token: 1,
        registry: 1,
      });
    }
  });

  it('accepts access_token when token is absent', async () => {
    setUp(answer({ access_token: 'good' }));
    expect(await hostileClient(registry.host).client.listTags('app')).toEqual(['1.0.0']);
  });

  it('caches a token with a negative or non-numeric expires_in for the default 60 s (less the 5 s margin)', async () => {
    for (const expires of [-5, 'abc', 0, null]) {
      setUp(answer({ token: 'good', expires_in: expires }));
      let clock = 1_000_000;
      const { client } = hostileClient(registry.host, { now: () => clock });
      await client.listTags('app');
      clock += 54_000;
      await client.listTags('app');
      expect({ expires, tokenRequests: tokens.requests.length }).toEqual({ expires, tokenRequests: 1 });
      clock += 2_000; // 56 s after issue: past 60 s minus the 5 s margin
      await client.listTags('app');
      expect({ expires, tokenRequests: tokens.requests.length }).toEqual({ expires, tokenRequests: 2 });
      // One 401 only: afterwards the token is sent up front.
      expect(registry.requests.filter((r) => r.headers.authorization === undefined)).toHaveLength(1);
    }
  });

  it('a token endpoint answering 401 or 403 means refused credentials, or missing ones', async () => {
    for (const status of [401, 403]) {
      setUp(answer({ errors: [{ code: 'UNAUTHORIZED' }] }, status));
      expect(await kindOf(CREDENTIALS)).toBe('credentials-rejected');
      expect(tokens.requests.map((r) => r.headers.authorization)).toEqual([BASIC_ALICE]);
      setUp(answer({}, status));
      expect(await kindOf()).toBe('auth-required');
      expect(tokens.requests.map((r) => r.headers.authorization)).toEqual([undefined]);
      // Never an anonymous retry after refused credentials.
      expect(registry.requests).toHaveLength(1);
    }
  });

  it('a registry refusing its own fresh token ends after one round, on every call', async () => {
    let issued = 0;
    for (const [credentials, kind] of [
      [CREDENTIALS, 'credentials-rejected'],
      [undefined, 'auth-required'],
    ] as const) {
      for (const rotating of [false, true]) {
        setUp(
          (_req, res) => reply(res, 200, { token: rotating ? `t${++issued}` : 'same', expires_in: 300 }),
          undefined,
        );
        const { client } = hostileClient(registry.host, { credentials });
        expect((await errorOf(client.listTags('app'))).kind).toBe(kind);
        expect([registry.requests.length, tokens.requests.length]).toEqual([2, 1]);
        // A second call starts with the cached token, is refused, fetches one fresh token and stops.
        expect((await errorOf(client.listTags('app'))).kind).toBe(kind);
        expect([registry.requests.length, tokens.requests.length]).toEqual(rotating ? [4, 2] : [3, 2]);
      }
    }
  });

  it('a token endpoint that never answers is a timeout, not retried', async () => {
    setUp(() => {});
    const { value: error, ms } = await timed(() =>
      errorOf(hostileClient(registry.host, { timeoutMs: SHORT_DEADLINE_MS }).client.listTags('app')),
    );
    expect(error.kind).toBe('timeout');
    expect(tokens.requests).toHaveLength(1);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(1_000);
  });

  it('regression: a token response of JSON null crashes with a raw TypeError instead of protocol', async () => {
    // Input: the token endpoint answers 200 with the body `null`. Observed: TypeError "Cannot read properties
    // of null (reading 'token')" from RegistryAuth.fetchToken escapes to the caller. Expected: RegistryError protocol.
    setUp(answer('null'));
    expect(await kindOf(CREDENTIALS)).toBe('protocol');
  });

  it('regression: a token that is not a valid header value is reported as network after retries instead of protocol', async () => {
    // Input: {"token": "good\nX-Injected: 1"}. Observed: fetch refuses the header value (TypeError), which
    // the transport maps to `network` and retries twice with backoff. Expected: protocol, one registry request.
    setUp(answer({ token: 'good\r\nx-injected: 1' }));
    const { value: error, ms } = await timed(() => errorOf(hostileClient(registry.host).client.listTags('app')));
    expect({ kind: error.kind, registryRequests: registry.requests.length }).toEqual({
      kind: 'protocol',
      registryRequests: 1,
    });
    expect(ms).toBeLessThan(250);
  });

  it('regression: an oversized token response is read to the end before the 64 KB cap applies', async () => {
    // Input: the token endpoint declares Content-Length 100 MB, sends 100 KB and stalls. Observed: the
    // client keeps reading until its deadline and rejects with a raw DOMException TimeoutError (not a
    // RegistryError). Expected: protocol as soon as Content-Length (or 64 KB read) exceeds the cap.
    setUp((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) });
      res.write(`{"token":"good","p":"${'x'.repeat(100 * 1024)}`);
    });
    const { value: error, ms } = await timed(() =>
      errorOf(hostileClient(registry.host, { timeoutMs: 1_000 }).client.listTags('app')),
    );
    expect(error.kind).toBe('protocol');
    expect(ms).toBeLessThan(500);
  });
});
