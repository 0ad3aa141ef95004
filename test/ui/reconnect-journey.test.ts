/**
 * Journey (c), in a real Chromium: the hub stops while the list is open and starts again on the
 * same port. A banner says the hub cannot be reached; when it is back the banner goes, the page
 * resyncs (the boot changed, so nothing could be replayed) without a reload, and the list is live again.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type EdgePeer, sampleContainer, sampleImage, snapshotFrames } from '../support/edge-peer';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { connectAgent, type PageProblems, watchPage } from './ui-browser';

const IMAGE = '127.0.0.1:9/team/app:1.0.0';
const images = [sampleImage({ repoTags: [IMAGE] })];

let hub: HubClient;
let port: string;
let peer: EdgePeer;
let browser: Browser;
let page: Page;
let seen: PageProblems;

const rowNamed = (name: string) => page.locator('table.list tbody tr', { hasText: name });

beforeAll(async () => {
  hub = await createServerHub();
  port = new URL(hub.url ?? '').port;
  ({ peer } = await connectAgent(hub, 'nas'));
  for (const frame of snapshotFrames('local', [sampleContainer('before-restart', { image: IMAGE })], images))
    peer.send(frame);
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  // While the hub is down the stream's reconnects are refused; those failures are the point of this journey.
  seen = watchPage(page, [/events\/ui/, /ERR_CONNECTION_REFUSED/]);
});

afterAll(async () => {
  await browser?.close();
  peer?.close();
  await hub?.close();
});

describe('the hub going away and coming back', () => {
  it('shows a banner while the hub is unreachable, and recovers without a reload', async () => {
    await gotoSteady(page, `${hub.url}/containers`);
    // The first load on a loaded machine (several test files share the cores) took over 10 s once.
    await expect.poll(() => rowNamed('before-restart').count(), { timeout: 30_000 }).toBe(1);
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'same page';
    });
    const banner = page.getByRole('alert').filter({ hasText: 'cannot be reached' });
    expect(await banner.count()).toBe(0);

    peer.close();
    await hub.close();
    await banner.waitFor({ timeout: 15_000 });

    // The same port, a new boot (the memory store starts empty), and the agent connects again.
    hub = await createServerHub({ DD_SERVER_PORT: port });
    ({ peer } = await connectAgent(hub, 'nas'));
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    for (const frame of snapshotFrames('local', [sampleContainer('after-restart', { image: IMAGE })], images))
      peer.send(frame);
    await expect.poll(() => rowNamed('after-restart').count(), { timeout: 10_000 }).toBe(1);
    // The resync replaced the old hub's inventory with the new one's.
    await expect.poll(() => rowNamed('before-restart').count(), { timeout: 10_000 }).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
  });

  it('is live again: a change on the agent shows on screen', async () => {
    const late = sampleContainer('late-arrival', { image: IMAGE });
    peer.send({ type: 'container.changed', watcher: 'local', container: late, image: images[0] });
    await expect.poll(() => rowNamed('late-arrival').count(), { timeout: 10_000 }).toBe(1);
    expect(seen.problems).toEqual([]);
  });
});
