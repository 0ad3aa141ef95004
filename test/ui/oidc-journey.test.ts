/**
 * OpenID Connect sign-in as a person does it, in a real Chromium: the sign-in view offers one button
 * per provider from /api/v1/auth/status; the button goes to a real OpenID provider (the
 * `oidc-provider` package over HTTPS, its development login and consent forms); the provider sends
 * the browser back to the hub's callback, whose redirect to `/` lands in the app, signed in as the
 * provider's user. The hub runs as a process (NODE_EXTRA_CA_CERTS is how it trusts the test CA).
 */
import { createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import {
  createTestCertificates,
  removeTestCertificates,
  startOidcProvider,
  type TestCertificates,
  type TestOidcProvider,
} from '../support/oidc-provider';
import { type PageProblems, watchPage } from './ui-browser';

const CLIENT_ID = 'dockwatch-hub';
const CLIENT_SECRET = 'oidc-journey-client-secret';
const ACCOUNT = { sub: 'account-ui-1', preferredUsername: 'carol', email: 'carol@example.test' };

/** A port nobody listens on right now: the callback URL must be known before the hub starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let tls: TestCertificates;
let provider: TestOidcProvider;
let hub: HubProcess;
let hubUrl: string;
let browser: Browser;
let page: Page;
let seen: PageProblems;

beforeAll(async () => {
  tls = await createTestCertificates();
  const port = await freePort();
  hubUrl = `http://127.0.0.1:${port}`;
  const callback = `${hubUrl}/api/v1/auth/oidc/corp/callback`;
  provider = await startOidcProvider({
    tls,
    client: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [callback] },
    account: ACCOUNT,
  });
  hub = await startHubProcess({
    DD_STORE_DRIVER: 'memory',
    DD_LOCAL_WATCHER: 'false',
    DD_SERVER_PORT: String(port),
    NODE_EXTRA_CA_CERTS: tls.caFile,
    DD_AUTH_OIDC_CORP_DISCOVERY: provider.discoveryUrl,
    DD_AUTH_OIDC_CORP_CLIENTID: CLIENT_ID,
    DD_AUTH_OIDC_CORP_CLIENTSECRET: CLIENT_SECRET,
    DD_AUTH_OIDC_CORP_REDIRECT: callback,
  });
  browser = await launchChromium();
  // The provider's certificate is the test CA's, which Chromium does not know: trusted in this context only.
  page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
  // "Who am I" before signing in answers 401; the provider's own pages are not the hub's to judge.
  seen = watchPage(page, [
    /^401 GET \/api\/v1\/auth\/user$/,
    /^console: Failed to load resource: .* 401/,
    /@ https:\/\/127\.0\.0\.1:/,
    /^\d+ GET \/favicon\.ico$/,
    // The provider's development forms load a Google font, which this closed network cannot reach.
    /fonts\.googleapis\.com/,
    /^failed GET \/css: net::ERR_NAME_NOT_RESOLVED$/,
  ]);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await hub?.kill();
  await provider?.close();
  if (tls) await removeTestCertificates(tls);
});

describe('signing in with an OpenID provider', () => {
  it('goes from the provider button through the provider’s forms back into the app, signed in', async () => {
    await gotoSteady(page, `${hubUrl}/`);
    const button = page.getByRole('link', { name: 'Sign in with corp' });
    await button.waitFor();
    await button.click();

    // The provider's development interactions: a login form, then a consent form.
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.locator('input[name="login"]').fill(ACCOUNT.sub);
    await page.locator('input[name="password"]').fill('any password will do');
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.origin === provider.issuer && /\/interaction\//.test(url.pathname));
    await page.locator('button[type="submit"]').click();

    // The callback's redirect to `/` lands in the app: the dashboard, signed in as the provider's user.
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor({ timeout: 20_000 });
    expect(new URL(page.url()).pathname).toBe('/');
    const user = (await (await page.request.get(`${hubUrl}/api/v1/auth/user`)).json()) as Record<string, unknown>;
    expect(user).toMatchObject({ username: expect.stringMatching(/carol|account-ui-1/), assurance: 'oidc' });
    expect(seen.problems).toEqual([]);
  });
});
