/**
 * Issue 28 items 1, 4 and 10, "the first five minutes", in a real Chromium against the hub on a
 * real dockerd, a registry and a forge (GitHub's release API, the fixture server) with a Docker
 * action trigger: the dashboard names the containers with updates (icon through the hub's proxy or
 * a letter, display name, `current → candidate` chip), most important first (a major above a minor
 * above a patch); bell entries are sentences that link to their container; one container is
 * updated from the dashboard through the preview (trigger, approval, what is kept, the release
 * notes of every version it moves past) and its stepper followed in plain words while Stop and
 * Remove wait on its page; the dashboard changes live ("Updated web to 2.0.0 in … s", the row
 * gone, no reload); an update that fails its health check is listed above the pending ones as
 * rolled back. A second hub without an action trigger offers no Update button but a sentence on
 * how to get one. axe finds no serious or critical violation at 390 and 1440 px, light and dark.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { type AppKind, publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { type IconServer, startIconServer } from '../support/icon-server';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { type ReleaseApiServer, startReleaseApiServer } from '../support/release-api-server';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';

const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>';
/** Internal phase names that must never reach the page. */
const PHASE_NAMES = /\b(renamed|new-created|old-stopped|new-started|health-gate|prepare)\b/;

let dockerd: TestDockerd;
let registry: TestRegistry;
let icons: IconServer;
let forge: ReleaseApiServer;
let hub: HubOnDockerd;
let bare: HubOnDockerd;
let browser: Browser;
let page: Page;
let seen: PageProblems;

const byName = async (target: HubOnDockerd, name: string): Promise<Container | undefined> =>
  (await target.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === name);
const pendingOrder = () =>
  page.locator('li.pending-update').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-container')));

/** Publishes `from` and `to` of one repository and starts a watched container of `from`. */
async function app(name: string, from: string, to: string, kind: AppKind, labels: Record<string, string> = {}) {
  const reference = await publishApp(dockerd, registry, { repository: `att/${name}`, tag: from, kind: 'http' });
  await publishApp(dockerd, registry, { repository: `att/${name}`, tag: to, kind });
  await pullApp(dockerd, reference);
  await startWatchedApp(dockerd, name, reference, labels);
}

beforeAll(async () => {
  [dockerd, registry, icons, forge] = await Promise.all([
    startDockerd(),
    startRegistry({ variant: 'plain' }),
    startIconServer(),
    startReleaseApiServer(),
  ]);
  icons.serve('/selfhst/svg/web.svg', { contentType: 'image/svg+xml', body: ICON_SVG });
  // web's project publishes its releases on the forge: 1.5.0 is skipped by the jump to 2.0.0.
  forge.github('acme/web', [
    {
      tag: 'v2.0.0',
      name: 'Web 2.0.0',
      date: '2026-04-01T10:00:00Z',
      body: '## Breaking changes\n\n- **new** login page',
    },
    { tag: 'v1.5.0', name: 'Web 1.5.0', date: '2026-03-01T10:00:00Z', body: '## Dark mode\n\nFor every page.' },
    { tag: 'v1.0.0', name: 'Web 1.0.0', date: '2026-01-01T10:00:00Z', body: '## First release' },
  ]);
  // web: a major update whose new version takes ~4.5 s to turn healthy (the stepper is seen running).
  await app('web', '1.0.0', '2.0.0', 'slow-healthy', {
    'dd.display.name': 'Web front',
    'dd.display.icon': 'sh:web',
    'dd.source.repo': 'https://github.com/acme/web',
  });
  // api: a patch; its icon is missing from the set, so the letter stands in.
  await app('api', '1.0.0', '1.0.1', 'http', { 'dd.display.icon': 'sh:missing' });
  // db: a minor whose new version never turns healthy: its update is rolled back.
  await app('db', '1.0.0', '1.1.0', 'unhealthy');
  const common = {
    DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20',
    DD_ICONS_SELFHST_URL: `${icons.url}/selfhst`,
    DD_RELEASE_NOTES_GITHUB_API_URL: forge.url,
    DD_WATCHER_LOCAL_CRON: '0 0 1 1 *',
  };
  hub = await startHubOnDockerd(dockerd, common);
  const { DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: _trigger, ...withoutTrigger } = common;
  bare = await startHubOnDockerd(dockerd, withoutTrigger);
  for (const target of [hub, bare]) {
    expect((await target.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  }
  expect(await byName(hub, 'web')).toMatchObject({ updateAvailable: true, displayName: 'Web front' });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  // The icon the set does not have: the hub answers 404 and the page shows the letter instead.
  seen = watchPage(page, [
    /^404 GET \/api\/v1\/icons\/selfhst\/missing$/,
    /^console: Failed to load resource: the server responded with a status of 404 .*\/icons\/selfhst\/missing/,
  ]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([hub?.close(), bare?.close()]);
  await Promise.all([dockerd?.stop(), registry?.stop(), icons?.close(), forge?.close()]);
});

describe('what needs attention, and an update a person can follow (hub on a real dockerd and registry)', () => {
  it('names the containers with updates, a major above a minor above a patch, with icon, chip and action', async () => {
    await gotoSteady(page, `${hub.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await expect.poll(pendingOrder).toEqual(['web', 'db', 'api']);
    const web = page.locator('li.pending-update[data-container="web"]');
    expect(await web.getByRole('link', { name: 'Web front' }).getAttribute('href')).toMatch(
      /^\/containers\/[0-9a-f]{64}$/,
    );
    expect(await web.locator('[data-field="version-chip"]').textContent()).toBe('1.0.0 → 2.0.0 (major update)');
    expect(await web.locator('[data-field="version-chip"]').getAttribute('class')).toContain('major');
    // The icon through the hub's proxy, drawn; the missing one replaced by the container's letter.
    await expect
      .poll(() => web.locator('img.container-icon').evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBeGreaterThan(0);
    expect(await web.locator('img.container-icon').getAttribute('src')).toBe('/api/v1/icons/selfhst/web');
    const api = page.locator('li.pending-update[data-container="api"]');
    await api.locator('.container-icon.fallback').waitFor();
    expect(await api.locator('.container-icon.fallback').textContent()).toBe('A');
    expect(await api.locator('[data-field="version-chip"]').textContent()).toBe('1.0.0 → 1.0.1 (patch)');
    expect(await web.getByRole('button', { name: 'Update Web front…' }).isEnabled()).toBe(true);
    expect(await page.getByText('Check all now').count()).toBe(1);
    expect(await page.locator('[data-field="cycle"]').textContent()).toMatch(
      /^Last checked .+ · next check (in .+|due now)$/,
    );
    // No agent is configured: no agents card and no agent count.
    expect(await page.locator('section[aria-labelledby="agents"]').count()).toBe(0);
    expect(await page.locator('.stat', { hasText: 'Agents connected' }).count()).toBe(0);
    expect(seen.problems).toEqual([]);
  });

  it('says each bell entry in words, as a link to its container', async () => {
    const bell = page.locator('section[aria-labelledby="bell"]');
    const entry = bell.getByRole('link', { name: 'web can be updated from 1.0.0 to 2.0.0' });
    await entry.waitFor();
    const web = await byName(hub, 'web');
    expect(await entry.getAttribute('href')).toBe(`/containers/${web?.id}`);
    expect(await bell.textContent()).not.toContain('update-available');
    const recent = page.locator('section[aria-labelledby="recent"]');
    await recent.getByRole('link', { name: 'web has an update waiting' }).waitFor();
    expect(await recent.textContent()).not.toMatch(/web: pending/);
  });

  it('without a Docker action trigger offers no Update button but says how to enable one', async () => {
    // This hub watches the same daemon: it is asked before the other one changes anything there.
    await gotoSteady(page, `${bare.url}/`);
    await expect.poll(pendingOrder).toEqual(['web', 'db', 'api']);
    const sentence = page.locator('[data-field="no-action-trigger"]');
    await sentence.waitFor();
    expect(await sentence.textContent()).toContain('DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT=3');
    expect(await page.getByRole('button', { name: /^Update / }).count()).toBe(0);
    expect(await page.locator('li.pending-update[data-container="web"] .update-action').textContent()).toBe(
      'Not updated by the hub: no Docker action trigger',
    );
    const web = await byName(bare, 'web');
    await gotoSteady(page, `${bare.url}/containers/${web?.id}`);
    await page.locator('[data-field="no-action-trigger"]').waitFor();
    expect(await page.getByRole('button', { name: 'Update…' }).count()).toBe(0);
    expect(seen.problems).toEqual([]);
    await gotoSteady(page, `${hub.url}/`);
    await expect.poll(pendingOrder).toEqual(['web', 'db', 'api']);
  });

  it('updates web from the dashboard through the preview, following plain steps; the dashboard changes live', async () => {
    const listReads = () => seen.calls.filter((call) => call.startsWith('GET /api/v1/containers?')).length;
    const readsBefore = listReads();
    await page.getByRole('button', { name: 'Update Web front…' }).click();
    const preview = page.locator('section.preview');
    await preview.getByRole('heading', { name: 'Update Web front?' }).waitFor();
    const facts = preview.locator('[data-field="preview"]');
    await expect.poll(() => facts.textContent()).toContain('the Docker action trigger docker.update');
    expect(await facts.textContent()).toContain('ports, volumes, networks, environment and labels');
    expect(await preview.locator('[data-field="preview-approval"]').textContent()).toBe('not needed');
    expect(await facts.textContent()).toContain(`${registry.host}/att/web:1.0.0 → ${registry.host}/att/web:2.0.0`);
    // What the jump brings: the notes of 1.5.0 (skipped) and 2.0.0, rendered, not the running 1.0.0's.
    const releases = preview.locator('ol.releases > li');
    await expect
      .poll(() => releases.evaluateAll((items) => items.map((item) => item.getAttribute('data-release'))))
      .toEqual(['v1.5.0', 'v2.0.0']);
    await preview.getByRole('heading', { name: 'Breaking changes', exact: true }).waitFor();
    expect(await preview.getByRole('heading', { name: 'Dark mode', exact: true }).count()).toBe(1);
    expect(await preview.locator('ol.releases').textContent()).not.toMatch(/## |First release/);

    // Meanwhile, on the container's own page, the actions that would fight the update wait.
    const web = await byName(hub, 'web');
    const detail = await page.context().newPage();
    const detailSeen = watchPage(detail);
    await gotoSteady(detail, `${hub.url}/containers/${web?.id}`);
    await detail.getByRole('heading', { level: 1, name: 'web' }).waitFor();

    await preview.getByRole('button', { name: 'Start the update' }).click();
    const stepper = page.locator('.running-operations section[data-operation]');
    await stepper.first().waitFor({ timeout: 30_000 });
    // The health check of the new version takes seconds: it is seen as the current step, in words.
    await page.locator('.stepper li[aria-current="step"]', { hasText: 'Health check' }).waitFor({ timeout: 60_000 });
    const steps = await stepper.locator('.stepper li').allTextContents();
    expect(steps.map((step) => step.replace(/ \((done|failed)\)$/, ''))).toEqual([
      'Pulling the image',
      'Creating the new container',
      'Stopping the old container',
      'Starting the new one',
      'Health check',
      'Done',
    ]);
    expect(await stepper.locator('.hint').first().textContent()).toMatch(/^Step 5 of 6 · \d+ s so far$/);
    expect(await page.locator('main').textContent()).not.toMatch(PHASE_NAMES);
    // The detail page follows the same operation: Stop, Restart and Remove are disabled meanwhile.
    await detail.locator('section[data-operation="in-progress"]').waitFor({ timeout: 30_000 });
    expect(await detail.getByRole('button', { name: 'Stop', exact: true }).isDisabled()).toBe(true);
    expect(await detail.getByRole('button', { name: 'Remove from the hub…' }).isDisabled()).toBe(true);
    expect(await detail.locator('button:text-is("Update…"):enabled').count()).toBe(0);

    // Settled: the outcome in words, the row gone from the pending list, all without reloading the list.
    const finished = page.locator('.finished-operations li[data-finished="web"]');
    await finished.waitFor({ timeout: 90_000 });
    await expect.poll(() => finished.textContent()).toMatch(/^done Updated web to 2\.0\.0 in \d+\.\d s$/);
    await expect.poll(pendingOrder).toEqual(['db', 'api']);
    expect(listReads()).toBe(readsBefore);
    await hub.parts.updates.idle();
    expect((await dockerd.docker.getContainer('web').inspect()).Config.Image).toBe(`${registry.host}/att/web:2.0.0`);
    // The detail page says the same and offers its actions again.
    await detail.getByRole('heading', { name: /^Updated web to 2\.0\.0 in \d+\.\d s$/ }).waitFor({ timeout: 30_000 });
    await detail.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    expect(await detail.getByRole('button', { name: 'Stop', exact: true }).isEnabled()).toBe(true);
    expect(await detail.locator('.detail').textContent()).not.toMatch(PHASE_NAMES);
    await detail.close();
    expect(detailSeen.problems).toEqual([]);
    expect(seen.problems).toEqual([]);
  }, 240_000);

  it('lists an update that failed its health check above the pending ones, as rolled back', async () => {
    await page.getByRole('button', { name: 'Update db…' }).click();
    const preview = page.locator('section.preview');
    await preview.getByRole('button', { name: 'Start the update' }).click();
    const failed = page.locator('.problems li[data-failed="db"]');
    await failed.waitFor({ timeout: 120_000 });
    await expect
      .poll(() => failed.textContent(), { timeout: 30_000 })
      .toContain('The update of db to 1.1.0 did not work: rolled back db to 1.0.0');
    // Above the pending updates, which still hold db (its update is pending again) and api.
    const problemsFirst = await page.evaluate(() => {
      const problems = document.querySelector('.problems');
      const pending = document.querySelector('.pending-updates');
      return (
        !!problems && !!pending && !!(problems.compareDocumentPosition(pending) & Node.DOCUMENT_POSITION_FOLLOWING)
      );
    });
    expect(problemsFirst).toBe(true);
    await hub.parts.updates.idle();
    expect((await dockerd.docker.getContainer('db').inspect()).Config.Image).toBe(`${registry.host}/att/db:1.0.0`);
    expect(seen.problems).toEqual([]);
  }, 200_000);

  it('has no serious or critical accessibility violation at 390 and 1440 px, light and dark', {
    timeout: 180_000,
  }, async () => {
    for (const width of [390, 1440]) {
      const options = { viewport: { width, height: 900 } };
      await expectAccessible(browser, `${hub.url}/`, 'li.pending-update', options);
      await expectAccessible(browser, `${bare.url}/`, '[data-field="no-action-trigger"]', options);
      const api = await byName(hub, 'api');
      await expectAccessible(browser, `${hub.url}/containers/${api?.id}`, 'h1', options);
    }
  });
});
