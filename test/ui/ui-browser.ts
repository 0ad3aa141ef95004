import { createRequire } from 'node:module';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import { gotoSteady } from '../support/chromium';
import type { EdgeIdentity, EdgePeer } from '../support/edge-peer';
import { newEdgeIdentity, sampleWatcher, signedInPeer } from '../support/edge-peer';
import { type HubClient, jsonInit } from '../support/hub-harness';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface PageProblems {
  /** Console errors, failed requests and unexpected >= 400 answers, as readable lines. */
  problems: string[];
  /** API calls the page made, by method and path (to tell live updates from refetches). */
  calls: string[];
}

/**
 * Records everything that went wrong on a page: a journey fails on any console error, failed
 * request or error answer it did not expect (`expected` matches "STATUS METHOD PATH" or a console text).
 */
export function watchPage(page: Page, expected: RegExp[] = []): PageProblems {
  const seen: PageProblems = { problems: [], calls: [] };
  // A read still in flight when the test navigates (page.goto) is cancelled by the browser with
  // ERR_ABORTED: nothing a person would see go wrong (seen once in CI for GET /api/v1/agents).
  // The same holds for the page's own static assets (the icon) cut by a navigation (seen once in CI).
  const readCancelledByNavigation = /^failed GET \/(api\/v1|assets)\/[^\s:]*: net::ERR_ABORTED$/;
  // Chromium cuts the requests in flight with ERR_NETWORK_CHANGED when the machine's interfaces
  // change: another test file's dockerd or podman adding a bridge or a container's veth (three
  // files run at once). A read is polled again; a write cut so is still a problem, as is the
  // console line of a request that is not the API's.
  const readCutByNetworkChange = /^failed GET \/(api\/v1|assets)\/[^\s:]*: net::ERR_NETWORK_CHANGED$/;
  const consoleOfNetworkChange =
    /^console: Failed to load resource: net::ERR_NETWORK_CHANGED @ http:\/\/127\.0\.0\.1:\d+\/(api\/v1|assets)\//;
  const allowed = (line: string) =>
    readCancelledByNavigation.test(line) ||
    readCutByNetworkChange.test(line) ||
    consoleOfNetworkChange.test(line) ||
    expected.some((pattern) => pattern.test(line));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const line = `console: ${message.text()} @ ${message.location().url}`;
    if (!allowed(line)) seen.problems.push(line);
  });
  page.on('pageerror', (error) => seen.problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    seen.problems.push(`dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('requestfailed', (request) => {
    const line = `failed ${request.method()} ${new URL(request.url()).pathname}: ${request.failure()?.errorText}`;
    if (!allowed(line)) seen.problems.push(line);
  });
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) seen.calls.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const line = `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`;
    if (!allowed(line)) seen.problems.push(line);
  });
  return seen;
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

/**
 * axe-core on one view, in light and dark: injected in a context that bypasses the page's CSP
 * (the real page refuses inline and foreign scripts), with the journey's cookies. The view is
 * loaded once and its colour scheme switched in place (the stylesheet follows
 * prefers-color-scheme live): a second context and load cost Chromium more than axe itself.
 */
export async function expectAccessible(
  browser: Browser,
  url: string,
  ready: string,
  options: BrowserContextOptions = {},
): Promise<void> {
  const context = await browser.newContext({ ...options, bypassCSP: true, colorScheme: 'light' });
  try {
    const page = await context.newPage();
    await gotoSteady(page, url);
    await page.locator(ready).first().waitFor();
    await page.addScriptTag({ path: AXE_PATH });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.waitForFunction((scheme) => matchMedia(`(prefers-color-scheme: ${scheme})`).matches, colorScheme);
      const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as AxeResult;
      const serious = result.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map(
          (violation) =>
            `${violation.impact} ${violation.id}: ${violation.help} at ${JSON.stringify(violation.nodes.map((n) => n.target))}`,
        );
      expect(serious, `${url} (${colorScheme})`).toEqual([]);
    }
  } finally {
    await context.close();
  }
}

/** An edge agent peer signed in to the hub (its key registered first), answering the hub's pings. */
export async function connectAgent(
  hub: HubClient,
  name: string,
  identity?: EdgeIdentity,
): Promise<{ peer: EdgePeer; identity: EdgeIdentity }> {
  const id = identity ?? (await newEdgeIdentity());
  const registered = await hub.request(
    '/api/v1/edge/keys',
    jsonInit('POST', { publicKey: id.publicKeyBase64, label: name }),
  );
  expect(registered.status).toBe(201);
  if (!hub.url) throw new Error('the hub must listen');
  // watchAll: stopped containers stay listed, so a status change shows as one.
  const peer = await signedInPeer(hub.url, id, name, { watchers: [sampleWatcher({ watchAll: true })] });
  peer.ws.on('message', (data) => {
    if (JSON.parse(data.toString()).type === 'ping') peer.send({ type: 'pong' });
  });
  return { peer, identity: id };
}

/**
 * Follows a link of the main navigation as a person does: the hub's administration (Settings,
 * Audit log…) sits behind the "Manage" button at desktop widths, opened first when the link is hidden.
 */
export async function followNavLink(page: Page, name: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const link = nav.getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) await nav.getByRole('button', { name: 'Manage' }).click();
  await link.click();
}
