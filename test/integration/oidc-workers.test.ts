import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkersBundle } from '../../scripts/build-workers.mjs';
import {
  createTestCertificates,
  removeTestCertificates,
  startOidcProvider,
  type TestCertificates,
  type TestOidcProvider,
} from '../support/oidc-provider';
import { TestBrowser, walkToCallback } from '../support/oidc-provider-browser';

// The same date as wrangler.toml, so the test runs what `wrangler dev` runs.
const COMPATIBILITY_DATE = '2026-04-01';
const ORIGIN = 'http://hub.test';
const CALLBACK = `${ORIGIN}/api/v1/auth/oidc/corp/callback`;
const CLIENT_SECRET = 'workers-oidc-client-secret';
const ACCOUNT = { sub: 'account-w1', preferredUsername: 'wanda', email: 'wanda@example.test' };

/**
 * The portable core's OIDC sign-in under real workerd: Web fetch (through workerd's own TLS, which
 * trusts the test CA here), Web Crypto for PKCE and for jose's ID-token verification.
 */
describe('OIDC sign-in in the Workers entry under workerd', () => {
  let workDir: string;
  let tls: TestCertificates;
  let provider: TestOidcProvider;
  let mf: Miniflare;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'dockwatch-oidc-workers-'));
    tls = await createTestCertificates();
    provider = await startOidcProvider({
      tls,
      client: { clientId: 'dockwatch-hub', clientSecret: CLIENT_SECRET, redirectUris: [CALLBACK] },
      account: ACCOUNT,
    });
    const scriptPath = await buildWorkersBundle({ outfile: join(workDir, 'bundle', 'index.js') });
    mf = new Miniflare({
      modules: true,
      scriptPath,
      modulesRoot: dirname(scriptPath),
      compatibilityDate: COMPATIBILITY_DATE,
      durableObjects: { HUB: { className: 'HubDurableObject', useSQLite: true } },
      durableObjectsPersist: join(workDir, 'do'),
      handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
        stdout.resume();
        stderr.resume();
      },
      // workerd's own network stack, limited to loopback, trusting the provider's throwaway CA.
      outboundService: { network: { allow: ['local'], tlsOptions: { trustedCertificates: [tls.ca] } } },
      bindings: {
        DD_LOG_LEVEL: 'info',
        DD_AUTH_OIDC_CORP_DISCOVERY: provider.discoveryUrl,
        DD_AUTH_OIDC_CORP_CLIENTID: 'dockwatch-hub',
        DD_AUTH_OIDC_CORP_CLIENTSECRET: CLIENT_SECRET,
        DD_AUTH_OIDC_CORP_REDIRECT: CALLBACK,
      },
    } as MiniflareOptions);
    await mf.ready;
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await provider?.close();
    if (tls) await removeTestCertificates(tls);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('signs in through the provider and serves the session user', async () => {
    const browser = new TestBrowser(tls.ca, {
      origin: ORIGIN,
      fetch: (url, init) => mf.dispatchFetch(url, init),
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
