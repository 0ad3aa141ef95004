/**
 * The images view in a real Chromium against the hub as `npm start` runs it, its local watcher on a
 * real dockerd: the list shows the daemon's images with what keeps each, the prune preview names
 * the unused and the dangling ones, the prune asks first (Cancel, then confirm), removes exactly
 * those (the daemon confirms) and leaves the one a container uses; axe on the view, no console error.
 * Last, a container started on the daemon appears in the open containers list without a reload.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';

let dockerd: TestDockerd;
let hub: HubOnDockerd;
let browser: Browser;
let page: Page;
let seen: PageProblems;
/** Image ids by role: `used` runs a container, `unused` is tagged and idle, `dangling` lost its tag. */
const ids: Record<'used' | 'unused' | 'dangling', string> = { used: '', unused: '', dangling: '' };

const rowOf = (id: string) => page.locator(`table.list tbody tr[data-image="${id}"]`);
const candidates = () => page.locator('.prune-candidates li');
const daemonImageIds = async () => (await dockerd.docker.listImages({ all: true })).map((image) => image.Id);

interface Focused {
  tag: string;
  text: string;
  /** The focus ring as drawn (`outline-style`): `none` would be focus nobody can see. */
  outline: string;
  inDialog: boolean;
}
const focused = () =>
  page.evaluate((): Focused => {
    const element = document.activeElement as HTMLElement | null;
    return {
      tag: element?.tagName ?? '',
      text: element?.textContent?.trim() ?? '',
      outline: element ? getComputedStyle(element).outlineStyle : 'none',
      inDialog: element?.closest('dialog') !== null,
    };
  });
/** Presses Tab until `wanted` holds (at most 40 times), checking that each stop's focus is visible. */
async function tabUntil(wanted: (focused: Focused) => boolean): Promise<Focused> {
  for (let presses = 0; presses < 40; presses++) {
    await page.keyboard.press('Tab');
    const now = await focused();
    expect(now.outline, `focus on ${now.tag} "${now.text}"`).not.toBe('none');
    if (wanted(now)) return now;
  }
  throw new Error('Tab never reached the wanted element');
}

beforeAll(async () => {
  dockerd = await startDockerd();
  // A rebuild: importing `ui/used:1.0` again moves the tag to the new build and leaves the first dangling (<none>).
  ids.dangling = await importBusyboxImage(dockerd.docker, {
    repository: 'ui/used',
    tag: '1.0',
    extraFile: { path: 'etc/build', content: 'first' },
  });
  ids.used = await importBusyboxImage(dockerd.docker, {
    repository: 'ui/used',
    tag: '1.0',
    extraFile: { path: 'etc/build', content: 'second' },
  });
  ids.unused = await importBusyboxImage(dockerd.docker, { repository: 'ui/unused', tag: '1.0' });
  await runContainer(dockerd.docker, { name: 'user-of-used', image: 'ui/used:1.0', cmd: ['sleep', '600'] });
  hub = await startHubOnDockerd(dockerd);
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  // A full navigation cuts the open event stream: that abort is the browser's, not a failure.
  seen = watchPage(page, [/^failed GET \/api\/v1\/events\/ui: net::ERR_ABORTED$/]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await dockerd?.stop();
});

describe('the images view on a real dockerd', () => {
  it('is in the navigation and lists the daemon’s images with what keeps each one', async () => {
    await gotoSteady(page, `${hub.url}/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Images' }).click();
    await page.getByRole('heading', { level: 1, name: 'Images' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/images');
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe((await daemonImageIds()).length);
    expect(await rowOf(ids.used).locator('td[data-label="Image"]').textContent()).toBe('ui/used:1.0');
    expect(await rowOf(ids.used).locator('td[data-label="Used by"]').textContent()).toBe('user-of-used');
    expect(await rowOf(ids.used).locator('td[data-label="Prune"]').textContent()).toBe('kept: a container uses it');
    expect(await rowOf(ids.used).locator('td[data-label="Host"]').textContent()).toBe('this hub (local)');
    expect(await rowOf(ids.unused).locator('td[data-label="Prune"]').textContent()).toBe('would be removed');
    expect(await rowOf(ids.dangling).locator('td[data-label="Image"]').textContent()).toBe('<none> (dangling)');
    expect(seen.problems).toEqual([]);
  });

  it('names the unused and the dangling image in the prune preview, and not the used one', async () => {
    await expect.poll(() => candidates().count()).toBe(2);
    const named = (await candidates().allTextContents()).join('\n');
    expect(named).toContain('ui/unused:1.0');
    expect(named).toContain(`<none> ${ids.dangling.slice('sha256:'.length, 'sha256:'.length + 12)}`);
    expect(named).not.toContain('ui/used');
    expect(
      await page
        .locator('.prune-candidates li[data-image]')
        .evaluateAll((items) => items.map((li) => li.getAttribute('data-image'))),
    ).toEqual(expect.arrayContaining([ids.unused, ids.dangling]));
  });

  it('is reachable and operable by keyboard alone, focus always visible', async () => {
    await gotoSteady(page, `${hub.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    // Tab from the top of the page to the Images link: every stop shows where focus is.
    const imagesLink = await tabUntil((focused) => focused.text === 'Images' && focused.tag === 'A');
    expect(imagesLink.outline).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Images' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/images');
    // The view takes focus, so the next Tab starts inside it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    const prune = await tabUntil((focused) => focused.text === 'Prune 2 images');
    expect(prune.outline).not.toBe('none');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Remove these images?' });
    await dialog.waitFor();
    const cancel = await focused();
    expect(cancel).toMatchObject({ text: 'Cancel', inDialog: true });
    expect(cancel.outline).not.toBe('none');
    // The page behind the modal dialog is inert: Shift+Tab reaches the dialog's other button, not the page.
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toMatchObject({ text: 'Prune the images', inDialog: true });
    expect((await focused()).outline).not.toBe('none');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Back where the person was (within a frame of the dialog leaving), and nothing was removed.
    await expect.poll(async () => (await focused()).text, { timeout: 2_000 }).toBe('Prune 2 images');
    expect(await daemonImageIds()).toEqual(expect.arrayContaining([ids.unused, ids.dangling]));
    expect(seen.problems).toEqual([]);
  });

  it('asks before pruning: Cancel keeps everything; confirming removes exactly the preview', async () => {
    const pruneButton = page.getByRole('button', { name: 'Prune 2 images' });
    await pruneButton.click();
    const dialog = page.getByRole('dialog', { name: 'Remove these images?' });
    await dialog.waitFor();
    // Focus starts on Cancel, so Enter does not destroy by accident.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await daemonImageIds()).toEqual(expect.arrayContaining([ids.unused, ids.dangling]));

    await pruneButton.click();
    const pruned = page.waitForRequest((request) => request.url().endsWith('/api/v1/images/prune'));
    await dialog.getByRole('button', { name: 'Prune the images' }).click();
    const request = await pruned;
    expect(request.headers()['x-dd-confirm-action']).toBe('image-prune');
    expect((request.postDataJSON() as { imageIds: string[] }).imageIds.sort()).toEqual(
      [ids.unused, ids.dangling].sort(),
    );
    await page.locator('.prune-result', { hasText: 'Removed 2 images' }).waitFor();

    // The daemon confirms: both are gone, the used one and its container are still there.
    const left = await daemonImageIds();
    expect(left).not.toContain(ids.unused);
    expect(left).not.toContain(ids.dangling);
    expect(left).toContain(ids.used);
    expect((await dockerd.docker.listContainers()).map((container) => container.Names[0])).toEqual(['/user-of-used']);
    // The view is read again: the list follows the daemon and nothing is left to prune.
    await expect.poll(() => rowOf(ids.unused).count()).toBe(0);
    await page.getByText('Nothing to prune').waitFor();
    expect(await page.locator('table.list tbody tr').count()).toBe(left.length);
    expect(seen.problems).toEqual([]);
  });

  it('has no serious or critical accessibility violation (light and dark)', { timeout: 60_000 }, async () => {
    await expectAccessible(browser, `${hub.url}/images`, 'table.list tbody tr');
  });
  it('shows a container started on the Docker host in the open list, without a reload', async () => {
    await gotoSteady(page, `${hub.url}/containers`);
    await page.getByText('user-of-used', { exact: true }).first().waitFor();
    let navigations = 0;
    page.on('framenavigated', () => {
      navigations += 1;
    });
    await runContainer(dockerd.docker, { name: 'started-later', image: 'ui/used:1.0', cmd: ['sleep', '600'] });
    // Docker's event → the hub's watcher → the UI event stream → the row: no poll, no navigation.
    await page.getByText('started-later', { exact: true }).first().waitFor({ timeout: 15_000 });
    expect(navigations).toBe(0);
    expect(seen.problems).toEqual([]);
  });
});
