/**
 * The defects of issue 28 (item 8) that need a real Docker host, in a real Chromium against the hub
 * on a real dockerd and registry (anonymous, a Docker action trigger):
 * - "Check now" on an up-to-date container says it is up to date (it showed nothing);
 * - snooze −3, 0.5 and 99999 get an error in words beside the field and send nothing (the button
 *   was greyed out silently, and 99999 failed with "Invalid request body"); a right number snoozes;
 * - the bulk panel's dialog says what the hub does (several at once) and its final state counts
 *   what happened ("2 updated", not "2 of 2 queued" after both succeeded);
 * - a container's log shows ANSI colours as classes (no inline style under the CSP), JSON lines
 *   pretty-printed, and a search;
 * - no word breaks mid-word in the detail page's tables at 1440 or 390 px;
 * and axe finds nothing serious on the detail page with its coloured log, light and dark.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';
import { brokenWords } from './word-breaks';

// Printed by the talker: a red word and a bold green one (SGR), then a JSON line.
const ANSI_LINE = String.raw`\033[31mred alert\033[0m then \033[1;32mall good\033[0m`;
const JSON_LINE = '{"level":"info","msg":"listening","port":8080}';

let dockerd: TestDockerd;
let registry: TestRegistry;
let hub: HubOnDockerd;
let browser: Browser;
let page: Page;
let seen: PageProblems;
const ids: Record<string, string> = {};

const byName = async (name: string): Promise<Container | undefined> =>
  (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);

beforeAll(async () => {
  [dockerd, registry] = await Promise.all([startDockerd(), startRegistry({ variant: 'plain' })]);
  const from = await publishApp(dockerd, registry, { repository: 'defects/app', tag: '1.0.0', kind: 'http' });
  await publishApp(dockerd, registry, { repository: 'defects/app', tag: '2.0.0', kind: 'http' });
  const stable = await publishApp(dockerd, registry, { repository: 'defects/stable', tag: '1.0.0', kind: 'http' });
  await Promise.all([pullApp(dockerd, from), pullApp(dockerd, stable)]);
  ids['one'] = await startWatchedApp(dockerd, 'one', from);
  ids['two'] = await startWatchedApp(dockerd, 'two', from);
  ids['stable'] = await startWatchedApp(dockerd, 'stable', stable);
  const talker = await dockerd.docker.createContainer({
    name: 'talker',
    Image: from,
    Cmd: ['sh', '-c', `printf '${ANSI_LINE}\\n'; echo '${JSON_LINE}'; echo 'plain line'; while true; do sleep 1; done`],
    StopTimeout: 1,
    NetworkDisabled: true,
    HostConfig: { Init: true, NetworkMode: 'none' },
  });
  await talker.start();
  ids['talker'] = talker.id;
  hub = await startHubOnDockerd(dockerd, { DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15' });
  expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  expect(await byName('one')).toMatchObject({ updateAvailable: true });
  expect(await byName('stable')).toMatchObject({ updateAvailable: false });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  // An update re-creates a container under a new id: a read of the old one in flight is cancelled.
  seen = watchPage(page, [/^failed GET \/api\/v1\/events\/ui: net::ERR_ABORTED$/]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await Promise.all([dockerd?.stop(), registry?.stop()]);
});

describe('the container detail', () => {
  it('says "up to date" when Check now finds nothing newer', async () => {
    await gotoSteady(page, `${hub.url}/containers/${ids['stable']}`);
    await page.getByRole('heading', { level: 1, name: 'stable' }).waitFor();
    await page.getByRole('button', { name: 'Check now' }).click();
    const said = page.getByRole('status').filter({ hasText: 'Checked just now' });
    await said.waitFor();
    expect(await said.textContent()).toBe(
      'Checked just now: up to date (1.0.0 is the newest version the registry has).',
    );
    expect(seen.problems).toEqual([]);
  });

  it('says beside the snooze field why −3, 0.5 and 99999 are refused, sends nothing, then snoozes', async () => {
    await gotoSteady(page, `${hub.url}/containers/${ids['one']}`);
    await page.getByRole('heading', { level: 1, name: 'one' }).waitFor();
    const field = page.getByLabel('Snooze for (days)');
    const snooze = page.getByRole('button', { name: 'Snooze', exact: true });
    const patches: string[] = [];
    page.on('request', (r) => r.url().endsWith('/update-policy') && patches.push(r.postData() ?? ''));
    for (const [typed, words] of [
      ['-3', 'Enter at least 1 day.'],
      ['0.5', 'Enter whole days: 0.5 is not a whole number.'],
      ['99999', 'Enter at most 3,650 days.'],
    ] as const) {
      await field.fill(typed);
      // The button stays enabled: a greyed-out button says nothing (a short timeout fails fast if not).
      await snooze.click({ timeout: 3_000 });
      const problemId = await field.getAttribute('aria-describedby');
      expect(problemId, typed).toBeTruthy();
      expect(await page.locator(`#${problemId}`).textContent()).toBe(words);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
    }
    expect(patches).toEqual([]);
    // Typing a right number clears the words; it then snoozes.
    await field.fill('5');
    expect(await field.getAttribute('aria-describedby')).toBeNull();
    await snooze.click();
    await page.getByRole('button', { name: 'Unsnooze' }).waitFor();
    expect(patches).toEqual([JSON.stringify({ action: 'snooze', days: 5 })]);
    expect((await byName('one'))?.updatePolicy.snoozeUntil).toBeTruthy();
    await page.getByRole('button', { name: 'Unsnooze' }).click();
    await snooze.waitFor();
    expect(seen.problems).toEqual([]);
  });

  it('shows the log with ANSI colours as classes, JSON pretty-printed, and a search', async () => {
    await gotoSteady(page, `${hub.url}/containers/${ids['talker']}`);
    const log = page.locator('ol.log-lines');
    await expect.poll(() => log.locator('li').count()).toBeGreaterThanOrEqual(3);
    expect(await log.locator('span.ansi-fg-1').first().textContent()).toBe('red alert');
    expect(await log.locator('span.ansi-fg-2.ansi-bold').first().textContent()).toBe('all good');
    expect(await log.locator('li').first().textContent()).toContain('red alert then all good');
    expect(await log.textContent()).not.toContain('[31m');
    // The strict CSP refuses inline styles: the colours are classes only.
    expect(await log.locator('[style]').count()).toBe(0);
    expect(await log.locator('.log-json').first().textContent()).toBe(JSON.stringify(JSON.parse(JSON_LINE), null, 2));
    await page.getByLabel('Pretty-print JSON').uncheck();
    await expect.poll(() => log.locator('.log-json').count()).toBe(0);
    expect(await log.textContent()).toContain(JSON_LINE);

    await page.getByLabel('Search the log').fill('ALERT');
    await expect.poll(() => log.locator('li').count()).toBe(1);
    expect(await log.locator('mark').textContent()).toBe('alert');
    expect(await page.locator('[data-log-count]').textContent()).toMatch(/^1 of \d+ lines match\.$/);
    expect(seen.problems).toEqual([]);
  });

  it('has no serious or critical axe violation with a coloured log, light and dark', { timeout: 90_000 }, async () => {
    await expectAccessible(browser, `${hub.url}/containers/${ids['talker']}`, 'span.ansi-fg-1');
  });
});

describe('the bulk update panel', () => {
  it('says in its dialog that the hub updates several at once, and ends with what happened', async () => {
    await gotoSteady(page, `${hub.url}/containers`);
    await page.getByRole('checkbox', { name: 'Select one' }).check();
    await page.getByRole('checkbox', { name: 'Select two' }).check();
    await page.getByRole('button', { name: 'Update 2' }).click();
    const dialog = page.getByRole('dialog', { name: 'Update 2 containers?' });
    await dialog.waitFor();
    const words = (await dialog.textContent()) ?? '';
    // update-service.ts runs up to 8 operations at once (UpdateScheduler maxConcurrent), one per compose project.
    expect(words).toContain('several at once');
    expect(words).not.toContain('one after another, ');
    await dialog.getByRole('button', { name: 'Update 2' }).click();

    const heading = page.locator('#bulk-results-title');
    await expect.poll(() => heading.textContent(), { timeout: 90_000 }).toBe('Bulk update finished: 2 updated');
    expect(await page.locator('.bulk-results li[data-state="succeeded"]').count()).toBe(2);
    const running = async (name: string) => (await dockerd.docker.getContainer(name).inspect()).Config.Image;
    expect(await running('one')).toMatch(/defects\/app:2\.0\.0$/);
    expect(await running('two')).toMatch(/defects\/app:2\.0\.0$/);
    expect(seen.problems).toEqual([]);
  });

  it('breaks no word mid-word in the detail page and the images tables, at 1440 and 390 px', async () => {
    const updated = await byName('one');
    if (!updated) throw new Error('one is gone');
    const found: string[] = [];
    for (const width of [1440, 390]) {
      const sized = await browser.newContext({ viewport: { width, height: 900 } });
      try {
        const view = await sized.newPage();
        await gotoSteady(view, `${hub.url}/containers/${updated.id}`);
        await view.getByRole('heading', { level: 1, name: updated.name }).waitFor();
        // On a phone the less-read sections are folded (docs/ui.md): every one is opened and measured.
        for (const summary of await view.locator('details.fold > summary').all()) await summary.click();
        await view.locator('table').first().waitFor();
        await expect.poll(() => view.locator('table.history tbody tr').count()).toBeGreaterThan(0);
        for (const word of await brokenWords(view)) found.push(`${width} px detail: ${word}`);
        await gotoSteady(view, `${hub.url}/images`);
        await view.locator('table.images tbody tr').first().waitFor();
        for (const word of await brokenWords(view)) found.push(`${width} px images: ${word}`);
      } finally {
        await sized.close();
      }
    }
    expect(found).toEqual([]);
  });
});
