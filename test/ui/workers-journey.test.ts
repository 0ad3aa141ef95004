/**
 * The journey under workerd (issue 13: "one journey runs against the hub under workerd"): the
 * Worker bundle (the UI built in) in Miniflare (`startWorkersHub`), listening on a real loopback
 * port so a real Chromium can open it. The page loads under the strict CSP; a basic user signs in
 * with a password and a TOTP code; the person registers an edge agent's key in the agents view; the
 * agent peer signs in over a real WebSocket and its containers appear in the list live, without a
 * reload; a change on the agent shows too; the agents view shows it connected; axe on both views;
 * no console error, no failed request.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, phc, TOTP_SECRET, totp } from '../security/auth-fixtures';
import { gotoSteady, launchChromium } from '../support/chromium';
import {
  type EdgeIdentity,
  type EdgePeer,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  signedInPeer,
  snapshotFrames,
} from '../support/edge-peer';
import { startWorkersHub, type WorkersHub } from '../support/workers-hub';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';

// On a closed loopback port: nothing is ever looked up beyond this machine.
const IMAGE = '127.0.0.1:9/team/app:1.0.0';

let mf: WorkersHub;
/** The hub's origin: workerd's own listener on 127.0.0.1 and a port it picked. */
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: PageProblems;
let identity: EdgeIdentity;
let peer: EdgePeer | undefined;
const web = sampleContainer('web', { image: IMAGE });
const db = sampleContainer('db', { image: '127.0.0.1:9/library/postgres:16.2' });

const rows = () => page.locator('table.list tbody tr');
const rowOf = (id: string) => page.locator(`table.list tbody tr[data-id="${id}"]`);
const nav = () => page.getByRole('navigation', { name: 'Main' });

beforeAll(async () => {
  mf = await startWorkersHub({
    // A real HTTP listener, loopback only, on a free port: a browser needs one (dispatchFetch is not a socket).
    listen: true,
    vars: {
      DD_LOG_LEVEL: 'warn',
      DD_AUTH_BASIC_BOB_USER: 'bob',
      DD_AUTH_BASIC_BOB_HASH: phc(PASSWORD),
      DD_AUTH_BASIC_BOB_TOTP: TOTP_SECRET,
    },
  });
  const url = new URL(mf.url);
  expect(url.hostname).toBe('127.0.0.1');
  origin = url.origin;
  identity = await newEdgeIdentity();
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  seen = watchPage(page, [
    // "Who am I" before signing in answers 401: that is how the page knows to show the form.
    /^401 GET \/api\/v1\/auth\/user$/,
    /^console: Failed to load resource: .* 401/,
    // A full navigation cuts the open event stream: that abort is the browser's, not a failure.
    /^failed GET \/api\/v1\/events\/ui: net::ERR_ABORTED$/,
  ]);
}, 120_000);

afterAll(async () => {
  peer?.close();
  await browser?.close();
  await mf?.dispose();
});

describe('a journey against the hub under workerd', () => {
  it('loads the page under the strict CSP and signs in with a password and a TOTP code', async () => {
    const response = await gotoSteady(page, `${origin}/containers`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Sign in to dockwatch' }).waitFor();
    await page.getByLabel('Username').fill('bob');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel(/Two-factor/).fill(totp(Date.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Containers' }).waitFor();
    expect(await page.locator('.user').textContent()).toContain('bob');
    expect(seen.problems).toEqual([]);
  });

  it('registers the agent’s key in the agents view', async () => {
    await nav().getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    await page.getByLabel('Public key').fill(identity.publicKeyBase64);
    await page.getByLabel('Name').fill('nas key');
    await page.getByRole('button', { name: 'Register the key' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `as ${identity.keyId}` })
      .waitFor();
    expect(await page.locator(`tr[data-key="${identity.keyId}"] td[data-label="Name"]`).textContent()).toBe('nas key');
  });

  it('shows the agent’s containers live, without a reload or a refetch, once it connects', async () => {
    await nav().getByRole('link', { name: 'Containers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Containers' }).waitFor();
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'same page';
    });
    expect(await rows().count()).toBe(0);
    const callsBefore = seen.calls.length;
    // The real edge protocol over a real WebSocket to workerd's listener.
    peer = await signedInPeer(origin, identity, 'nas', { watchers: [sampleWatcher({ watchAll: true })] });
    const connected = peer;
    connected.ws.on('message', (data) => {
      if (JSON.parse(data.toString()).type === 'ping') connected.send({ type: 'pong' });
    });
    for (const frame of snapshotFrames('local', [web, db], [sampleImage({ repoTags: [IMAGE] })])) connected.send(frame);
    await expect.poll(() => rows().count(), { timeout: 15_000 }).toBe(2);
    expect(await rowOf(web.id).locator('td[data-label="Host"]').textContent()).toBe('nas (local)');
    expect(await rowOf(db.id).locator('td[data-label="Status"]').textContent()).toBe('running');
    connected.send({ type: 'container.changed', watcher: 'local', container: { ...db, state: 'exited' } });
    await expect.poll(() => rowOf(db.id).locator('td[data-label="Status"]').textContent()).toBe('exited');
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
    // Live from the one event stream: the container list is never fetched again.
    expect(seen.calls.slice(callsBefore).filter((call) => call.startsWith('GET /api/v1/containers'))).toEqual([]);
    expect(seen.calls.filter((call) => call.startsWith('GET /api/v1/events/ui'))).toHaveLength(1);
    expect(seen.problems).toEqual([]);
  });

  it('lists the agent as connected in the agents view', async () => {
    await nav().getByRole('link', { name: 'Agents' }).click();
    const row = page.locator('tr[data-agent="nas"]');
    await expect.poll(() => row.locator('td[data-label="State"]').textContent()).toBe(' connected');
    expect(await row.locator('td[data-label="Mode"]').textContent()).toBe('edge (dials out)');
    await expect.poll(() => row.locator('td[data-label="Containers"]').textContent()).toBe('2 (1 running, 1 stopped)');
    expect(await page.locator(`tr[data-key="${identity.keyId}"] td[data-label="Agents"]`).textContent()).toBe('nas');
    expect(seen.problems).toEqual([]);
  });

  it('has no serious or critical accessibility violation (light and dark)', { timeout: 90_000 }, async () => {
    const storageState = await context.storageState();
    await expectAccessible(browser, `${origin}/containers`, 'table.list tbody tr', { storageState });
    await expectAccessible(browser, `${origin}/agents`, 'tr[data-agent="nas"]', { storageState });
  });
});
