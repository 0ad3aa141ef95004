/**
 * Issue 28 item 5, hostile release notes in a real Chromium: a container on a real dockerd whose
 * registry has 1.0.0 and 2.0.0, its `dd.source.repo` on a GitHub release API (the fixture forge)
 * whose notes for 1.0.1, 1.1.0 and 2.0.0 carry `<script>`, `onerror` and `onclick` attributes,
 * `javascript:` and `data:` links, images from another host and a 200-column table. The update
 * preview shows the notes of every version the update moves past, rendered as Markdown (headings
 * as headings, links with rel="noopener noreferrer"), and nothing of them executes or loads: no
 * dialog, no console error, no request to the other host. After the update, the operation history
 * shows the same notes.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import type { TestDockerd } from '../support/docker/start-dockerd';
import { startDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { type IconServer, startIconServer } from '../support/icon-server';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { type ReleaseApiServer, startReleaseApiServer } from '../support/release-api-server';
import { type PageProblems, watchPage } from './ui-browser';

let dockerd: TestDockerd;
let registry: TestRegistry;
let forge: ReleaseApiServer;
/** The other host: every request it receives is recorded (none may come from the page). */
let other: IconServer;
let hub: HubOnDockerd;
let browser: Browser;
let page: Page;
let seen: PageProblems;
/** Requests the page made to any origin but the hub's. */
const foreign: string[] = [];

const COLUMNS = 200;
function wideTable(): string {
  const cells = (make: (i: number) => string) =>
    `| ${Array.from({ length: COLUMNS }, (_, i) => make(i)).join(' | ')} |`;
  return [cells((i) => `column ${i}`), cells(() => '---'), cells((i) => `value ${i}`)].join('\n');
}

function notes(otherUrl: string) {
  return [
    {
      tag: 'v2.0.0',
      name: 'App 2.0.0',
      date: '2026-04-01T10:00:00Z',
      body: [
        '## Breaking changes',
        '',
        '<details><summary>More</summary>',
        '',
        '- removed the old API',
        '</details>',
        '',
        '<a href="javascript:alert(5)" onclick="alert(6)">html link</a> <iframe src="javascript:alert(7)"></iframe>',
      ].join('\n'),
    },
    {
      tag: 'v1.1.0',
      name: 'App 1.1.0',
      date: '2026-03-01T10:00:00Z',
      body: `## Dark mode\n\n**Dark mode** for all pages ![screenshot](${otherUrl}/shot.png)\n\n${wideTable()}\n`,
    },
    {
      tag: 'v1.0.1',
      name: 'App 1.0.1',
      date: '2026-02-01T10:00:00Z',
      body: [
        '## Fixes',
        '',
        '- a crash on start <script>alert(1)</script>',
        '',
        `<img src="${otherUrl}/pixel.png" onerror="alert(2)">`,
        '',
        '[click](javascript:alert(3)) [data](data:text/html,<script>alert(4)</script>) [docs](https://example.com/docs)',
        '[relative](../compare/v1.0.0...v1.0.1)',
      ].join('\n'),
    },
    { tag: 'v1.0.0', name: 'App 1.0.0', date: '2026-01-01T10:00:00Z', body: '## Not shown\n\nFirst release' },
  ];
}

beforeAll(async () => {
  [dockerd, registry, forge, other] = await Promise.all([
    startDockerd(),
    startRegistry({ variant: 'plain' }),
    startReleaseApiServer(),
    startIconServer(),
  ]);
  // localhost: another origin than the hub's 127.0.0.1, so the CSP would refuse it (and log that).
  forge.github('acme/app', notes(other.url.replace('127.0.0.1', 'localhost')));
  const reference = await publishApp(dockerd, registry, { repository: 'notes/app', tag: '1.0.0', kind: 'http' });
  await publishApp(dockerd, registry, { repository: 'notes/app', tag: '2.0.0', kind: 'http' });
  await pullApp(dockerd, reference);
  await startWatchedApp(dockerd, 'app', reference, { 'dd.source.repo': 'https://github.com/acme/app' });
  hub = await startHubOnDockerd(dockerd, {
    DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20',
    DD_WATCHER_LOCAL_CRON: '0 0 1 1 *',
    DD_RELEASE_NOTES_GITHUB_API_URL: forge.url,
  });
  expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  seen = watchPage(page);
  const hubOrigin = new URL(hub.url).origin;
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== hubOrigin) foreign.push(request.url());
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await Promise.all([dockerd?.stop(), registry?.stop(), forge?.close(), other?.close()]);
});

/** What hostile notes must never leave in the page, wherever they are shown. */
async function expectInert(notesArea: Locator) {
  expect(await notesArea.locator('script, img, iframe, [onerror], [onclick], details').count()).toBe(0);
  const links = await notesArea
    .locator('a')
    .evaluateAll((anchors) =>
      anchors.map((a) => ({ href: a.getAttribute('href') ?? '', rel: a.getAttribute('rel'), text: a.textContent })),
    );
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) {
    expect(link.href).toMatch(/^https?:\/\//);
    expect(link.rel).toBe('noopener noreferrer');
  }
  // The dropped links keep their words as text; the image is a link to it, never loaded.
  expect(links.map((link) => link.text)).toEqual(expect.arrayContaining(['docs', 'relative', 'image: screenshot']));
  expect(links.find((link) => link.text === 'relative')?.href).toBe(
    'https://github.com/acme/app/releases/compare/v1.0.0...v1.0.1',
  );
  expect(await notesArea.textContent()).toContain('click');
}

describe('hostile release notes, rendered and inert (hub on a real dockerd, a fixture forge)', () => {
  let app: Container;

  it('shows the notes of every skipped version in the preview as Markdown, and runs none of it', async () => {
    app = (await hub.json<{ data: Container[] }>('/api/v1/containers')).data.find((c) => c.name === 'app') as Container;
    expect(app).toMatchObject({ updateAvailable: true });
    await gotoSteady(page, `${hub.url}/containers/${app.id}`);
    await page.getByRole('heading', { level: 1, name: 'app' }).waitFor();
    // The detail page's section: the target's notes, rendered.
    const section = page.locator('section[aria-labelledby="release-notes"]');
    await section.getByRole('heading', { name: 'Breaking changes' }).waitFor();

    await page.locator('button:text-is("Update…")').click();
    const preview = page.locator('section.preview');
    const releases = preview.locator('ol.releases > li');
    await expect
      .poll(() => releases.evaluateAll((items) => items.map((item) => item.getAttribute('data-release'))))
      .toEqual(['v1.0.1', 'v1.1.0', 'v2.0.0']);
    await preview.locator('[data-rendered="markdown"]').nth(2).waitFor();
    for (const name of ['Fixes', 'Dark mode', 'Breaking changes'])
      expect(await preview.getByRole('heading', { name, exact: true }).count()).toBe(1);
    expect(await preview.locator('strong', { hasText: 'Dark mode' }).count()).toBe(1);
    expect(await preview.textContent()).not.toContain('## ');
    expect(await preview.textContent()).not.toContain('Not shown');
    await expectInert(preview.locator('ol.releases'));

    // The 200-column table: 50 columns drawn, inside a container that scrolls, the card no wider.
    const scroller = preview.locator('.release-table');
    expect(await scroller.locator('th').count()).toBe(50);
    const sizes = await scroller.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
      card: element.closest('section')?.getBoundingClientRect().width ?? 0,
      width: element.getBoundingClientRect().width,
    }));
    expect(sizes.scroll).toBeGreaterThan(sizes.client);
    expect(sizes.width).toBeLessThanOrEqual(sizes.card);

    expect(foreign).toEqual([]);
    expect(other.requests).toEqual([]);
    expect(seen.problems).toEqual([]);
  });

  it('keeps the notes the update moved through in the operation history', async () => {
    await page.locator('section.preview').getByRole('button', { name: 'Start the update' }).click();
    const history = page.locator('section[aria-labelledby="history"]');
    const row = history.locator('tr[data-status="succeeded"]');
    await row.waitFor({ timeout: 120_000 });
    expect(await row.textContent()).toContain('1.0.0 → 2.0.0');
    await row.locator('summary', { hasText: 'Release notes' }).click();
    const releases = row.locator('ol.releases > li');
    await expect
      .poll(() => releases.evaluateAll((items) => items.map((item) => item.getAttribute('data-release'))), {
        timeout: 15_000,
      })
      .toEqual(['v1.0.1', 'v1.1.0', 'v2.0.0']);
    await row.locator('[data-rendered="markdown"]').nth(2).waitFor();
    expect(await row.getByRole('heading', { name: 'Breaking changes', exact: true }).count()).toBe(1);
    await expectInert(row.locator('ol.releases'));
    expect(foreign).toEqual([]);
    expect(other.requests).toEqual([]);
    expect(seen.problems).toEqual([]);
  });
});
