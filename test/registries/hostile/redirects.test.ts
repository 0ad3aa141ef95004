/**
 * Redirects: registries send blob (and sometimes manifest) downloads to storage on another origin.
 * The client follows them by hand: the Authorization header stays on the registry's origin, loops end
 * after 5 hops, and a broken Location is a protocol error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryError } from '../../../shared/registry/registry-error';
import {
  bearerChallenge,
  distribution,
  type FakeServer,
  type Handler,
  reply,
  startFakeServer,
} from '../../support/fixtures/fake-registry';
import { BASIC_ALICE, CREDENTIALS, errorOf, hostileClient } from './hostile-helpers';

describe('redirects', () => {
  let registry: FakeServer;
  let storage: FakeServer;
  let tokens: FakeServer;
  const store = distribution();
  const image = store.putImage('app', { created: '2026-02-03T04:05:06Z' }, ['1.0']);

  beforeAll(async () => {
    registry = await startFakeServer();
    storage = await startFakeServer(store.handler, '127.0.0.2');
    tokens = await startFakeServer((_req, res) => reply(res, 200, { token: 'secret-token', expires_in: 300 }));
  });
  afterAll(async () => {
    await Promise.all([registry.close(), storage.close(), tokens.close()]);
  });

  type Auth = 'bearer' | 'basic';
  const expectedAuth = (auth: Auth) => (auth === 'bearer' ? 'Bearer secret-token' : BASIC_ALICE);

  /** The registry demands `auth`, then answers authorised requests with `then`. */
  function guarded(auth: Auth, then: Handler): Handler {
    return (req, res, seen) => {
      if (req.headers.authorization === expectedAuth(auth)) return then(req, res, seen);
      const challenge =
        auth === 'bearer' ? bearerChallenge(`${tokens.origin}/token`) : { 'www-authenticate': 'Basic realm="fixture"' };
      reply(res, 401, {}, challenge);
    };
  }

  const redirectTo =
    (origin: () => string, status = 307): Handler =>
    (_req, res, seen) =>
      reply(res, status, '', { location: `${origin()}${seen.path}` });

  it('follows 302 and 307 to another origin without the Authorization header', async () => {
    for (const auth of ['bearer', 'basic'] as const) {
      for (const status of [302, 307]) {
        registry.reset(
          guarded(
            auth,
            redirectTo(() => storage.origin, status),
          ),
        );
        storage.reset(store.handler);
        const { client } = hostileClient(registry.host, { credentials: CREDENTIALS });
        expect((await client.getManifest('app', image.digest)).digest).toBe(image.digest);
        expect((await client.getImageConfig('app', image.configDigest)).created).toBe('2026-02-03T04:05:06Z');
        expect((await client.headManifest('app', '1.0')).digest).toBe(image.digest);
        expect(storage.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'HEAD']);
        expect({ auth, status, leaked: storage.requests.map((r) => r.headers.authorization) }).toEqual({
          auth,
          status,
          leaked: [undefined, undefined, undefined],
        });
        // Other headers travel on: the manifest Accept list is what makes the storage answer the right type.
        expect(storage.requests[0]?.headers.accept).toContain('application/vnd.oci.image.index.v1+json');
        expect(registry.requests.at(-1)?.headers.authorization).toBe(expectedAuth(auth));
      }
    }
  });

  it('keeps the Authorization header on a same-origin redirect', async () => {
    for (const auth of ['bearer', 'basic'] as const) {
      registry.reset(
        guarded(auth, (req, res, seen) =>
          seen.path.startsWith('/moved/')
            ? store.handler(req, res, { ...seen, path: seen.path.slice(6) })
            : redirectTo(() => '/moved')(req, res, seen),
        ),
      );
      const { client } = hostileClient(registry.host, { credentials: CREDENTIALS });
      expect((await client.getImageConfig('app', image.configDigest)).created).toBe('2026-02-03T04:05:06Z');
      expect(registry.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
        [`/v2/app/blobs/${image.configDigest}`, undefined],
        [`/v2/app/blobs/${image.configDigest}`, expectedAuth(auth)],
        [`/moved/v2/app/blobs/${image.configDigest}`, expectedAuth(auth)],
      ]);
    }
  });

  it('does not restore the Authorization header when another origin redirects back to the registry', async () => {
    registry.reset((req, res, seen) =>
      seen.query === 'back'
        ? store.handler(req, res, seen)
        : guarded(
            'basic',
            redirectTo(() => storage.origin),
          )(req, res, seen),
    );
    storage.reset((_req, res, seen) => reply(res, 307, '', { location: `${registry.origin}${seen.path}?back` }));
    const { client } = hostileClient(registry.host, { credentials: CREDENTIALS });
    expect((await client.getImageConfig('app', image.configDigest)).created).toBe('2026-02-03T04:05:06Z');
    const back = registry.requests.at(-1);
    expect([back?.query, back?.headers.authorization]).toEqual(['back', undefined]);
    expect(storage.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('a redirect loop is a protocol error (5 hops followed), and never leaks credentials', async () => {
    const toStorage: Handler = (_req, res, seen) =>
      reply(res, 302, '', { location: `${storage.origin}${seen.path}?hop` });
    registry.reset((req, res, seen) =>
      seen.query === 'hop' ? toStorage(req, res, seen) : guarded('basic', toStorage)(req, res, seen),
    );
    storage.reset((_req, res, seen) => reply(res, 302, '', { location: `${registry.origin}${seen.path}?hop` }));
    const error = await errorOf(
      hostileClient(registry.host, { credentials: CREDENTIALS }).client.getManifest('app', '1.0'),
    );
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('redirects');
    expect(storage.requests.length).toBeGreaterThanOrEqual(3);
    expect(storage.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(registry.requests.filter((r) => r.query === 'hop').every((r) => r.headers.authorization === undefined)).toBe(
      true,
    );
  });

  it('a 3xx without Location is a protocol error', async () => {
    registry.reset((_req, res) => reply(res, 302, ''));
    expect((await errorOf(hostileClient(registry.host).client.getManifest('app', '1.0'))).kind).toBe('protocol');
    expect(registry.requests).toHaveLength(1);
  });

  it('regression: a redirect loop is retried like a network error: 18 requests instead of 6', async () => {
    // Input: GET /v2/app/manifests/1.0 answered `302 Location: <same URL>` forever. Observed: the transport
    // throws protocol after 6 requests (1 + 5 hops), but RegistryTransport.send retries every non-timeout
    // error, so the loop runs 3 times (18 requests, ~0.8 s of backoff). Expected: 6 requests, no retry.
    registry.reset((_req, res, seen) => reply(res, 302, '', { location: seen.path }));
    const error = await errorOf(hostileClient(registry.host).client.getManifest('app', '1.0'));
    expect(error.kind).toBe('protocol');
    expect(registry.requests).toHaveLength(6);
  });

  it('regression: an unparsable Location escapes as a raw TypeError (after retries) instead of protocol', async () => {
    // Input: `302 Location: http://[::1`. Observed: `new URL(location)` in RegistryTransport.attempt throws
    // TypeError "Invalid URL", retried twice, then thrown raw. Expected: RegistryError protocol, one request.
    registry.reset((_req, res) => reply(res, 302, '', { location: 'http://[::1' }));
    const outcome = await hostileClient(registry.host)
      .client.getManifest('app', '1.0')
      .then(
        () => 'success',
        (error: unknown) => (error instanceof RegistryError ? error.kind : `raw ${(error as Error).name}`),
      );
    expect({ outcome, requests: registry.requests.length }).toEqual({ outcome: 'protocol', requests: 1 });
  });
});
