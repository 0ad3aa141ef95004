/**
 * The container detail page with hostile data, in a real Chromium against a real hub fed by an edge
 * agent peer (dockerd refuses such names and tags, an agent's inventory does not): a container whose
 * name, longest tag, 300-character label, labels and environment hold `<script>`, `"><img onerror>`, right-to-left
 * text and emoji renders all of it as text, revealed values too. The same fleet has a dependency
 * group (`dd.group`, `dd.depends_on`): the page shows the waves an update from its root would run.
 * A container re-created as an update does it (renamed `<name>-old-<time>`, a new one under the
 * name, the old one removed) is followed to its new id.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type EdgePeer, sampleContainer, sampleImage, snapshotFrames, waitFor } from '../support/edge-peer';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { connectAgent, expectAccessible, type PageProblems, watchPage } from './ui-browser';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const RTL = 'مرحبا بالعالم \u202e🙂🚀';
// The longest tag a registry accepts (128 characters): a longer reference is not a valid image
// reference, and the hub does not take it as a tag. 300 characters go in a label value instead.
const LONG_TAG = `1.0.0-${'x'.repeat(122)}`;
const LONG_TEXT = 'y'.repeat(300);
// On a closed loopback port: a registry check fails at once and never leaves the machine.
const IMAGE = `127.0.0.1:9/team/app:${LONG_TAG}`;

let hub: HubClient;
let browser: Browser;
let page: Page;
let seen: PageProblems;
let peer: EdgePeer;
const hostile = sampleContainer(`${SCRIPT}${IMG}${RTL}`, {
  image: IMAGE,
  labels: { [SCRIPT]: IMG, note: RTL, long: LONG_TEXT },
  env: [`HOSTILE=${SCRIPT}`, `API_TOKEN=${IMG}`, `RTL=${RTL}`],
});
const db = sampleContainer('db', { image: '127.0.0.1:9/library/postgres:16.2', labels: { 'dd.group': 'stack' } });
const api = sampleContainer('api', { labels: { 'dd.group': 'stack', 'dd.depends_on': 'db' } });
const web = sampleContainer('web', { labels: { 'dd.group': 'stack', 'dd.depends_on': 'api,db' } });
const worker = sampleContainer('worker', { labels: { 'dd.group': 'stack', 'dd.depends_on': 'db' } });

beforeAll(async () => {
  hub = await createServerHub();
  ({ peer } = await connectAgent(hub, 'nas'));
  const images = [sampleImage({ repoTags: [IMAGE] }), sampleImage({ repoTags: ['127.0.0.1:9/library/postgres:16.2'] })];
  for (const frame of snapshotFrames('local', [hostile, db, api, web, worker], images)) peer.send(frame);
  await waitFor(async () => {
    const list = (await (await hub.request('/api/v1/containers')).json()) as { total: number };
    return list.total === 5 ? true : undefined;
  });
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  seen = watchPage(page);
});

afterAll(async () => {
  await browser?.close();
  peer?.close();
  await hub?.close();
});

describe('the container detail page with hostile data and a dependency group', () => {
  it('renders a hostile name, a 128-character tag, a 300-character label, labels and environment as text, revealed too', async () => {
    await gotoSteady(page, `${hub.url}/containers/${hostile.id}`);
    await page.getByRole('heading', { level: 1 }).filter({ hasText: SCRIPT }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(hostile.name);
    expect(await page.locator('[data-field="running-tag"]').textContent()).toBe(LONG_TAG);
    const labels = page.locator('section[aria-labelledby="labels"]');
    expect(await labels.locator('dt', { hasText: SCRIPT }).count()).toBe(1);
    expect(await labels.locator('dd', { hasText: IMG }).count()).toBe(1);
    expect(await labels.locator('dd', { hasText: RTL }).count()).toBe(1);
    expect(await labels.locator('dd', { hasText: LONG_TEXT }).count()).toBe(1);
    const env = page.locator('section[aria-labelledby="environment"]');
    expect(await env.locator('dd', { hasText: SCRIPT }).count()).toBe(1);
    // API_TOKEN is a secret: redacted until revealed.
    expect(await env.locator('dd', { hasText: IMG }).count()).toBe(0);
    await env.getByRole('button', { name: 'Reveal values' }).click();
    await env.locator('dd', { hasText: IMG }).waitFor();
    // Nothing was parsed as markup: no injected element exists, no dialog opened; the page is not wider than the screen.
    expect(await page.locator('img[src="x"], main script').count()).toBe(0);
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await fits()).toBe(true);
    // The narrowest phone the UI supports (issue 13): long unbroken text wraps instead of widening the page.
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await fits()).toBe(true);
    await page.setViewportSize({ width: 1280, height: 720 });
    expect(seen.problems).toEqual([]);
  });

  it('shows the dependency group and the waves an update from its root runs', async () => {
    await gotoSteady(page, `${hub.url}/containers/${db.id}`);
    const group = page.locator('section[aria-labelledby="group"]');
    await group.getByRole('heading', { name: 'Group stack' }).waitFor();
    expect(await group.locator('.waves li').allTextContents()).toEqual([
      'Wave 1: db',
      'Wave 2: api, worker',
      'Wave 3: web',
    ]);
    await gotoSteady(page, `${hub.url}/containers/${web.id}`);
    await group.getByRole('heading', { name: 'Group stack' }).waitFor();
    // Nothing depends on web: no group update starts from it.
    expect(await group.locator('.waves').count()).toBe(0);
    expect(await group.textContent()).toContain('api, db');
    expect(seen.problems).toEqual([]);
  });

  // Regression (detail-follows-temporary-name): the page followed the temporary name an update gives
  // the old container, so after a rollback it stayed on the removed container's address.
  it('follows a container re-created under a new id through its temporary name', async () => {
    const old = sampleContainer('mail', { image: IMAGE });
    peer.send({ type: 'container.changed', watcher: 'local', container: old });
    await gotoSteady(page, `${hub.url}/containers/${old.id}`);
    await page.getByRole('heading', { level: 1, name: 'mail' }).waitFor();
    const renamed = 'mail-old-1764000000000';
    peer.send({ type: 'container.changed', watcher: 'local', container: { ...old, name: renamed } });
    await page.getByRole('heading', { level: 1, name: renamed }).waitFor();
    const successor = sampleContainer('mail', { image: IMAGE });
    peer.send({ type: 'container.changed', watcher: 'local', container: successor });
    peer.send({ type: 'container.removed', watcher: 'local', containerId: old.id });
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/containers/${successor.id}`);
    await page.getByRole('heading', { level: 1, name: 'mail' }).waitFor();
    expect(seen.problems).toEqual([]);
  });

  it('sets an override from the labels section, shows where each value comes from, and clears it', async () => {
    await gotoSteady(page, `${hub.url}/containers/${web.id}`);
    const labels = page.locator('section[aria-labelledby="labels"]');
    const row = (key: string) => labels.locator(`tr[data-label-key="${key}"]`);
    await row('dd.group').waitFor();
    expect(await row('dd.group').locator('td[data-label="From"]').textContent()).toBe('label');
    await labels.getByLabel('Override').selectOption('dd.display.name');
    await labels.getByLabel('with').fill(SCRIPT);
    await labels.getByRole('button', { name: 'Set override' }).click();
    await expect.poll(() => row('dd.display.name').locator('td[data-label="Value"]').textContent()).toBe(SCRIPT);
    expect(await row('dd.display.name').locator('td[data-label="From"]').textContent()).toBe(
      'override of this container',
    );
    const stored = (await (await hub.request(`/api/v1/containers/${web.id}/label-overrides`)).json()) as {
      labels: Record<string, string>;
    };
    expect(stored.labels).toEqual({ 'dd.display.name': SCRIPT });
    // A bad value is refused with the key named, and nothing changes.
    await labels.getByLabel('Override').selectOption('dd.watch');
    await labels.getByLabel('with').fill('maybe');
    await labels.getByRole('button', { name: 'Set override' }).click();
    await labels.locator('.error', { hasText: 'dd.watch' }).waitFor();
    await row('dd.display.name').getByRole('button', { name: 'Clear override of dd.display.name' }).click();
    await expect.poll(() => row('dd.display.name').count()).toBe(0);
    expect(await page.locator('img[src="x"], main script').count()).toBe(0);
    // The refusal above is the one error answer (and the browser's console line for it).
    expect(seen.problems.filter((line) => !line.includes(`/api/v1/containers/${web.id}/label-overrides`))).toEqual([]);
    expect(seen.problems).toHaveLength(2);
    seen.problems.length = 0;
  });

  it('has no serious or critical accessibility violation with hostile data', { timeout: 90_000 }, async () => {
    await expectAccessible(browser, `${hub.url}/containers/${hostile.id}`, 'section[aria-labelledby="labels"] dd');
    await expectAccessible(browser, `${hub.url}/containers/${db.id}`, '.waves li');
  });
});
