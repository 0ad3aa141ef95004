import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, spawnHub, startHubProcess } from '../support/hub-process';
import {
  createTestCertificates,
  removeTestCertificates,
  startOidcProvider,
  type TestCertificates,
  type TestOidcProvider,
} from '../support/oidc-provider';
import { TestBrowser, walkToCallback } from '../support/oidc-provider-browser';

const CLIENT_ID = 'dockwatch-hub';
const CLIENT_SECRET = `oidc-client-secret-${randomBytes(12).toString('hex')}`;
const WRONG_SECRET = `not-the-client-secret-${randomBytes(12).toString('hex')}`;
const ACCOUNT = { sub: 'account-7f3a', preferredUsername: 'alice', email: 'alice@example.test' };
const TYPED = { login: ACCOUNT.sub, password: 'any password will do' };
const CALLBACK = (hubUrl: string, id: string) => `${hubUrl}/api/v1/auth/oidc/${id}/callback`;

/** A port nobody listens on right now: the hub's callback URL must be known before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function oidcEnv(id: string, discovery: string, secret: string, hubUrl: string): Record<string, string> {
  const prefix = `DD_AUTH_OIDC_${id.toUpperCase()}`;
  return {
    [`${prefix}_DISCOVERY`]: discovery,
    [`${prefix}_CLIENTID`]: CLIENT_ID,
    [`${prefix}_CLIENTSECRET`]: secret,
    [`${prefix}_REDIRECT`]: CALLBACK(hubUrl, id),
  };
}

const BASE_ENV = { DD_STORE_DRIVER: 'memory', DD_LOCAL_WATCHER: 'false', DD_LOG_LEVEL: 'trace' };

interface ErrorAnswer {
  error: string;
  details?: Record<string, string>;
}

describe('OIDC sign-in (authorization code with PKCE) against a real OpenID provider', () => {
  let tls: TestCertificates;
  let provider: TestOidcProvider;
  let hub: HubProcess;
  let hubUrl: string;
  const browsers: TestBrowser[] = [];
  /** Every code, state and session id seen on the way: none may reach the hub's output. */
  const seen = new Set<string>();

  const newBrowser = () => {
    const browser = new TestBrowser(tls.ca);
    browsers.push(browser);
    return browser;
  };

  /** Starts a sign-in at the hub and walks the provider's pages up to the callback URL. */
  async function signInUpToCallback(browser: TestBrowser, id: string): Promise<{ callback: URL; authorize: URL }> {
    const redirect = await browser.request(`${hubUrl}/api/v1/auth/oidc/${id}/redirect`);
    expect(redirect.status).toBe(302);
    const authorize = new URL(redirect.headers.get('location') ?? '');
    const callback = new URL(await walkToCallback(browser, authorize.href, CALLBACK(hubUrl, id), TYPED));
    for (const name of ['code', 'state']) seen.add(callback.searchParams.get(name) ?? '');
    return { callback, authorize };
  }

  beforeAll(async () => {
    tls = await createTestCertificates();
    const port = await freePort();
    hubUrl = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({
      tls,
      client: {
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        redirectUris: [CALLBACK(hubUrl, 'corp'), CALLBACK(hubUrl, 'wrong')],
      },
      account: ACCOUNT,
    });
    const closedPort = await freePort();
    hub = await startHubProcess({
      ...BASE_ENV,
      DD_SERVER_PORT: String(port),
      // Node's own fetch trusts this CA besides the system ones; nothing else tells the hub about it.
      NODE_EXTRA_CA_CERTS: tls.caFile,
      ...oidcEnv('corp', provider.discoveryUrl, CLIENT_SECRET, hubUrl),
      ...oidcEnv('wrong', provider.discoveryUrl, WRONG_SECRET, hubUrl),
      ...oidcEnv('down', `https://127.0.0.1:${closedPort}/.well-known/openid-configuration`, CLIENT_SECRET, hubUrl),
    });
  }, 60_000);

  afterAll(async () => {
    await hub?.kill();
    for (const browser of browsers) await browser.close();
    await provider?.close();
    if (tls) await removeTestCertificates(tls);
  });

  it('lists the providers in /auth/status, with no error before any is used', async () => {
    const status = await (await fetch(`${hubUrl}/api/v1/auth/status`)).json();
    expect(status).toEqual({
      providers: [
        { type: 'oidc', name: 'corp' },
        { type: 'oidc', name: 'wrong' },
        { type: 'oidc', name: 'down' },
      ],
      errors: [],
    });
  });

  it('signs in through the provider and gets a session like a basic login', async () => {
    const browser = newBrowser();
    const { authorize, callback } = await signInUpToCallback(browser, 'corp');
    expect(authorize.origin + authorize.pathname).toBe(`${provider.issuer}/auth`);
    const query = Object.fromEntries(authorize.searchParams);
    expect(query).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: CALLBACK(hubUrl, 'corp'),
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(query[name]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(callback.searchParams.get('state')).toBe(query.state);
    expect(callback.searchParams.get('iss')).toBe(provider.issuer);

    const finished = await browser.request(callback.href);
    expect(finished.status).toBe(302);
    expect(finished.headers.get('location')).toBe('/');
    const sessionId = browser.cookie(hubUrl, 'dd.sid');
    expect(sessionId).toMatch(/^[a-f0-9]{64}$/);
    seen.add(sessionId ?? '');
    // The flow cookie served its one callback.
    expect(browser.cookie(hubUrl, 'dd.oidc')).toBeUndefined();

    const user = await browser.request(`${hubUrl}/api/v1/auth/user`);
    expect(await user.json()).toEqual({ username: ACCOUNT.preferredUsername, assurance: 'oidc' });

    // A protected route opens to the session, and stays closed without it.
    const audit = await browser.request(`${hubUrl}/api/v1/audit?action=auth-login`);
    expect(audit.status).toBe(200);
    const entries = ((await audit.json()) as { data: { status: string; details: string }[] }).data;
    expect(entries).toContainEqual(
      expect.objectContaining({
        status: 'success',
        details: expect.stringContaining('alice signed in with OIDC "corp"'),
      }),
    );
    expect((await fetch(`${hubUrl}/api/v1/audit`)).status).toBe(401);

    // The provider redeemed exactly this code with a PKCE verifier.
    expect(provider.issued.codes).toContain(callback.searchParams.get('code'));
    expect(provider.issued.codeVerifiers).toHaveLength(1);
    expect(provider.issued.idTokens).toHaveLength(1);
    // The provider keeps profile claims out of a code-flow ID token (Core §5.4), so the name came from userinfo.
    const idClaims = JSON.parse(Buffer.from(provider.issued.idTokens[0]?.split('.')[1] ?? '', 'base64url').toString());
    expect(idClaims).toMatchObject({ sub: ACCOUNT.sub, aud: CLIENT_ID, nonce: query.nonce });
    expect(idClaims.preferred_username).toBeUndefined();

    // Replaying the same callback, even with the flow cookie put back, finds the state spent.
    const replay = await browser.request(callback.href, {
      headers: { cookie: `dd.oidc=${callback.searchParams.get('state')}` },
    });
    expect(replay.status).toBe(401);
    const replayBody = (await replay.json()) as ErrorAnswer;
    expect(replayBody.details).toMatchObject({ provider: 'corp', reason: 'invalid-state' });
    expect(replay.headers.getSetCookie().some((line) => line.startsWith('dd.sid='))).toBe(false);
    expect(provider.issued.codes).toHaveLength(1);
  });

  it('shows the provider in the masked configuration, never its client secret', async () => {
    const browser = newBrowser();
    const { callback } = await signInUpToCallback(browser, 'corp');
    expect((await browser.request(callback.href)).status).toBe(302);
    const server = await browser.request(`${hubUrl}/api/v1/server`);
    expect(server.status).toBe(200);
    const text = await server.text();
    expect(text).toContain(`"clientId":"${CLIENT_ID}"`);
    expect(text).toContain('"clientSecret":"***"');
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain(WRONG_SECRET);
  });

  it('refuses a tampered state, and a callback from a browser that did not start the sign-in', async () => {
    const browser = newBrowser();
    const { callback } = await signInUpToCallback(browser, 'corp');
    const tampered = new URL(callback);
    tampered.searchParams.set('state', randomBytes(32).toString('base64url'));
    const refused = await browser.request(tampered.href);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as ErrorAnswer).details).toMatchObject({ reason: 'invalid-state' });

    // The genuine URL sent to another browser (login CSRF): it lacks the flow cookie.
    const victim = newBrowser();
    const foreign = await victim.request(callback.href);
    expect(foreign.status).toBe(401);
    const body = (await foreign.json()) as ErrorAnswer;
    expect(body.error).toContain('does not belong to this browser');
    expect(victim.cookie(hubUrl, 'dd.sid')).toBeUndefined();
    // …and the attempt spent the state, so the code can no longer be redeemed through the hub.
    expect((await browser.request(callback.href)).status).toBe(401);
  });

  it('refuses the sign-in when the configured client secret is wrong', async () => {
    const browser = newBrowser();
    const { callback } = await signInUpToCallback(browser, 'wrong');
    const refused = await browser.request(callback.href);
    expect(refused.status).toBe(401);
    const body = (await refused.json()) as ErrorAnswer;
    expect(body.details).toMatchObject({
      provider: 'wrong',
      reason: 'token-exchange',
      status: '401',
      error: 'invalid_client',
    });
    expect(browser.cookie(hubUrl, 'dd.sid')).toBeUndefined();
    expect((await browser.request(`${hubUrl}/api/v1/auth/user`)).status).toBe(401);
  });

  it('answers 503 when the discovery document cannot be fetched, reports it, and keeps serving', async () => {
    const answer = await fetch(`${hubUrl}/api/v1/auth/oidc/down/redirect`, { redirect: 'manual' });
    expect(answer.status).toBe(503);
    const body = (await answer.json()) as ErrorAnswer;
    expect(body.error).toContain('could not be fetched (ECONNREFUSED)');
    expect(body.details).toMatchObject({ provider: 'down', reason: 'discovery-unreachable' });
    const status = (await (await fetch(`${hubUrl}/api/v1/auth/status`)).json()) as { errors: string[] };
    expect(status.errors).toEqual([
      expect.stringContaining('OIDC provider "down": the discovery document could not be fetched'),
    ]);
    expect((await fetch(`${hubUrl}/health`)).status).toBe(200);
    expect((await fetch(`${hubUrl}/api/v1/auth/oidc/nobody/redirect`)).status).toBe(404);
  });

  it('writes failed sign-ins to the audit trail', async () => {
    const browser = newBrowser();
    const { callback } = await signInUpToCallback(browser, 'corp');
    expect((await browser.request(callback.href)).status).toBe(302);
    const audit = await browser.request(`${hubUrl}/api/v1/audit?action=auth-login`);
    const details = ((await audit.json()) as { data: { status: string; details: string }[] }).data
      .filter((entry) => entry.status === 'failed')
      .map((entry) => entry.details);
    expect(details).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/OIDC sign-in with "corp" failed from .*: invalid-state/),
        expect.stringMatching(/OIDC sign-in with "wrong" failed from .*: token-exchange/),
      ]),
    );
  });

  it('audits a flood of bogus callbacks at most once per address and reason a minute, so the trail is not rotated out', async () => {
    const browser = newBrowser();
    // Signed in, to read the audit trail.
    const { callback } = await signInUpToCallback(browser, 'corp');
    expect((await browser.request(callback.href)).status).toBe(302);
    const invalidStates = async () => {
      const audit = await browser.request(`${hubUrl}/api/v1/audit?action=auth-login&limit=200`);
      return ((await audit.json()) as { data: { status: string; details: string }[] }).data.filter(
        (entry) => entry.status === 'failed' && entry.details.endsWith('invalid-state'),
      ).length;
    };
    const before = await invalidStates();
    for (let i = 0; i < 20; i++) {
      const response = await browser.request(`${hubUrl}/api/v1/auth/oidc/corp/callback?code=x&state=bogus-${i}`);
      expect(response.status).toBe(401);
    }
    expect((await invalidStates()) - before).toBeLessThanOrEqual(1);
  });

  it('never writes the client secret, a code, a verifier, a token or a session id to its output', async () => {
    const { codes, codeVerifiers, accessTokens, idTokens } = provider.issued;
    expect(codeVerifiers.length).toBeGreaterThanOrEqual(3);
    expect(accessTokens.length).toBe(codeVerifiers.length);
    const secrets = [
      CLIENT_SECRET,
      WRONG_SECRET,
      ...codes,
      ...codeVerifiers,
      ...accessTokens,
      ...idTokens,
      ...seen,
    ].filter(Boolean);
    const output = [...hub.stdout, ...hub.stderr].join('\n');
    // The sign-ins did log (so the check reads real output).
    expect(output).toContain('"signed in"');
    expect(output).toContain('OIDC sign-in failed');
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});

describe('OIDC start-up and transport checks', () => {
  let tls: TestCertificates;
  let provider: TestOidcProvider;

  beforeAll(async () => {
    tls = await createTestCertificates();
    provider = await startOidcProvider({
      tls,
      client: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: ['http://127.0.0.1:1/cb'] },
      account: ACCOUNT,
    });
  });

  afterAll(async () => {
    await provider?.close();
    if (tls) await removeTestCertificates(tls);
  });

  it('refuses to start with an http discovery URL, naming the variable (exit 78)', async () => {
    const spawned = spawnHub({
      ...BASE_ENV,
      DD_SERVER_PORT: '0',
      ...oidcEnv('corp', 'http://127.0.0.1:9/.well-known/openid-configuration', CLIENT_SECRET, 'http://127.0.0.1:3000'),
    });
    expect(await spawned.exited).toBe(78);
    const stderr = spawned.stderr.join('\n');
    expect(stderr).toContain('DD_AUTH_OIDC_CORP_DISCOVERY');
    expect(stderr).toContain('http is refused');
    expect(stderr).not.toContain(CLIENT_SECRET);
  });

  it('does not trust the provider certificate without NODE_EXTRA_CA_CERTS', async () => {
    const hub = await startHubProcess({
      ...BASE_ENV,
      ...oidcEnv('corp', provider.discoveryUrl, CLIENT_SECRET, 'http://127.0.0.1:3000'),
    });
    try {
      const answer = await fetch(`${hub.url}/api/v1/auth/oidc/corp/redirect`, { redirect: 'manual' });
      expect(answer.status).toBe(503);
      const body = (await answer.json()) as ErrorAnswer;
      expect(body.details).toMatchObject({ reason: 'discovery-unreachable' });
      expect(body.error).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT/);
    } finally {
      await hub.kill();
    }
  });
});
