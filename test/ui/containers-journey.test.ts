/**
 * Journey (a), in a real Chromium against a real hub over a socket: an anonymous hub whose
 * containers come from an edge agent peer. The list shows them, search filters, a changed, added
 * and removed container shows on screen without a reload or a refetch, a hostile name is text,
 * the detail and the dashboard open, and axe finds nothing serious on any view (light and dark).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type EdgePeer, sampleContainer, sampleImage, snapshotFrames, waitFor } from '../support/edge-peer';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { connectAgent, expectAccessible, type PageProblems, watchPage } from './ui-browser';

// On a closed loopback port: a registry check fails at once and never leaves the machine.
const IMAGE = '127.0.0.1:9/team/app:1.0.0';
const SCRIPT_NAME = '<script>alert(1)</script>';
const IMG_NAME = '"><img src=x onerror=alert(1)>';

let hub: HubClient;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: PageProblems;
let peer: EdgePeer;
const web = sampleContainer('web', { image: IMAGE, labels: { 'dd.watch': 'true', 'com.example.role': 'frontend' } });
const db = sampleContainer('db', { image: '127.0.0.1:9/library/postgres:16.2' });
const hostileScript = sampleContainer(SCRIPT_NAME, { image: IMAGE, labels: { note: IMG_NAME } });
const hostileImg = sampleContainer(IMG_NAME, { image: IMAGE });
const images = [sampleImage({ repoTags: [IMAGE] })];

const rows = () => page.locator('table.list tbody tr');
const rowOf = (id: string) => page.locator(`table.list tbody tr[data-id="${id}"]`);

beforeAll(async () => {
  hub = await createServerHub();
  ({ peer } = await connectAgent(hub, 'nas'));
  for (const frame of snapshotFrames('local', [web, db, hostileScript, hostileImg], images)) peer.send(frame);
  await waitFor(async () => {
    const page = (await (await hub.request('/api/v1/containers')).json()) as { total: number };
    return page.total === 4 ? true : undefined;
  });
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  // A full navigation (page.goto) cuts the open event stream: that abort is the browser's, not a failure.
  seen = watchPage(page, [/^failed GET \/api\/v1\/events\/ui: net::ERR_ABORTED$/]);
});

afterAll(async () => {
  await browser?.close();
  peer?.close();
  await hub?.close();
});

describe('the containers journey (anonymous hub, an agent feeding containers)', () => {
  it('lists the containers with their image, tag, host and status; hostile names render as text', async () => {
    await gotoSteady(page, `${hub.url}/containers`);
    await expect.poll(() => rows().count()).toBe(4);
    // The image without its registry host; the full reference on hover (issue 28 item 2).
    const image = rowOf(web.id).locator('td[data-label="Image"] .mono');
    await expect.poll(() => image.textContent()).toBe('team/app');
    expect(await image.getAttribute('title')).toBe('127.0.0.1:9/team/app:1.0.0');
    expect(await rowOf(web.id).locator('td[data-label="Tag"]').textContent()).toBe('1.0.0');
    expect(await rowOf(web.id).locator('td[data-label="Host"]').textContent()).toBe('nas (local)');
    expect(await rowOf(web.id).locator('td[data-label="Status"]').textContent()).toBe('running');
    expect(await rowOf(hostileScript.id).locator('td[data-label="Name"] a').textContent()).toBe(SCRIPT_NAME);
    expect(await rowOf(hostileImg.id).locator('td[data-label="Name"] a').textContent()).toBe(IMG_NAME);
    // Nothing was parsed as markup: no injected element exists, no dialog opened.
    expect(await page.locator('img[src="x"], tbody script').count()).toBe(0);
    expect(seen.problems).toEqual([]);
  });

  it('filters by free text over name and image, and by host', async () => {
    const search = page.getByLabel('Search');
    await search.fill('postgres');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().getAttribute('data-id')).toBe(db.id);
    await search.fill('WEB');
    await expect.poll(() => rows().count()).toBe(1);
    await search.fill('');
    await expect.poll(() => rows().count()).toBe(4);
    // The other filters are behind the filter bar's Filters button (issue 28 item 2).
    await page.getByRole('button', { name: /^Filters/ }).click();
    const host = page.getByRole('combobox', { name: 'Host' });
    await host.selectOption('-');
    await expect.poll(() => rows().count()).toBe(0);
    await host.selectOption('nas');
    await expect.poll(() => rows().count()).toBe(4);
    expect(page.url()).toContain('agent=nas');
    await host.selectOption('');
  });

  it('shows a change, an addition and a removal live: no reload, no refetch, no polling', async () => {
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'same page';
    });
    const callsBefore = seen.calls.length;
    peer.send({ type: 'container.changed', watcher: 'local', container: { ...db, state: 'exited' } });
    await expect.poll(() => rowOf(db.id).locator('td[data-label="Status"]').textContent()).toBe('exited');
    const cache = sampleContainer('cache', { image: IMAGE });
    peer.send({ type: 'container.changed', watcher: 'local', container: cache, image: images[0] });
    await expect.poll(() => rowOf(cache.id).count()).toBe(1);
    peer.send({ type: 'container.removed', watcher: 'local', containerId: cache.id });
    await expect.poll(() => rowOf(cache.id).count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
    // The agent-stats refresh is the only call a change may cause; the container list is never fetched again.
    expect(seen.calls.slice(callsBefore).filter((call) => call.startsWith('GET /api/v1/containers'))).toEqual([]);
    expect(seen.calls.filter((call) => call.startsWith('GET /api/v1/events/ui'))).toHaveLength(1);
  });

  it('opens the detail of a container by keyboard, with its versions, labels and actions', async () => {
    await rowOf(web.id).locator('a').focus();
    await page.keyboard.press('Enter');
    // 1280 px wide: the container opens beside the list (docs/ui.md "the side panel"), focus in it.
    await page
      .getByRole('complementary', { name: 'Container web' })
      .getByRole('heading', { level: 1, name: 'web' })
      .waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/containers?open=${web.id}`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('panel');
    expect(await page.locator('dd', { hasText: 'frontend' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Check now' }).isVisible()).toBe(true);
    // No update is pending, so there is nothing to update.
    expect(await page.getByRole('button', { name: /Update/ }).count()).toBe(0);
    peer.send({ type: 'container.changed', watcher: 'local', container: { ...web, state: 'paused' } });
    await expect.poll(() => page.locator('#panel .status').first().textContent()).toBe('paused');
    await gotoSteady(page, `${hub.url}/containers/${hostileScript.id}`);
    await page.getByRole('heading', { level: 1, name: SCRIPT_NAME }).waitFor();
    expect(await page.locator('dd', { hasText: IMG_NAME }).count()).toBe(1);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  });

  it('shows the fleet on the dashboard', async () => {
    await gotoSteady(page, `${hub.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await expect
      .poll(() => page.locator('.stat', { hasText: 'Agents connected' }).locator('.stat-value').textContent())
      .toBe('1 of 1');
    // The counts come from the live list, which may still be loading its pages when the agents show.
    await expect
      .poll(() =>
        page
          .locator('.stat', { hasText: /^\d+Containers$/ })
          .locator('.stat-value')
          .textContent(),
      )
      .toBe('4');
    // Updates by maturity link to the list filtered by each level; the bell answers from the hub.
    const maturity = page.locator('section[aria-labelledby="by-maturity"]');
    expect(await maturity.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([
      '/containers?maturity=hot',
      '/containers?maturity=mature',
      '/containers?maturity=established',
    ]);
    const bell = page.locator('section[aria-labelledby="bell"]');
    await bell.getByRole('heading', { name: /^Notifications/ }).waitFor();
    await expect.poll(() => bell.locator('p, li').count()).toBeGreaterThan(0);
    expect(seen.problems).toEqual([]);
  });

  // Six axe runs (three views, two themes): each takes seconds on a busy two-core machine.
  it('has no serious or critical accessibility violation on any view', { timeout: 90_000 }, async () => {
    await expectAccessible(browser, `${hub.url}/`, 'h1');
    await expectAccessible(browser, `${hub.url}/containers`, 'table.list tbody tr');
    await expectAccessible(browser, `${hub.url}/containers/${web.id}`, 'h1:text("web")');
  });
});
