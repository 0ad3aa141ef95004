/**
 * Regression (issue 33, item 17), in a real Chromium against a real hub over a socket: a person has a
 * container's page open while its reads (backups, history, triggers, vulnerabilities) are still on
 * their way, and a rollback re-creates the container under a new id, as the edge agent reports it
 * (the successor added, the old one removed). The page follows the new container; the reads of the
 * old id are cancelled, so none answers 404 into the page or its console and no error is shown. A
 * proxy in front of the hub holds those reads until the old container is gone, which on a loaded
 * machine is what the timing of a real rollback does (test/ui/detail-journey.test.ts runs one).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type EdgePeer, sampleContainer, sampleImage, snapshotFrames, waitFor } from '../support/edge-peer';
import { type HoldingProxy, startHoldingProxy } from '../support/holding-proxy';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { connectAgent, type PageProblems, watchPage } from './ui-browser';

// On a closed loopback port: a registry check fails at once and never leaves the machine.
const IMAGE = '127.0.0.1:9/team/app:1.0.0';
const READS = ['backups', 'update-operations', 'triggers', 'vulnerabilities'];

let hub: HubClient;
let proxy: HoldingProxy;
let browser: Browser;
let page: Page;
let seen: PageProblems;
let peer: EdgePeer;
const before = sampleContainer('app', { image: IMAGE, labels: { 'dd.watch': 'true' } });
const after = sampleContainer('app', { image: IMAGE, labels: { 'dd.watch': 'true' } });
const images = [sampleImage({ repoTags: [IMAGE] })];

beforeAll(async () => {
  hub = await createServerHub();
  ({ peer } = await connectAgent(hub, 'nas'));
  for (const frame of snapshotFrames('local', [before], images)) peer.send(frame);
  await waitFor(async () => ((await hub.request(`/api/v1/containers/${before.id}`)).ok ? true : undefined));
  proxy = await startHoldingProxy(hub.url as string);
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  seen = watchPage(page);
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  peer?.close();
  await hub?.close();
});

describe('a container re-created under a new id while its page reads it', () => {
  it('follows the new container; the reads of the old id end cancelled, with no 404 and no error shown', async () => {
    proxy.hold(new RegExp(`^GET /api/v1/containers/${before.id}/`));
    // Every read of the old id the page makes, and how it ended for the page.
    const ended = new Map<string, string>();
    const oldRead = (url: string) => new URL(url).pathname.startsWith(`/api/v1/containers/${before.id}/`);
    page.on('requestfinished', (request) => {
      if (oldRead(request.url())) ended.set(new URL(request.url()).pathname, 'answered');
    });
    page.on('requestfailed', (request) => {
      if (oldRead(request.url())) ended.set(new URL(request.url()).pathname, `failed: ${request.failure()?.errorText}`);
    });

    await gotoSteady(page, `${proxy.url}/containers/${before.id}`);
    await page.getByRole('heading', { level: 1, name: 'app' }).waitFor();
    const heldReads = () => proxy.held().map((held) => held.line.split(' ')[1]?.split('?')[0]?.split('/').at(-1));
    await waitFor(() => (READS.every((read) => heldReads().includes(read)) ? true : undefined), 10_000, 'the reads');

    // The rollback: the successor is created (same name, same host), then the old container removed.
    peer.send({ type: 'container.changed', watcher: 'local', container: after, image: images[0] });
    peer.send({ type: 'container.removed', watcher: 'local', containerId: before.id });
    await page.waitForURL(`${proxy.url}/containers/${after.id}`);
    await page.getByText('No trigger applies to this container.').waitFor();

    // Only now can the held reads reach the hub, which no longer knows the old id.
    await proxy.release();
    await waitFor(() => (ended.size >= proxy.held().length ? true : undefined), 10_000, 'the old reads to end');
    expect(seen.problems).toEqual([]);
    // No section says a read failed (the registry check's own error, port 9, is the container's, not the page's).
    expect(await page.getByRole('alert').allTextContents()).toEqual([]);
    expect([...ended.values()]).toEqual(proxy.held().map(() => 'failed: net::ERR_ABORTED'));
    expect(proxy.held().filter((held) => !held.abandoned())).toEqual([]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('app');
  });
});
