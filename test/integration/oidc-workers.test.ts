import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestCertificates,
  removeTestCertificates,
  startOidcProvider,
  type TestCertificates,
  type TestOidcProvider,
} from '../support/oidc-provider';
import { TestBrowser, walkToCallback } from '../support/oidc-provider-browser';
import { WORKERS_ORIGIN as ORIGIN, startWorkersHub, type WorkersHub } from '../support/workers-hub';

const CALLBACK = `${ORIGIN}/api/v1/auth/oidc/corp/callback`;
const CLIENT_SECRET = 'workers-oidc-client-secret';
const ACCOUNT = { sub: 'account-w1', preferredUsername: 'wanda', email: 'wanda@example.test' };

/**
 * The portable core's OIDC sign-in under real workerd: Web fetch (through workerd's own TLS, which
 * trusts the test CA here), Web Crypto for PKCE and for jose's ID-token verification.
 */
describe('OIDC sign-in in the Workers entry under workerd', () => {
  let tls: TestCertificates;
  let provider: TestOidcProvider;
  let mf: WorkersHub;

  beforeAll(async () => {
    tls = await createTestCertificates();
    provider = await startOidcProvider({
      tls,
      client: { clientId: 'dockwatch-hub', clientSecret: CLIENT_SECRET, redirectUris: [CALLBACK] },
      account: ACCOUNT,
    });
    mf = await startWorkersHub({
      // workerd's own network stack, limited to loopback, trusting the provider's throwaway CA.
      miniflare: { outboundService: { network: { allow: ['local'], tlsOptions: { trustedCertificates: [tls.ca] } } } },
      vars: {
        DD_LOG_LEVEL: 'info',
        DD_AUTH_OIDC_CORP_DISCOVERY: provider.discoveryUrl,
        DD_AUTH_OIDC_CORP_CLIENTID: 'dockwatch-hub',
        DD_AUTH_OIDC_CORP_CLIENTSECRET: CLIENT_SECRET,
        DD_AUTH_OIDC_CORP_REDIRECT: CALLBACK,
      },
    });
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await provider?.close();
    if (tls) await removeTestCertificates(tls);
  });

  it('signs in through the provider and serves the session user', async () => {
    const browser = new TestBrowser(tls.ca, {
      origin: ORIGIN,
      fetch: (url, init) => mf.fetch(url, init),
    });
    try {
      const redirect = await browser.request(`${ORIGIN}/api/v1/auth/oidc/corp/redirect`);
      expect(redirect.status).toBe(302);
      const callback = await walkToCallback(browser, redirect.headers.get('location') ?? '', CALLBACK, {
        login: ACCOUNT.sub,
        password: 'any',
      });
      const finished = await browser.request(callback);
      expect(finished.status).toBe(302);
      expect(finished.headers.get('location')).toBe('/');
      const user = await browser.request(`${ORIGIN}/api/v1/auth/user`);
      expect(await user.json()).toEqual({ username: ACCOUNT.preferredUsername, assurance: 'oidc' });
      expect(provider.issued.idTokens).toHaveLength(1);

      const replay = await browser.request(callback, {
        headers: { cookie: `dd.oidc=${new URL(callback).searchParams.get('state')}` },
      });
      expect(replay.status).toBe(401);
    } finally {
      await browser.close();
    }
  });
});
