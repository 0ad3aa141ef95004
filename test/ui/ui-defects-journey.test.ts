// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates hold ${…} on purpose
/**
 * The defects of issue 28 (item 8) that need no Docker, each a journey in a real Chromium against a
 * real hub over a socket (a basic user, an http notification trigger delivering to a real receiver,
 * an edge agent peer with containers), through a proxy that can hold a request back:
 * - the theme is chosen on the sign-in page, kept in the browser across a reload, and sent to the
 *   person's synced preferences once they sign in;
 * - the template editor opened before GET /triggers answers (held 1.5 s) fills its select once the
 *   list arrives, renders the preview and saves (it stayed blank, "Rendering…", "Invalid request body");
 * - an audit range whose From is after its To says so, instead of "0 entries";
 * - on a phone (390 px) the navigation folds behind a Menu button: the header is at most 64 px tall;
 * - no word in any table breaks mid-word at 1440 or 390 px (measured character by character);
 * - the application log is searched.
 * Each step fails on a console error or an unexpected failed request; axe finds nothing serious.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, phc } from '../security/auth-fixtures';
import { gotoSteady, launchChromium, reloadSteady } from '../support/chromium';
import { type EdgePeer, sampleContainer, sampleImage, snapshotFrames, waitFor } from '../support/edge-peer';
import { type HoldingProxy, startHoldingProxy } from '../support/holding-proxy';
import { createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { FAST_RETRIES } from '../support/notification-hub';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { connectAgent, expectAccessible, followNavLink, type PageProblems, watchPage } from './ui-browser';
import { brokenWords } from './word-breaks';

const IMAGE = '127.0.0.1:9/team/application-with-a-long-name:1.0.0';
const TRIGGER_DELAY_MS = 1_500;

let hub: HubClient;
let proxy: HoldingProxy;
let receiver: NotificationReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: PageProblems;
let peer: EdgePeer;

const EXPECTED = [
  // Before signing in, "who am I" answers 401.
  /^401 GET \/api\/v1\/auth\/user$/,
  /^failed GET \/api\/v1\/(events\/ui|auth\/user): net::ERR_ABORTED$/,
  // The receiver is told to fail: the test run answers 502, as it should.
  /^502 POST \/api\/v1\/triggers\/http\/ops$/,
  /^console: Failed to load resource: .* (401|502)/,
];

async function signIn(target: Page): Promise<void> {
  await target.getByLabel('Username').fill('bob');
  await target.getByLabel('Password').fill(PASSWORD);
  await target.getByRole('button', { name: 'Sign in' }).click();
  await target.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

beforeAll(async () => {
  receiver = await startNotificationReceiver();
  hub = await createServerHub(
    {
      DD_AUTH_BASIC_BOB_USER: 'bob',
      DD_AUTH_BASIC_BOB_HASH: phc(PASSWORD),
      DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops`,
    },
    { notificationTiming: FAST_RETRIES },
  );
  if (!hub.url) throw new Error('the hub must listen');
  proxy = await startHoldingProxy(hub.url);
  // The hub asks for a session: the agent's key is registered and the fleet read with bob's cookie.
  const login = await fetch(`${hub.url}/api/v1/auth/login`, jsonInit('POST', { username: 'bob', password: PASSWORD }));
  expect(login.status).toBe(200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const signedIn: HubClient = {
    ...hub,
    request: (path, init = {}) => hub.request(path, { ...init, headers: { ...init.headers, cookie } }),
  };
  ({ peer } = await connectAgent(signedIn, 'nas'));
  const fleet = ['web', 'database', 'worker'].map((name) =>
    sampleContainer(name, { image: IMAGE, labels: { 'dd.watch': 'true' } }),
  );
  for (const frame of snapshotFrames('local', fleet, [sampleImage({ repoTags: [IMAGE] })])) peer.send(frame);
  await waitFor(async () => {
    const listed = (await (await signedIn.request('/api/v1/containers')).json()) as { total: number };
    return listed.total === 3 ? true : undefined;
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  seen = watchPage(page, EXPECTED);
});

afterAll(async () => {
  peer?.close();
  await browser?.close();
  await proxy?.close();
  await hub?.close();
  await receiver?.close();
});

describe('the theme before sign-in', () => {
  it('is chosen on the sign-in page, kept across a reload, and synced to the preferences at sign-in', async () => {
    await gotoSteady(page, `${proxy.url}/`);
    await page.getByRole('heading', { name: 'Sign in to dockwatch' }).waitFor();
    await page.getByRole('radio', { name: 'Dark' }).check();
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
    await reloadSteady(page);
    await page.getByRole('heading', { name: 'Sign in to dockwatch' }).waitFor();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await page.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);

    const synced = page.waitForResponse(
      (response) => response.url().endsWith('/api/v1/preferences') && response.request().method() === 'PATCH',
    );
    await signIn(page);
    const answer = await synced;
    expect(answer.ok()).toBe(true);
    expect(answer.request().postDataJSON()).toEqual({ theme: 'dark' });
    const stored = (await (await context.request.get(`${proxy.url}/api/v1/preferences`)).json()) as { theme: string };
    expect(stored.theme).toBe('dark');
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    await followNavLink(page, 'Settings');
    await expect.poll(() => page.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
    expect(seen.problems).toEqual([]);
  });
});

describe('the notification template editor opened before the trigger list', () => {
  it('fills the select when the list arrives 1.5 s later, renders the preview and saves', async () => {
    await followNavLink(page, 'Dashboard');
    proxy.hold(/^GET \/api\/v1\/triggers$/);
    await followNavLink(page, 'Notifications');
    const rule = page.locator('article[data-rule="update-available"]');
    await rule.getByRole('button', { name: /Edit the templates/ }).click();
    await rule.getByText('Loading the triggers…').waitFor();
    await new Promise((resolve) => setTimeout(resolve, TRIGGER_DELAY_MS));
    expect(proxy.held().map((held) => held.line)).toEqual(['GET /api/v1/triggers']);
    await proxy.release();

    const select = rule.getByLabel('Trigger');
    await expect.poll(() => select.inputValue()).toBe('http.ops');
    const title = rule.locator('[data-preview="simpleTitle"]');
    await expect.poll(() => title.textContent()).toBeTruthy();
    await rule.getByLabel('Title', { exact: true }).fill('Late ${container.name}');
    await expect.poll(() => title.textContent()).toBe('Late example');
    await rule.getByRole('button', { name: 'Save the templates' }).click();
    await rule.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const rules = (await (await context.request.get(`${proxy.url}/api/v1/notifications`)).json()) as {
      data: { id: string; templates: Record<string, { simpleTitle?: string }> }[];
    };
    expect(rules.data.find((r) => r.id === 'update-available')?.templates['http.ops']?.simpleTitle).toBe(
      'Late ${container.name}',
    );
    expect(seen.problems).toEqual([]);
  });
});

describe('the audit range', () => {
  it('says that From is after To instead of "0 entries", and lists again once the range is right', async () => {
    await followNavLink(page, 'Audit log');
    const rows = page.locator('table.audit tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    await page.getByLabel('From', { exact: true }).fill('2030-01-02T00:00');
    await page.getByLabel('From', { exact: true }).dispatchEvent('change');
    await page.getByLabel('To', { exact: true }).fill('2030-01-01T00:00');
    await page.getByLabel('To', { exact: true }).dispatchEvent('change');
    const problem = page.getByRole('alert').filter({ hasText: 'is after' });
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/^"From" \(.+\) is after "To" \(.+\): choose a From before the To\.$/);
    expect(await page.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(
      await page
        .getByRole('status')
        .filter({ hasText: /entr(y|ies)/ })
        .count(),
    ).toBe(0);
    expect(await rows.count()).toBe(0);

    await page.getByLabel('From', { exact: true }).fill('2020-01-01T00:00');
    await page.getByLabel('From', { exact: true }).dispatchEvent('change');
    // 2020 to 2030 holds every entry of this run: the list comes back, its count said.
    await page
      .getByRole('status')
      .filter({ hasText: /^[1-9]\d* entr(y|ies)$/ })
      .waitFor();
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await problem.count()).toBe(0);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    expect(seen.problems).toEqual([]);
    // Three audit reads and two renders: seconds alone, longer on a machine the full suite shares.
  }, 90_000);
});

describe('the application log', () => {
  it('is searched: only the matching entries stay, the match marked', async () => {
    await followNavLink(page, 'Log');
    await page.locator('[data-stream="live"]').waitFor();
    const lines = page.locator('ol.log li');
    await expect.poll(() => lines.count()).toBeGreaterThan(1);
    await page.getByLabel('Search the log').fill('signed in');
    await expect.poll(() => page.locator('[data-log-count]').textContent()).toMatch(/^\d+ of \d+ lines match\.$/);
    const texts = await lines.allTextContents();
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text.toLowerCase()).toContain('signed in');
    expect(await lines.first().locator('mark').first().textContent()).toMatch(/^signed in$/i);
    expect(seen.problems).toEqual([]);
  });
});

describe('the navigation', () => {
  it('keeps the header one line at 1440 px, the administration behind "Manage"', async () => {
    expect(page.viewportSize()?.width).toBe(1440);
    await gotoSteady(page, `${proxy.url}/`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect((await page.locator('header.top').boundingBox())?.height).toBeLessThanOrEqual(64);
    const nav = page.getByRole('navigation', { name: 'Main' });
    const manage = nav.getByRole('button', { name: 'Manage' });
    const settings = nav.getByRole('link', { name: 'Settings', exact: true });
    const active = () => page.evaluate(() => document.activeElement?.textContent);
    expect(await settings.isVisible()).toBe(false);
    // Opened with the keyboard, closed with Escape: focus goes back to the button.
    await manage.focus();
    await page.keyboard.press('Enter');
    await settings.waitFor();
    await page.keyboard.press('Tab');
    expect(await active()).toBe('Rollouts');
    await page.keyboard.press('Escape');
    await expect.poll(() => settings.isVisible()).toBe(false);
    expect(await active()).toBe('Manage');
    // A click elsewhere (the right of the page, away from the open list) closes it too.
    await manage.click();
    await settings.waitFor();
    await page.mouse.click(1400, 700);
    await expect.poll(() => settings.isVisible()).toBe(false);
    // Followed: the page opens, the group closes and its button says the page is one of its own.
    await followNavLink(page, 'Settings');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await expect.poll(() => settings.isVisible()).toBe(false);
    expect(await manage.getAttribute('class')).toContain('current');
    // (A closed popover is out of the accessibility tree, so the link is found by its address.)
    expect(await page.locator('#main-nav a[href="/settings"]').getAttribute('aria-current')).toBe('page');
    expect(seen.problems).toEqual([]);
  });
});

describe('phones and tables', () => {
  it('folds the navigation behind a Menu button on a phone: the header is at most 64 px tall', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const small = await phone.newPage();
      const problems = watchPage(small, EXPECTED);
      await gotoSteady(small, `${proxy.url}/containers`);
      await small.getByRole('heading', { name: 'Containers', level: 1 }).waitFor();
      const header = small.locator('header.top');
      expect((await header.boundingBox())?.height).toBeLessThanOrEqual(64);
      const mainNav = small.getByRole('navigation', { name: 'Main' });
      expect(await mainNav.isVisible()).toBe(false);

      const menu = small.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await mainNav.getByRole('link', { name: 'Audit log', exact: true }).click();
      await small.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      // The navigation closed behind the person: the page starts right below a one-line header.
      await expect.poll(() => mainNav.isVisible()).toBe(false);
      expect((await header.boundingBox())?.height).toBeLessThanOrEqual(64);
      expect(problems.problems).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('breaks no word mid-word in any table, at 1440 and at 390 px', { timeout: 120_000 }, async () => {
    // Rows of every kind: an outbox entry (with its Delete button), API keys, agents and edge keys, the audit.
    receiver.behave({ status: 500, body: 'receiver is down' });
    await followNavLink(page, 'Notifications');
    await page
      .locator('li[data-trigger="http.ops"]')
      .getByRole('button', { name: /Send a test/ })
      .click();
    await expect
      .poll(() => page.locator('li[data-trigger="http.ops"]').getByRole('status').textContent())
      .toContain('could not deliver');
    const created = await context.request.post(`${proxy.url}/api/v1/api-keys`, {
      data: { name: 'deployment pipeline of the infrastructure team', scopes: ['read'] },
    });
    expect(created.status()).toBe(201);

    const views = [
      ['/notifications', 'tr[data-outbox]'],
      ['/api-keys', 'tr[data-key]'],
      ['/agents', 'tr[data-agent]'],
      ['/audit', 'table.audit tbody tr'],
      ['/containers', 'table.list tbody tr[data-id]'],
    ] as const;
    const found: string[] = [];
    for (const width of [1440, 390]) {
      const sized = await browser.newContext({
        viewport: { width, height: 900 },
        storageState: await context.storageState(),
      });
      try {
        const view = await sized.newPage();
        for (const [path, ready] of views) {
          await gotoSteady(view, `${proxy.url}${path}`);
          await view.locator(ready).first().waitFor();
          for (const word of await brokenWords(view)) found.push(`${width} px ${path}: ${word}`);
        }
      } finally {
        await sized.close();
      }
    }
    receiver.behave({ status: 200 });
    expect(found).toEqual([]);
  });
});

describe('accessibility', () => {
  for (const [path, ready] of [
    ['/', 'input[type="radio"]'],
    ['/audit?from=2030-01-02T00%3A00&to=2030-01-01T00%3A00', '.range-problem'],
    ['/log', 'ol.log li'],
  ] as const) {
    it(`has no serious or critical axe violation on ${path}, light and dark`, { timeout: 90_000 }, async () => {
      // The sign-in page is seen signed out; the others signed in.
      const storageState = path === '/' ? undefined : await context.storageState();
      await expectAccessible(browser, `${proxy.url}${path}`, ready, storageState ? { storageState } : {});
    });
  }
});
