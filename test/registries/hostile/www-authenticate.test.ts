/**
 * Hostile WWW-Authenticate headers on a 401: oversized, unterminated quotes, too many parameters, no
 * realm, a realm that leads back to the registry. Each must end quickly in a RegistryError, with a
 * bounded number of requests, and without a crash or a hang.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerChallenge, type FakeServer, reply, startFakeServer } from '../../support/fixtures/fake-registry';
import { CREDENTIALS, errorOf, hostileClient, timed } from './hostile-helpers';

describe('hostile WWW-Authenticate headers', () => {
  let registry: FakeServer;

  beforeAll(async () => {
    registry = await startFakeServer();
  });
  afterAll(() => registry.close());

  function challengeWith(header: string): void {
    registry.reset((_req, res) =>
      reply(res, 401, { errors: [{ code: 'UNAUTHORIZED' }] }, { 'www-authenticate': header }),
    );
  }

  async function kindFor(header: string, credentials?: typeof CREDENTIALS): Promise<string> {
    challengeWith(header);
    const { value: error, ms } = await timed(() =>
      errorOf(hostileClient(registry.host, { credentials }).client.headManifest('app', '1.0')),
    );
    expect(ms).toBeLessThan(1_000);
    expect(registry.requests.length).toBeLessThanOrEqual(2);
    return error.kind;
  }

  const realm = () => `${registry.origin}/token`;
  const oversized = () => `Bearer realm="${realm()}",service="fixture",scope="${'a'.repeat(10_240)}"`;
  const manyParams = () =>
    `Bearer realm="${realm()}",${Array.from({ length: 1_000 }, (_, i) => `p${i}="v${i}"`).join(',')}`;

  it('a Bearer challenge without a usable realm is a protocol error', async () => {
    for (const header of [
      'Bearer realm="http://127.0.0.1/token', // unterminated quote
      `Bearer service="fixture",scope="repository:app:pull",realm="${'x'.repeat(50)}`,
      'Bearer service="fixture",scope="repository:app:pull"', // no realm
      'Bearer',
      'Bearer realm=',
      'Bearer realm=""',
      `Bearer realm="\\"${'\\'.repeat(2_000)}`,
    ]) {
      for (const credentials of [CREDENTIALS, undefined]) {
        expect({ header: header.slice(0, 60), kind: await kindFor(header, credentials) }).toEqual({
          header: header.slice(0, 60),
          kind: 'protocol',
        });
        // The unanswerable challenge is not retried.
        expect(registry.requests).toHaveLength(1);
      }
    }
  });

  it('oversized, 1,000-parameter and garbage headers end quickly without a token request', async () => {
    // The exact kind of these is the subject of the regression test below; here: bounded, quick, one request.
    for (const header of [oversized(), manyParams(), '"'.repeat(3_000), ',,,,=,=,"', '=garbage;;;']) {
      for (const credentials of [CREDENTIALS, undefined]) {
        const kind = await kindFor(header, credentials);
        expect(['protocol', credentials ? 'credentials-rejected' : 'auth-required']).toContain(kind);
        expect(registry.requests.map((r) => r.path)).toEqual(['/v2/app/manifests/1.0']);
      }
    }
  });

  it('regression: an unreadable WWW-Authenticate header is reported as auth-required / credentials-rejected instead of protocol', async () => {
    // Input: a 401 whose challenge is 10 KB long, has 1,000 parameters, or is garbage (parseWwwAuthenticate gives []).
    // Observed: auth-required without credentials, and credentials-rejected with credentials that were
    // never sent (the first request is anonymous). Expected: protocol ("hostile header", registry-error.ts).
    const observed = {
      oversizedAnonymous: await kindFor(oversized()),
      oversizedWithCredentials: await kindFor(oversized(), CREDENTIALS),
      manyParamsAnonymous: await kindFor(manyParams()),
      manyParamsWithCredentials: await kindFor(manyParams(), CREDENTIALS),
      garbageWithCredentials: await kindFor('"'.repeat(3_000), CREDENTIALS),
    };
    expect(observed).toEqual({
      oversizedAnonymous: 'protocol',
      oversizedWithCredentials: 'protocol',
      manyParamsAnonymous: 'protocol',
      manyParamsWithCredentials: 'protocol',
      garbageWithCredentials: 'protocol',
    });
  });

  it('a realm that points back at the registry, which challenges again, ends after one round', async () => {
    for (const [credentials, kind] of [
      [CREDENTIALS, 'credentials-rejected'],
      [undefined, 'auth-required'],
    ] as const) {
      registry.reset((_req, res) => reply(res, 401, {}, bearerChallenge(`${registry.origin}/v2/app/manifests/1.0`)));
      const { value: error, ms } = await timed(() =>
        errorOf(hostileClient(registry.host, { credentials }).client.headManifest('app', '1.0')),
      );
      expect(error.kind).toBe(kind);
      // The manifest HEAD, then the "token" GET of the same URL; no second round.
      expect(registry.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'HEAD /v2/app/manifests/1.0',
        'GET /v2/app/manifests/1.0',
      ]);
      expect(ms).toBeLessThan(1_000);
    }
  });

  it('a Basic challenge refusing the credentials it asked for ends after one retry', async () => {
    registry.reset((_req, res) => reply(res, 401, {}, { 'www-authenticate': 'Basic realm="fixture"' }));
    const error = await errorOf(
      hostileClient(registry.host, { credentials: CREDENTIALS }).client.headManifest('app', '1.0'),
    );
    expect(error.kind).toBe('credentials-rejected');
    expect(registry.requests).toHaveLength(2);
    expect(registry.requests[1]?.headers.authorization).toMatch(/^Basic /);
    registry.reset(registry.handle);
    expect((await errorOf(hostileClient(registry.host).client.headManifest('app', '1.0'))).kind).toBe('auth-required');
    expect(registry.requests).toHaveLength(1);
  });
});
