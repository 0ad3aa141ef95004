/**
 * Token realm validation: a 401 challenge names the URL the client sends its credentials to, so a
 * realm on another host is token theft. The check is by hostname: another loopback IP or another
 * domain is refused before any request, while another port on the registry's own hostname is trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeServer, reply, startFakeServer } from '../../support/fixtures/fake-registry';
import { BASIC_ALICE, CREDENTIALS, errorOf, hostileClient, timed } from './hostile-helpers';

describe('token realm validation', () => {
  let registry: FakeServer;
  let evil: FakeServer;
  let tokens: FakeServer;

  beforeAll(async () => {
    registry = await startFakeServer();
    // Another loopback IP: reachable, so a leak would be observed rather than fail to connect.
    evil = await startFakeServer((_req, res) => reply(res, 200, { token: 'stolen' }), '127.0.0.2');
    tokens = await startFakeServer();
  });
  afterAll(async () => {
    await Promise.all([registry.close(), evil.close(), tokens.close()]);
  });

  /** The registry challenges every request without a valid token, naming `realm`. */
  function challengeWith(realm: string): void {
    registry.reset((req, res) => {
      if (req.headers.authorization === 'Bearer fresh') return reply(res, 200, { name: 'app', tags: ['1.0.0'] });
      reply(
        res,
        401,
        { errors: [{ code: 'UNAUTHORIZED' }] },
        { 'www-authenticate': `Bearer realm="${realm}",service="fixture"` },
      );
    });
  }

  it('refuses realms on other hosts before sending them anything', async () => {
    evil.reset(evil.handle);
    for (const realm of [
      'http://evil.invalid/token',
      `${evil.origin}/token`,
      `http://${registry.host}@evil.invalid/token`,
      'http://127.0.0.1.evil.invalid/token',
      'http://localhost/token',
    ]) {
      challengeWith(realm);
      for (const credentials of [CREDENTIALS, undefined]) {
        const { value: error, ms } = await timed(() =>
          errorOf(hostileClient(registry.host, { credentials }).client.listTags('app')),
        );
        expect({ realm, kind: error.kind }).toEqual({ realm, kind: 'protocol' });
        expect(error.message).toContain('not trusted');
        expect(ms).toBeLessThan(1_000);
      }
      // Only the anonymous first request reached the registry; credentials were never sent anywhere.
      expect(registry.requests.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
    }
    expect(evil.connections).toBe(0);
    expect(evil.requests).toEqual([]);
  });

  it('refuses realms that are not http(s) URLs', async () => {
    for (const realm of [
      'javascript:alert(1)',
      'not a url',
      '/token',
      'http://',
      `ftp://${registry.host}/token`,
      `file:///etc/passwd`,
      'data:application/json,{"token":"x"}',
    ]) {
      challengeWith(realm);
      const error = await errorOf(hostileClient(registry.host, { credentials: CREDENTIALS }).client.listTags('app'));
      expect({ realm, kind: error.kind }).toEqual({ realm, kind: 'protocol' });
      expect(registry.requests).toHaveLength(1);
    }
  });

  it('accepts a realm on the same hostname but another port, which then receives the credentials (by design)', async () => {
    tokens.reset((req, res) => {
      if (req.headers.authorization !== BASIC_ALICE) return reply(res, 401, {});
      reply(res, 200, { token: 'fresh', expires_in: 300 });
    });
    challengeWith(`${tokens.origin}/token`);
    const { client } = hostileClient(registry.host, { credentials: CREDENTIALS });
    expect(await client.listTags('app')).toEqual(['1.0.0']);
    expect(tokens.requests).toHaveLength(1);
    expect(tokens.requests[0]?.headers.authorization).toBe(BASIC_ALICE);
    const query = new URLSearchParams(tokens.requests[0]?.query);
    expect(query.get('service')).toBe('fixture');
    expect(query.get('scope')).toBe('repository:app:pull');
    expect(registry.requests.map((r) => r.headers.authorization)).toEqual([undefined, 'Bearer fresh']);
  });

  it('trusts a realm on another host only when the connection vouches for it (trustedRealmHosts)', async () => {
    evil.reset((_req, res) => reply(res, 200, { token: 'fresh' }));
    challengeWith(`${evil.origin}/token`);
    const { client } = hostileClient(registry.host, { trustedRealmHosts: ['127.0.0.2'] });
    expect(await client.listTags('app')).toEqual(['1.0.0']);
    expect(evil.requests).toHaveLength(1);
  });

  it('a trusted realm that redirects to another host does not forward the credentials there', async () => {
    tokens.reset((_req, res) => reply(res, 302, '', { location: `${evil.origin}/token` }));
    evil.reset((_req, res) => reply(res, 200, { token: 'fresh' }));
    challengeWith(`${tokens.origin}/token`);
    expect(await hostileClient(registry.host, { credentials: CREDENTIALS }).client.listTags('app')).toEqual(['1.0.0']);
    expect(tokens.requests[0]?.headers.authorization).toBe(BASIC_ALICE);
    expect(evil.requests).toHaveLength(1);
    expect(evil.requests[0]?.headers.authorization).toBeUndefined();
  });
});
