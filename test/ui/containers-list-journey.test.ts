/**
 * Issue 28 item 2, the containers list, in a real Chromium against a real hub (memory store, a
 * signed-in person, container records put in its store, an icon set on 127.0.0.1): each row has
 * the icon through the hub's proxy (the letter when the set has none, in the same box), the
 * display name, the image without its registry host (the full reference on hover and copied), the
 * `current → candidate` chip with its kind in words, the candidate's age and its release link; the
 * row menu opens the update preview where a Docker action trigger covers the container (and says
 * why not elsewhere), skips a version and snoozes, as the API then shows; the columns chosen survive a reload
 * from the synced preferences alone; filters show as removable chips and an empty result names
 * them, with a button to clear them; an update's temporary `-old-` container is one row; on a phone
 * the first row starts within 250 px of the top; axe at 390 and 1440 px, light and dark.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { PASSWORD, phc } from '../security/auth-fixtures';
import { gotoSteady, launchChromium, reloadSteady } from '../support/chromium';
import { containerRecord } from '../support/container-fixture';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { type IconServer, startIconServer } from '../support/icon-server';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';

const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>';
const DAY = 86_400_000;
const now = Date.now();

let hub: HubClient;
let icons: IconServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: PageProblems;

let serial = 0;
/** A record on a registry host that is never asked (the hub's watcher has no schedule here). */
function record(name: string, over: Partial<Container> = {}): Container {
  serial += 1;
  const base = containerRecord({ id: `${serial.toString(16).padStart(4, '0')}`.padEnd(64, 'c'), name });
  return {
    ...base,
    image: { ...base.image, registry: { url: '127.0.0.1:9' }, name: `team/${name}` },
    ...over,
  };
}
const pending = (from: string, to: string, semverDiff: 'major' | 'minor' | 'patch', published: number) => ({
  updateAvailable: true,
  updateKind: { kind: 'tag' as const, localValue: from, remoteValue: to, semverDiff },
  result: { tag: to, publishedAt: new Date(published).toISOString() },
});

const web = record('web', {
  displayName: 'Web front',
  displayIcon: 'sh:web',
  ...pending('1.0.0', '2.0.0', 'major', now - 3 * DAY - 60_000),
  result: {
    tag: '2.0.0',
    publishedAt: new Date(now - 3 * DAY - 60_000).toISOString(),
    link: 'https://forge.example/team/web/releases/2.0.0',
  },
});
const api = record('api', { displayIcon: 'sh:missing', ...pending('1.0.0', '1.1.0', 'minor', now - 5 * 3_600_000) });
const db = record('db', { ...pending('16.2.0', '16.2.1', 'patch', now - 40 * DAY) });
db.image = { ...db.image, tag: { value: '16.2.0', semver: true } };
const cache = record('cache', { status: 'exited' });
// An update of `worker` under way: the old one renamed, the new one created (docs/updates.md).
const workerOld = record('worker-old-1767225600000', { createdAt: '2026-01-01T00:00:00.000Z' });
const worker = record('worker', { createdAt: '2026-01-02T00:00:00.000Z' });
// Renamed, the new one not created yet: it stands for `queue`.
const queueOld = record('queue-old-1767225600000', { status: 'exited' });
// On a watcher the Docker action trigger does not cover: its menu says why it offers no Update….
const edgebox = record('edgebox', { watcher: 'remote', ...pending('1.0.0', '1.0.1', 'patch', now - DAY) });
const RECORDS = [web, api, db, cache, workerOld, worker, queueOld, edgebox];

const rows = () => page.locator('table.list tbody tr[data-id]');
const rowOf = (c: Container) => page.locator(`table.list tbody tr[data-id="${c.id}"]`);
const shownNames = () => page.locator('table.list tbody tr[data-id] td[data-label="Name"] a').allTextContents();
const headers = () => page.locator('table.list thead th').allTextContents();
const served = async (c: Container): Promise<Container> =>
  (await (await page.request.get(`${hub.url}/api/v1/containers/${c.id}`)).json()) as Container;

beforeAll(async () => {
  icons = await startIconServer();
  icons.serve('/selfhst/svg/web.svg', { contentType: 'image/svg+xml', body: ICON_SVG });
  hub = await createServerHub({
    DD_AUTH_BASIC_BOB_USER: 'bob',
    DD_AUTH_BASIC_BOB_HASH: phc(PASSWORD),
    DD_ICONS_SELFHST_URL: `${icons.url}/selfhst`,
    // A Docker action trigger for the `local` watcher only (no Docker here: the preview reads, nothing runs).
    DD_ACTION_DOCKER_UPDATE_WATCHER: 'local',
  });
  if (!hub.url) throw new Error('the hub must listen');
  for (const c of RECORDS) await hub.hub.parts.containers.put(c);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: hub.url });
  // The context's request shares its cookies: the page is signed in as bob.
  const login = await context.request.post(`${hub.url}/api/v1/auth/login`, {
    data: { username: 'bob', password: PASSWORD },
  });
  expect(login.status()).toBe(200);
  page = await context.newPage();
  seen = watchPage(page, [
    // The icon the set does not have: the hub answers 404 and the row shows the letter instead.
    /^404 GET \/api\/v1\/icons\/selfhst\/missing$/,
    /^console: Failed to load resource: the server responded with a status of 404 .*\/icons\/selfhst\/missing/,
    /^failed GET \/api\/v1\/events\/ui: net::ERR_ABORTED$/,
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await icons?.close();
});

describe('the containers list (issue 28 item 2)', () => {
  it('shows the icon or its letter in the same box, the display name and the short image', async () => {
    await gotoSteady(page, `${hub.url}/containers`);
    await expect.poll(() => rows().count()).toBe(7);
    const icon = rowOf(web).locator('img.container-icon');
    expect(await icon.getAttribute('src')).toBe('/api/v1/icons/selfhst/web');
    await expect.poll(() => icon.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    // The set has no `missing`: the image fails and the letter takes its place, at the same size.
    const letter = rowOf(api).locator('.container-icon.fallback');
    await expect.poll(() => letter.textContent()).toBe('A');
    expect(await rowOf(db).locator('.container-icon.fallback').textContent()).toBe('D');
    const box = async (locator: typeof icon) => {
      const found = await locator.boundingBox();
      return [Math.round(found?.width ?? 0), Math.round(found?.height ?? 0)];
    };
    expect(await box(letter)).toEqual(await box(icon));
    // Every row one height, whether its icon loaded or fell back (the first shares its top border
    // with the header in the collapsed table: half a pixel less).
    const heights = await rows().evaluateAll((all) => all.map((row) => row.getBoundingClientRect().height));
    expect(Math.max(...heights) - Math.min(...heights), `row heights ${heights}`).toBeLessThanOrEqual(0.5);

    const name = rowOf(web).locator('td[data-label="Name"]');
    expect(await name.locator('a').textContent()).toBe('Web front');
    expect(await name.locator('.hint').textContent()).toBe(' web');
    expect(await rowOf(db).locator('td[data-label="Name"] a').textContent()).toBe('db');

    const image = rowOf(web).locator('td[data-label="Image"] .mono');
    expect(await image.textContent()).toBe('team/web');
    expect(await image.getAttribute('title')).toBe('127.0.0.1:9/team/web:1.0.0');
    await rowOf(web).getByRole('button', { name: 'Copy the image of Web front' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('127.0.0.1:9/team/web:1.0.0');
    expect(seen.problems).toEqual([]);
  });

  it('shows the version chip with its kind in words, the candidate’s age and its release link', async () => {
    const chip = (c: Container) => rowOf(c).locator('[data-field="version-chip"]');
    expect(await chip(web).textContent()).toBe('major 1.0.0 → 2.0.0');
    expect(await chip(api).textContent()).toBe('minor 1.0.0 → 1.1.0');
    expect(await chip(db).textContent()).toBe('patch 16.2.0 → 16.2.1');
    expect(await chip(web).getAttribute('class')).toContain('major');
    expect(await rowOf(cache).locator('td[data-label="Update"]').textContent()).toBe('up to date');
    expect(await rowOf(web).locator('td[data-label="Published"]').textContent()).toBe('3 days');
    expect(await rowOf(api).locator('td[data-label="Published"]').textContent()).toBe('5 hours');
    expect(await rowOf(db).locator('td[data-label="Published"]').textContent()).toBe('40 days');
    const release = rowOf(web).locator('td[data-label="Release"] a');
    expect(await release.textContent()).toBe('Release 2.0.0');
    expect(await release.getAttribute('href')).toBe('https://forge.example/team/web/releases/2.0.0');
    expect(await release.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await rowOf(db).locator('td[data-label="Release"]').textContent()).toBe('—');
  });

  it('shows a container being re-created by an update once, as the container being updated', async () => {
    const names = await shownNames();
    expect(names.filter((name) => name === 'worker')).toHaveLength(1);
    expect(names.filter((name) => name === 'queue')).toHaveLength(1);
    expect(names.some((name) => name.includes('-old-'))).toBe(false);
    expect(await rowOf(workerOld).count()).toBe(0);
    expect(await page.locator('main p.hint').first().textContent()).toBe('7 of 7 containers');
  });

  it('opens the update preview from the row menu, says why where none runs, skips a version and snoozes', async () => {
    // Update… opens the dashboard's preview in a dialog; Cancel closes it, nothing started.
    await page.getByRole('button', { name: 'Actions for Web front' }).click();
    const menu = page.locator(`#row-menu-${web.id}`);
    await menu.getByRole('button', { name: 'Update…' }).click();
    const preview = page.getByRole('dialog', { name: 'Update Web front' });
    await preview.getByRole('button', { name: 'Start the update' }).waitFor();
    await preview.getByRole('button', { name: 'Cancel' }).click();
    await preview.waitFor({ state: 'detached' });
    expect(seen.calls.some((call) => call.startsWith(`POST /api/v1/containers/${web.id}/update`))).toBe(false);
    // No Docker action trigger covers `remote`: no Update… item, a sentence instead.
    await page.getByRole('button', { name: 'Actions for edgebox' }).click();
    const elsewhere = page.locator(`#row-menu-${edgebox.id}`);
    await expect.poll(() => elsewhere.textContent()).toContain('no Docker action trigger');
    expect(await elsewhere.getByRole('button', { name: 'Update…' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Actions for Web front' }).click();
    await menu.getByRole('button', { name: 'Skip this version' }).click();
    await expect.poll(() => rowOf(web).locator('[data-field="held"]').textContent()).toBe(' skipped');
    expect((await served(web)).updatePolicy.skipTags).toEqual(['2.0.0']);
    expect(await page.getByRole('status').filter({ hasText: 'this version is skipped' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Actions for api' }).click();
    await page.locator(`#row-menu-${api.id}`).getByRole('button', { name: 'Snooze…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Snooze api' });
    await dialog.waitFor();
    await dialog.getByLabel('Snooze for (days)').fill('3');
    await dialog.getByRole('button', { name: 'Snooze', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => rowOf(api).locator('[data-field="held"]').textContent()).toBe(' snoozed');
    const until = Date.parse((await served(api)).updatePolicy.snoozeUntil ?? '');
    expect(Math.abs(until - (Date.now() + 3 * DAY))).toBeLessThan(5 * 60_000);
    // The menu now offers to take the snooze back.
    await page.getByRole('button', { name: 'Actions for api' }).click();
    expect(await page.locator(`#row-menu-${api.id}`).getByRole('button', { name: 'Unsnooze' }).count()).toBe(1);
    await page.keyboard.press('Escape');
    expect(seen.problems).toEqual([]);
  });

  it('keeps the columns a person chose in their synced preferences, across a reload', async () => {
    expect(await headers()).toEqual([
      '',
      'Name',
      'Image',
      'Tag',
      'Update',
      'Published',
      'Release',
      'Host',
      'Status',
      'Actions',
    ]);
    await page.getByRole('button', { name: 'Columns' }).click();
    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/preferences') && r.request().method() === 'PATCH',
    );
    await page.getByRole('checkbox', { name: 'Tag' }).uncheck();
    expect((await saved).status()).toBe(200);
    const savedAgain = page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/preferences') && r.request().method() === 'PATCH',
    );
    await page.getByRole('checkbox', { name: 'Host' }).uncheck();
    await savedAgain;
    await page.keyboard.press('Escape');
    expect(await headers()).toEqual(['', 'Name', 'Image', 'Update', 'Published', 'Release', 'Status', 'Actions']);
    expect(await rowOf(web).locator('td[data-label="Tag"]').count()).toBe(0);
    const preferences = (await (await page.request.get(`${hub.url}/api/v1/preferences`)).json()) as Record<
      string,
      unknown
    >;
    expect(preferences['containerColumns']).toEqual(['image', 'update', 'published', 'release', 'status']);
    // This browser's copy gone: what comes back is the synced choice.
    await page.evaluate(() => localStorage.clear());
    await reloadSteady(page);
    await expect.poll(() => rows().count()).toBe(7);
    await expect.poll(headers).toEqual(['', 'Name', 'Image', 'Update', 'Published', 'Release', 'Status', 'Actions']);
    // Back to every column, for the views below.
    await page.getByRole('button', { name: 'Columns' }).click();
    await page.getByRole('checkbox', { name: 'Tag' }).check();
    await page.getByRole('checkbox', { name: 'Host' }).check();
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await headers()).length).toBe(10);
  });

  it('shows the filters as removable chips, and names those that emptied the list', async () => {
    await page.getByLabel('Search').fill('web');
    await expect.poll(() => rows().count()).toBe(1);
    await page.getByRole('button', { name: /^Filters/ }).click();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('exited');
    await expect.poll(() => rows().count()).toBe(0);
    const chips = page.locator('.filter-chip');
    expect(await chips.allTextContents()).toEqual(['Name or image: “web”✕', 'Status: exited✕']);
    const empty = page.locator('[data-field="empty-result"]');
    expect(await empty.locator('p').textContent()).toBe(
      'No container matches Name or image: “web” and Status: exited.',
    );
    await page.getByRole('button', { name: 'Remove the filter Name or image: “web”' }).click();
    await expect.poll(() => rows().count()).toBe(2);
    expect(await shownNames()).toEqual(['cache', 'queue']);
    expect(new URL(page.url()).searchParams.get('q')).toBeNull();
    await page.getByLabel('Search').fill('nothing-like-it');
    await expect
      .poll(() => empty.locator('p').textContent())
      .toBe('No container matches Name or image: “nothing-like-it” and Status: exited.');
    await empty.getByRole('button', { name: 'Clear the filters' }).click();
    await expect.poll(() => rows().count()).toBe(7);
    expect(new URL(page.url()).search).toBe('');
    expect(await chips.count()).toBe(0);
    expect(seen.problems).toEqual([]);
  });

  it('starts the first row within 250 px of the top on a phone', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const small = await phone.newPage();
      const problems = watchPage(small, [
        /^404 GET \/api\/v1\/icons\/selfhst\/missing$/,
        /^console: Failed to load resource: the server responded with a status of 404 .*\/icons\/selfhst\/missing/,
      ]);
      await gotoSteady(small, `${hub.url}/containers`);
      const first = small.locator('table.list tbody tr[data-id]').first();
      await first.waitFor();
      expect((await first.boundingBox())?.y).toBeLessThanOrEqual(250);
      // The filters other than the search wait behind one button.
      expect(await small.getByRole('combobox', { name: 'Status' }).isVisible()).toBe(false);
      expect(await small.getByRole('button', { name: /^Filters/ }).isVisible()).toBe(true);
      expect(problems.problems).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('has no serious or critical accessibility violation at 390 and 1440 px, light and dark', async () => {
    const storageState = await context.storageState();
    for (const width of [390, 1440]) {
      await expectAccessible(browser, `${hub.url}/containers`, 'table.list tbody tr[data-id]', {
        storageState,
        viewport: { width, height: 900 },
      });
      await expectAccessible(browser, `${hub.url}/containers?q=nothing-like-it`, '[data-field="empty-result"]', {
        storageState,
        viewport: { width, height: 900 },
      });
    }
  }, 120_000);
});
