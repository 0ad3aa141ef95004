/**
 * The detail page's security section in a real Chromium, against the hub as `npm start` runs it on
 * the scan test bed (test/support/scan-bed.ts: a real dockerd and registry, a running image with a
 * vulnerable openssl, an update candidate that fixes it and brings a vulnerable libepoch): "Not
 * scanned yet", then "Scan now" shows the candidate's findings and what the update fixes and brings;
 * the SBOM links download SPDX and CycloneDX documents of the running image; the release notes say
 * why there are none (the image names no source repository); axe finds nothing serious. The fleet
 * view (/security) and the dashboard's card show the running image's findings, the update's change,
 * and scan all with its progress from the live stream.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium } from '../support/chromium';
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
    await gotoSteady(page, `${hub.url}/containers/${bed.containerId}`);
    await section().getByText('Not scanned yet.').waitFor();
    await section().getByRole('button', { name: 'Scan now' }).click();
    await section().locator('tr[data-finding="DSA-TEST-0003"]').waitFor({ timeout: 60_000 });
    // What runs today leads (issue 28: the running image's finding hid under "The update fixes")…
    const runningRows = section().locator('[data-field="running-findings"] tbody tr');
    expect(await runningRows.count()).toBe(1);
    expect(await runningRows.first().getAttribute('data-finding')).toBe('DSA-TEST-0001');
    expect(await section().locator('[data-field="running-counts"]').textContent()).toContain('1 critical');
    // …and what the update would run follows it.
    const candidateRows = section().locator('[data-field="candidate-findings"] tbody tr');
    expect(await candidateRows.count()).toBe(1);
    expect(await section().locator('tr[data-finding="DSA-TEST-0003"] td[data-label="Package"]').textContent()).toBe(
      'libepoch',
    );
    const headings = await section().locator('h3').allTextContents();
    expect(headings).toEqual(['Running image', 'The update']);
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

describe('the fleet security view', () => {
  it('shows the fleet counts on the dashboard, linked to the view', async () => {
    await gotoSteady(page, `${hub.url}/`);
    const card = page.locator('[data-field="dashboard-security"]');
    await card.waitFor();
    expect(await card.textContent()).toMatch(/1 critical.*1 of 1 containers scanned/);
    await page.getByRole('link', { name: 'Vulnerabilities by image' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/security');
  });

  it("lists each running image with its findings and its update's change, and scans all with live progress", async () => {
    const row = page.locator(`li[data-image="${bed.ref('1.0.0')}"]`);
    await row.waitFor();
    expect(await row.locator('[data-field="update"]').textContent()).toBe(
      `The update to ${bed.ref('1.1.0')} fixes 1 critical; brings 1 medium.`,
    );
    expect(await row.getByRole('link', { name: 'scanned' }).count()).toBe(1);
    await row.getByText('1 finding').click();
    await row.locator('tr[data-finding="DSA-TEST-0001"]').waitFor();

    await page.getByRole('button', { name: 'Scan all now' }).click();
    const progress = page.locator('[data-field="scan-progress"]');
    await expect.poll(() => progress.textContent(), { timeout: 60_000 }).toBe('Scanned 1 of 1 containers.');
    expect(await page.getByRole('button', { name: 'Scan all now' }).isEnabled()).toBe(true);
    expect(await page.locator('[data-field="fleet-counts"]').textContent()).toMatch(/1 of 1 containers scanned/);
    expect(seen.problems).toEqual([]);
  });

  it('passes axe in light and dark', { timeout: 90_000 }, async () => {
    await expectAccessible(browser, `${hub.url}/security`, 'li[data-image]');
  });
});
