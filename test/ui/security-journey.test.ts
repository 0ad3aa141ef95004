/**
 * The detail page's security section in a real Chromium, against the hub as `npm start` runs it on
 * the scan test bed (test/support/scan-bed.ts: a real dockerd and registry, a running image with a
 * vulnerable openssl, an update candidate that fixes it and brings a vulnerable libepoch): "Not
 * scanned yet", then "Scan now" shows the candidate's findings and what the update fixes and brings;
 * the SBOM links download SPDX and CycloneDX documents of the running image; the release notes say
 * why there are none (the image names no source repository); axe finds nothing serious.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUi } from '../../scripts/build-ui.mjs';
import { launchChromium } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { type ScanBed, startScanBed } from '../support/scan-bed';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';

let bed: ScanBed;
let hub: HubOnDockerd;
let browser: Browser;
let page: Page;
let seen: PageProblems;
const section = () => page.locator('section[aria-labelledby="security"]');

beforeAll(async () => {
  await buildUi();
  bed = await startScanBed();
  hub = await startHubOnDockerd(bed.dockerd, bed.scannerEnv);
  const watched = await hub.api('/api/v1/containers/watch', { method: 'POST' });
  expect(watched.status).toBe(200);
  browser = await launchChromium();
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  seen = watchPage(page);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await bed?.stop();
});

describe('the security section of the container detail page', () => {
  it('says the container was not scanned, then scans the update candidate on demand', async () => {
    await page.goto(`${hub.url}/containers/${bed.containerId}`);
    await section().getByText('Not scanned yet.').waitFor();
    await section().getByRole('button', { name: 'Scan now' }).click();
    await section().locator('tr[data-finding="DSA-TEST-0003"]').waitFor({ timeout: 60_000 });
    expect(await section().locator('tbody tr').count()).toBe(1);
    expect(await section().locator('tr[data-finding="DSA-TEST-0003"] td[data-label="Package"]').textContent()).toBe(
      'libepoch',
    );
    expect(
      await section()
        .locator('dd')
        .filter({ hasText: bed.ref('1.1.0') })
        .count(),
    ).toBe(1);
    expect(await section().locator('[data-field="fixed"]').textContent()).toContain(
      'DSA-TEST-0001 (openssl 3.0.11-1~deb12u1',
    );
    expect(await section().locator('[data-field="introduced"]').textContent()).toContain(
      'DSA-TEST-0003 (libepoch 1:1.0-1',
    );
    expect(seen.problems).toEqual([]);
  });

  it('downloads the SBOM of the running image as SPDX and as CycloneDX', async () => {
    for (const [name, check] of [
      ['SBOM (SPDX)', (body: Record<string, unknown>) => expect(body['spdxVersion']).toBe('SPDX-2.3')],
      ['SBOM (CycloneDX)', (body: Record<string, unknown>) => expect(body['specVersion']).toBe('1.6')],
    ] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        section().getByRole('link', { name }).click(),
      ]);
      const path = await download.path();
      const body = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      check(body);
      expect(JSON.stringify(body)).toContain('libssl3');
    }
  });

  it('says why there are no release notes for the update', async () => {
    const notes = page.locator('section[aria-labelledby="release-notes"]');
    await notes.locator('p').first().waitFor();
    expect((await notes.textContent())?.length).toBeGreaterThan('Release notes'.length);
    expect(seen.problems).toEqual([]);
  });

  it('passes axe in light and dark', { timeout: 90_000 }, async () => {
    await expectAccessible(browser, `${hub.url}/containers/${bed.containerId}`, 'tr[data-finding]');
  });
});
