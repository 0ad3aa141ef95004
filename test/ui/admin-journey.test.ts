// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates hold ${…} on purpose
/**
 * Journeys through the administration views, in a real Chromium against a real hub over a socket
 * with a basic user, a listen-mode agent peer and an http notification trigger delivering to a real
 * receiver: an edge key registered in the UI lets an agent sign in and its revocation (confirmed in a
 * dialog) disconnects it, next to the listen-mode agent; an API key created in the UI works against the API with its secret (shown once) and, revoked
 * in the UI with the confirmation header, takes the key it minted with it and gets 401; a rule
 * template edited in the UI changes the hub's preview; a trigger's test run reaches the receiver;
 * a failed delivery is deleted from the outbox; the audit log lists what these journeys did. Key
 * names with markup, right-to-left text and emoji render as text; axe finds nothing serious.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, phc } from '../security/auth-fixtures';
import { gotoSteady, launchChromium, reloadSteady } from '../support/chromium';
import { type EdgePeer, newEdgeIdentity, signedInPeer } from '../support/edge-peer';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { type ListenAgentPeer, peerContainer, startListenAgentPeer } from '../support/listen-agent-peer';
import { FAST_RETRIES } from '../support/notification-hub';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { expectAccessible, followNavLink, type PageProblems, watchPage } from './ui-browser';

const EDGE_LABEL = '"><img src=x onerror=alert(1)> مرحبا 🚀';
const KEY_NAME = '<script>alert(1)</script> שלום 🔑';

let hub: HubClient;
let receiver: NotificationReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let seen: PageProblems;
let peer: EdgePeer | undefined;
let listenAgent: ListenAgentPeer;
const LISTEN_SECRET = 'listen-secret-5e6f7a8b9c0d1e2f';

/** The hub's API with a key, as curl would call it. */
const withKey = (key: string, path: string, init: RequestInit = {}) =>
  fetch(`${hub.url}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${key}` } });
const noInjectedMarkup = async () => {
  expect(await page.locator('img[src="x"], main script').count()).toBe(0);
};

beforeAll(async () => {
  receiver = await startNotificationReceiver();
  // A listen-mode agent the hub dials (decisions §6: it lists like an edge agent, with its port).
  listenAgent = await startListenAgentPeer(LISTEN_SECRET);
  listenAgent.containers = [peerContainer('l1', 'listen-one')];
  hub = await createServerHub(
    {
      DD_AUTH_BASIC_BOB_USER: 'bob',
      DD_AUTH_BASIC_BOB_HASH: phc(PASSWORD),
      DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}/ops`,
      DD_AGENT_SHED_HOST: '127.0.0.1',
      DD_AGENT_SHED_PORT: String(listenAgent.port),
      DD_AGENT_SHED_SECRET: LISTEN_SECRET,
    },
    { notificationTiming: FAST_RETRIES },
  );
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  seen = watchPage(page, [
    // Before signing in, "who am I" answers 401.
    /^401 GET \/api\/v1\/auth\/user$/,
    /^failed GET \/api\/v1\/(events\/ui|auth\/user): net::ERR_ABORTED$/,
    // The receiver is told to fail once: the test run answers 502, as it should.
    /^502 POST \/api\/v1\/triggers\/http\/ops$/,
    /^console: Failed to load resource: .* (401|502)/,
  ]);
  await gotoSteady(page, `${hub.url}/`);
  await page.getByLabel('Username').fill('bob');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
});

afterAll(async () => {
  peer?.close();
  await browser?.close();
  await hub?.close();
  await receiver?.close();
  await listenAgent?.close();
});

describe('agents and edge keys', () => {
  it('registers a pasted public key under a hostile name, shown as text; the agent then signs in', async () => {
    const identity = await newEdgeIdentity();
    await followNavLink(page, 'Agents');
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByLabel('Public key').fill(identity.publicKeyBase64);
    await page.getByLabel('Name', { exact: true }).fill(EDGE_LABEL);
    await page.getByRole('button', { name: 'Register the key' }).click();
    const row = page.locator(`tr[data-key="${identity.keyId}"]`);
    await expect.poll(() => row.locator('td[data-label="Name"]').textContent()).toBe(EDGE_LABEL);
    expect(await row.locator('td[data-label="State"]').textContent()).toBe('active');

    if (!hub.url) throw new Error('the hub must listen');
    peer = await signedInPeer(hub.url, identity, 'nas');
    peer.ws.on('message', (data) => {
      if (JSON.parse(data.toString()).type === 'ping') peer?.send({ type: 'pong' });
    });
    const agent = page.locator('tr[data-agent="nas"]');
    await expect.poll(() => agent.locator('td[data-label="State"]').textContent()).toContain('connected');
    expect(await agent.locator('td[data-label="Mode"]').textContent()).toBe('edge (dials out)');
    const listening = page.locator('tr[data-agent="shed"]');
    await expect.poll(() => listening.locator('td[data-label="State"]').textContent()).toContain('connected');
    expect(await listening.locator('td[data-label="Mode"]').textContent()).toBe(`listen (port ${listenAgent.port})`);
    // The key's agents are read when the list loads: the view opened again shows the binding.
    await followNavLink(page, 'Dashboard');
    await followNavLink(page, 'Agents');
    await expect.poll(() => row.locator('td[data-label="Agents"]').textContent()).toBe('nas');
    await noInjectedMarkup();
    expect(seen.problems).toEqual([]);
  });

  it('revokes the key only after a confirmation; the agent is disconnected on screen', async () => {
    const keyId = (await page.locator('tr[data-key]').first().getAttribute('data-key')) as string;
    const row = page.locator(`tr[data-key="${keyId}"]`);
    await row.getByRole('button', { name: /Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this edge key?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(EDGE_LABEL);
    expect(await dialog.textContent()).toContain('nas will be disconnected now');
    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await row.locator('td[data-label="State"]').textContent()).toBe('active');

    const closed = new Promise<number>((resolve) => peer?.ws.once('close', (code) => resolve(code)));
    await row.getByRole('button', { name: /Revoke/ }).click();
    await dialog.getByRole('button', { name: 'Revoke the key' }).click();
    await expect.poll(() => row.locator('td[data-label="State"]').textContent()).toMatch(/^revoked /);
    expect(await closed).toBe(4002);
    await expect
      .poll(() => page.locator('tr[data-agent="nas"] td[data-label="State"]').textContent())
      .toContain('disconnected');
    expect(seen.problems).toEqual([]);
  });
});

describe('API keys', () => {
  let secret = '';
  let child = '';

  it('creates a key with chosen scopes; its secret shows once and works against the API', async () => {
    await followNavLink(page, 'API keys');
    await page.getByLabel('Name').fill(KEY_NAME);
    // `read` is ticked by default; add what this key will need.
    await page.getByRole('checkbox', { name: /^audit:read/ }).check();
    await page.getByRole('checkbox', { name: /^api-keys:manage/ }).check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    const field = page.getByLabel('The new key');
    await field.waitFor();
    secret = await field.inputValue();
    expect(secret).toMatch(/^ddk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);

    expect((await withKey(secret, '/api/v1/audit')).status).toBe(200);
    // Scopes it was not given stay closed.
    expect((await withKey(secret, '/api/v1/settings', { method: 'PATCH', body: '{}' })).status).toBe(403);
    // A key it mints, which its revocation must take along (http-interface §3.1).
    const minted = await withKey(secret, '/api/v1/api-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci-child', scopes: ['read'] }),
    });
    expect(minted.status).toBe(201);
    child = ((await minted.json()) as { apiKey: string }).apiKey;

    // The copy button puts the very secret on the clipboard.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: hub.url as string });
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Create the key' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(seen.problems).toEqual([]);
  });

  it('lists the keys with the hostile name as text and revokes with the header, cascading', async () => {
    // The list is read when the view opens: open it again to see the minted key.
    await followNavLink(page, 'Audit log');
    await followNavLink(page, 'API keys');
    const keyId = secret.split('_')[1] as string;
    const row = page.locator(`tr[data-key="${keyId}"]`);
    await expect.poll(() => row.locator('td[data-label="Name"]').textContent()).toBe(KEY_NAME);
    await expect.poll(() => page.locator('tr[data-key]').count()).toBe(2);
    await noInjectedMarkup();

    const dialog = page.getByRole('dialog', { name: 'Revoke this API key?' });
    // Escape closes the dialog without revoking; focus starts on Cancel, so Enter would not revoke either.
    await row.getByRole('button', { name: /Revoke/ }).click();
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await row.locator('td[data-label="State"]').textContent()).toBe('active');

    await row.getByRole('button', { name: /Revoke/ }).click();
    expect(await dialog.textContent()).toContain('ci-child');
    const request = page.waitForRequest((r) => r.method() === 'DELETE' && r.url().endsWith(`/api-keys/${keyId}`));
    await dialog.getByRole('button', { name: 'Revoke the key' }).click();
    expect((await request).headers()['x-dd-confirm-action']).toBe('api-key-revoke');
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Revoked' }).textContent())
      .toContain('and 1 key it had created');
    await expect.poll(() => row.locator('td[data-label="State"]').textContent()).toBe('revoked');

    expect((await withKey(secret, '/api/v1/audit')).status).toBe(401);
    expect((await withKey(child, '/api/v1/containers')).status).toBe(401);
    expect(seen.problems).toEqual([]);
  });
});

describe('notifications', () => {
  it('previews a rule template as it is typed, and saves it', async () => {
    await followNavLink(page, 'Notifications');
    const rule = page.locator('article[data-rule="update-available"]');
    await rule.getByRole('button', { name: /Edit the templates/ }).click();
    const title = rule.locator('[data-preview="simpleTitle"]');
    await expect.poll(() => title.textContent()).toBeTruthy();
    const before = await title.textContent();

    await rule.getByLabel('Title', { exact: true }).fill('Hello ${container.name} 🚀 <b>bold</b>');
    await expect.poll(() => title.textContent()).toBe('Hello example 🚀 <b>bold</b>');
    expect(before).not.toBe('Hello example 🚀 <b>bold</b>');

    await rule.getByRole('button', { name: 'Save the templates' }).click();
    await rule.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const rules = (await (await context.request.get(`${hub.url}/api/v1/notifications`)).json()) as {
      data: { id: string; templates: Record<string, { simpleTitle?: string }> }[];
    };
    expect(rules.data.find((r) => r.id === 'update-available')?.templates['http.ops']?.simpleTitle).toBe(
      'Hello ${container.name} 🚀 <b>bold</b>',
    );
    expect(seen.problems).toEqual([]);
  });

  it('runs a trigger with a test message; a failed one waits in the outbox, is retried, and deleted after confirming', async () => {
    const trigger = page.locator('li[data-trigger="http.ops"]');
    const send = () => trigger.getByRole('button', { name: /Send a test/ }).click();
    await send();
    await expect.poll(() => trigger.getByRole('status').textContent()).toBe('Delivered a test message.');
    expect((await receiver.waitFor(1))[0]?.path).toMatch(/\/ops$/);

    // The receiver fails: the test run says so, and the message ends as a dead letter (fast retries).
    receiver.behave({ status: 500, body: 'receiver is down' });
    await send();
    await expect.poll(() => trigger.getByRole('status').textContent()).toContain('could not deliver');
    const entry = page.locator('tr[data-outbox]');
    const state = entry.locator('td[data-label="State"]');
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return state.textContent();
      })
      .toBe('dead-letter');
    expect(await entry.locator('td[data-label="Last error"]').textContent()).toContain('500');

    // Retried once the receiver is back: delivered, so the outbox empties.
    receiver.behave({ status: 200 });
    const delivered = receiver.received.length;
    await entry.getByRole('button', { name: 'Retry' }).click();
    await receiver.waitFor(delivered + 1);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return entry.count();
      })
      .toBe(0);

    // Another dead letter, deleted: the dialog asks first.
    receiver.behave({ status: 500, body: 'receiver is down' });
    await send();
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return state.textContent();
      })
      .toBe('dead-letter');
    await entry.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this message?' })
      .getByRole('button', { name: 'Delete the message' })
      .click();
    await page.getByText('Nothing is waiting').waitFor();
    receiver.behave({ status: 200 });
    expect(seen.problems).toEqual([]);
  });
});

describe('the audit log', () => {
  it('lists what the journeys did, newest first, with the hostile names as text', async () => {
    await followNavLink(page, 'Audit log');
    const rows = page.locator('table.audit tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(5);
    const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
    for (const action of ['auth-login', 'edge-key-created', 'edge-key-revoked', 'api-key-created', 'api-key-revoked'])
      expect(actions).toContain(action);
    expect(actions.indexOf('api-key-revoked')).toBeLessThan(actions.indexOf('edge-key-created'));
    const created = page.locator('tr[data-action="api-key-created"] td[data-label="Details"]');
    await expect
      .poll(() => created.allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining(KEY_NAME)]));
    await noInjectedMarkup();
  });

  it('filters by action, in the address so the view can be shared', async () => {
    await page.getByLabel('Action').selectOption('edge-key-revoked');
    await expect.poll(() => page.url()).toContain('action=edge-key-revoked');
    const rows = page.locator('table.audit tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator('td[data-label="Details"]').textContent()).toContain(EDGE_LABEL);
    // A time range that ends before the journeys began holds nothing.
    await page.getByLabel('To', { exact: true }).fill('2020-01-01T00:00');
    await page.getByLabel('To', { exact: true }).dispatchEvent('change');
    await page.getByRole('status').filter({ hasText: '0 entries' }).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(5);
    expect(seen.problems).toEqual([]);
  });
});

describe('the application log', () => {
  it('shows entries live, filtered by lowest level and component', async () => {
    await followNavLink(page, 'Log');
    await page.locator('[data-stream="live"]').waitFor();
    await page.getByLabel('Lowest level').selectOption('warn');
    await expect.poll(() => page.url()).toContain('level=warn');
    await page.locator('[data-stream="live"]').waitFor();
    await page.getByLabel('Component').selectOption('edge');
    const lines = page.locator('ol.log li');
    // The edge key revoked earlier was logged as a warning by the edge component.
    await expect.poll(() => lines.count()).toBeGreaterThanOrEqual(1);
    const levels = await lines.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-level')));
    expect(levels.every((level) => level === 'warn' || level === 'error' || level === 'fatal')).toBe(true);

    // A new entry arrives on the open socket, without a reload. Counted by its text: the stream may
    // still be delivering entries from before the filter changed, so the total is no measure.
    const identity = await newEdgeIdentity();
    const registered = await context.request.post(`${hub.url}/api/v1/edge/keys`, {
      data: { publicKey: identity.publicKeyBase64, label: 'log-probe' },
    });
    expect(registered.status()).toBe(201);
    expect((await context.request.delete(`${hub.url}/api/v1/edge/keys/${identity.keyId}`)).status()).toBe(200);
    const revoked = lines.filter({ hasText: `edge key ${identity.keyId} revoked` });
    await expect.poll(() => revoked.count()).toBe(1);
    expect(seen.problems).toEqual([]);
  });
});

describe('settings and preferences', () => {
  it('changes a hub setting and keeps a theme across a reload', async () => {
    await followNavLink(page, 'Settings');
    await page.getByLabel('Updates').selectOption('notify');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const settings = (await (await context.request.get(`${hub.url}/api/v1/settings`)).json()) as {
      updateMode: string;
    };
    expect(settings.updateMode).toBe('notify');

    // The choice is stored on the hub as well; the reload waits for that request, which a reload
    // in flight would abort (a loaded CI machine once saw net::ERR_ABORTED here).
    const stored = page.waitForResponse(
      (response) => response.url().endsWith('/api/v1/preferences') && response.request().method() === 'PATCH',
    );
    await page.getByRole('radio', { name: 'Dark' }).check();
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect((await stored).ok()).toBe(true);
    await reloadSteady(page);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await page.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'As the system' }).check();
    await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBeNull();
    expect(seen.problems).toEqual([]);
  });
});

describe('accessibility', () => {
  const views = [
    ['/agents', 'tr[data-key]'],
    ['/api-keys', 'tr[data-key]'],
    ['/audit', 'table.audit tbody tr'],
    ['/notifications', 'article[data-rule]'],
    ['/log', 'ol.log li'],
    ['/settings', 'input[type="radio"]'],
  ] as const;
  for (const [path, ready] of views) {
    it(`has no serious or critical axe violation on ${path}, light and dark`, { timeout: 90_000 }, async () => {
      await expectAccessible(browser, `${hub.url}${path}`, ready, { storageState: await context.storageState() });
    });
  }
});
