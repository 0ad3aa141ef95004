/**
 * The Home Assistant wud-card (fixtures/wud-card: a version before and one after its switch to the
 * per-container trigger route) in real Chromium, against the hub on a real dockerd and registry with
 * DD_COMPAT_WUDCARD=true, a basic user the card signs in as with HTTP Basic, a Docker action
 * trigger and a notification trigger. Pressing the card's Update (its first trigger) must update
 * the container for real: Docker runs the new image afterwards. The card's other credential, an API
 * key sent as Bearer, keeps its scopes through the compat routes.
 *
 * Regressions: wud-card-old-trigger-route (card versions posting to /api/triggers/{type}/{name} got
 * 410) and wud-card-update-notifies (the first trigger was a notification, so "Update triggered"
 * was reported while nothing updated).
 *
 * The page is served by a small reverse proxy of the test's own, on the origin the card calls, so the
 * browser makes same-origin requests; the last case runs the card as Home Assistant does, on an
 * origin of its own calling the hub directly, allowed by DD_SERVER_CORS_ORIGINS.
 */
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { PASSWORD, USERS_ENV } from '../security/auth-fixtures';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { type NotificationReceiver, startNotificationReceiver } from '../support/notification-receiver';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const CARD_VERSIONS = [
  { commit: '1a2eb09', container: 'alpha', posts: () => '/api/triggers/docker/update' },
  { commit: '57b968c', container: 'bravo', posts: (id: string) => `/api/containers/${id}/triggers/docker/update` },
] as const;
const BASIC = { authorization: `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}` };

const cardSource = (commit: string) =>
  readFileSync(new URL(`../support/fixtures/wud-card/${commit}/wud-card.js`, import.meta.url), 'utf8');

/** Serves the test page and the card, and passes /api/* to the hub with the Host header kept, as a reverse proxy does. */
async function startCardOrigin(hubUrl: string): Promise<{ url: string; server: Server; posts: string[] }> {
  const hub = new URL(hubUrl);
  const posts: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const card = /^\/card\/(\w+)\/wud-card\.js$/.exec(path);
    if (card?.[1]) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(cardSource(card[1]));
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>card</title><body></body>');
      return;
    }
    if (req.method === 'POST') posts.push(path);
    const upstream = httpRequest(
      { host: hub.hostname, port: hub.port, path, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, posts };
}

/** Serves the test page and the cards only, as Home Assistant does: the card then calls the hub on another origin. */
async function startHomeAssistantOrigin(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const card = /^\/card\/(\w+)\/wud-card\.js$/.exec(req.url ?? '/');
    if (card?.[1]) res.writeHead(200, { 'content-type': 'text/javascript' }).end(cardSource(card[1]));
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>ha</title><body></body>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A Home Assistant-like page: the card's element, configured as its README says, given a `hass` with one update entity. */
async function mountCard(
  page: Page,
  origin: string,
  commit: string,
  container: string,
  credentials: { user?: string; password?: string; auth?: string } = { user: 'alice', password: PASSWORD },
  hubUrl = origin,
): Promise<void> {
  await gotoSteady(page, origin);
  await page.addScriptTag({ url: `${origin}/card/${commit}/wud-card.js`, type: 'module' });
  await page.evaluate(
    ({ hubUrl, container, credentials }) => {
      const notes: { message: string; type: string }[] = [];
      (window as unknown as { notes: typeof notes }).notes = notes;
      document.addEventListener('hass-notification', (event) => {
        notes.push((event as CustomEvent<{ message: string; type: string }>).detail);
      });
      const card = document.createElement('wud-card') as HTMLElement & {
        setConfig(config: unknown): void;
        hass: unknown;
      };
      card.setConfig({ wud_api: { url: hubUrl, ...credentials, show_update_buttons: true } });
      document.body.append(card);
      card.hass = {
        language: 'en',
        states: {
          [`update.wud_container_local_${container}`]: {
            state: 'on',
            attributes: { installed_version: '1.0.0', latest_version: '2.0.0', friendly_name: container },
          },
        },
      };
    },
    { hubUrl, container, credentials },
  );
}

const notesOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { notes: { message: string; type: string }[] }).notes);

describe('the Home Assistant wud-card against the hub on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let registry: TestRegistry;
  let receiver: NotificationReceiver;
  let hub: HubOnDockerd;
  let browser: Browser;
  let origin: Awaited<ReturnType<typeof startCardOrigin>>;
  let homeAssistant: Awaited<ReturnType<typeof startHomeAssistantOrigin>>;
  const oldIds = new Map<string, string>();

  // Read as the card reads it: the compatibility list, with HTTP Basic.
  const byName = async (name: string): Promise<Container | undefined> =>
    (await hub.json<Container[]>('/api/containers', { headers: BASIC })).find((c) => c.name === name);

  beforeAll(async () => {
    [dockerd, registry, receiver] = await Promise.all([
      startDockerd(),
      startRegistry({ variant: 'plain' }),
      startNotificationReceiver(),
    ]);
    const from = await publishApp(dockerd, registry, { repository: 'card/app', tag: '1.0.0', kind: 'http' });
    await publishApp(dockerd, registry, { repository: 'card/app', tag: '2.0.0', kind: 'http' });
    await pullApp(dockerd, from);
    for (const container of [...CARD_VERSIONS.map((version) => version.container), 'charlie']) {
      oldIds.set(container, await startWatchedApp(dockerd, container, from));
    }
    homeAssistant = await startHomeAssistantOrigin();
    hub = await startHubOnDockerd(dockerd, {
      ...USERS_ENV,
      DD_COMPAT_WUDCARD: 'true',
      DD_SERVER_CORS_ORIGINS: homeAssistant.url,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
      DD_NOTIFICATION_HTTP_OPS_URL: receiver.url,
    });
    const watched = await hub.api('/api/containers/watch', { method: 'POST', headers: BASIC });
    expect(watched.status).toBe(200);
    for (const { container } of CARD_VERSIONS) {
      expect(await byName(container)).toMatchObject({ updateAvailable: true, updateKind: { remoteValue: '2.0.0' } });
    }
    origin = await startCardOrigin(hub.url);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => origin?.server.close(resolve));
    await new Promise((resolve) => homeAssistant?.server.close(resolve));
    await hub?.close();
    await Promise.all([dockerd?.stop(), registry?.stop(), receiver?.close()]);
  });

  for (const { commit, container, posts } of CARD_VERSIONS) {
    it(`card ${commit}: Update (its first trigger) updates ${container} to 2.0.0 through ${posts('{id}')}`, async () => {
      const page = await browser.newPage();
      try {
        await mountCard(page, origin.url, commit, container);
        const card = page.locator('wud-card');
        await expect
          .poll(() => card.locator('.wud-status').textContent(), { timeout: 15_000 })
          .toContain('WUD connected');
        // Two triggers apply (the Docker action and the notification), so "Update ▼" opens a menu of them.
        await card.locator('button[data-action="toggle-menu"]').click();
        const items = card.locator('.trigger-item');
        expect(await items.allTextContents()).toEqual([
          expect.stringContaining('update (docker)'),
          expect.stringContaining('ops (http)'),
        ]);
        await items.first().click();
        // The card names the container as it knows it: "alpha" from the hub (1a2eb09), "Alpha" from Home Assistant.
        const triggered = `update triggered for ${container}`;
        await expect
          .poll(async () => (await notesOf(page)).some((note) => note.message.toLowerCase() === triggered), {
            timeout: 15_000,
          })
          .toBe(true);
        expect((await notesOf(page)).filter((note) => note.type === 'error')).toEqual([]);
        expect(origin.posts).toContain(posts(encodeURIComponent(oldIds.get(container) ?? '')));

        // Docker runs the new image: the hub's update sequence did it, not a notification.
        await expect
          .poll(async () => (await byName(container))?.image.tag.value, { timeout: 60_000, interval: 250 })
          .toBe('2.0.0');
        await hub.parts.updates.idle();
        const running = await dockerd.docker.getContainer(container).inspect();
        expect(running.Config.Image).toBe(`${registry.host}/card/app:2.0.0`);
        expect(running.State.Running).toBe(true);
        expect(running.Id).not.toBe(oldIds.get(container));
      } finally {
        await page.close();
      }
    }, 120_000);
  }

  it('card 57b968c: "Check for Updates" starts a watch through POST /api/containers/watch', async () => {
    const page = await browser.newPage();
    try {
      await mountCard(page, origin.url, '57b968c', 'bravo');
      const card = page.locator('wud-card');
      await card.locator('button.check-btn').click();
      await expect
        .poll(() => notesOf(page), { timeout: 15_000 })
        .toContainEqual({ message: 'Container check started', type: 'success' });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('card 1a2eb09 with an API key (its `auth` option, sent as Bearer): the key scopes hold on the compat routes', async () => {
    const login = await hub.api('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: PASSWORD }),
    });
    const cookie = `dd.sid=${/dd\.sid=([a-f0-9]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1]}`;
    const keyOf = async (scopes: string[]) => {
      const created = await hub.api('/api/v1/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ name: `card ${scopes.join(' ')}`, scopes }),
      });
      expect(created.status).toBe(201);
      return ((await created.json()) as { apiKey: string }).apiKey;
    };
    const checkWith = async (auth: string) => {
      const page = await browser.newPage();
      try {
        await mountCard(page, origin.url, '1a2eb09', 'alpha', { auth });
        const card = page.locator('wud-card');
        await expect
          .poll(() => card.locator('.wud-status').textContent(), { timeout: 15_000 })
          .toContain('WUD connected');
        await card.locator('button.check-btn').click();
        await expect.poll(async () => (await notesOf(page)).length, { timeout: 15_000 }).toBeGreaterThan(1);
        return (await notesOf(page)).map((note) => note.message);
      } finally {
        await page.close();
      }
    };
    expect(await checkWith(await keyOf(['read', 'containers:watch']))).toContain('Container check started');
    // A read-only key reads the list, and its watch is refused with the /api/v1 route's 403.
    const refused = await checkWith(await keyOf(['read']));
    expect(refused.some((message) => message.startsWith('Check failed: HTTP 403'))).toBe(true);
  }, 60_000);

  it('card 57b968c on its own origin, calling the hub across origins (DD_SERVER_CORS_ORIGINS): Update updates charlie', async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      await mountCard(page, homeAssistant.url, '57b968c', 'charlie', undefined, hub.url);
      const card = page.locator('wud-card');
      await expect
        .poll(() => card.locator('.wud-status').textContent(), { timeout: 15_000 })
        .toContain('WUD connected');
      await card.locator('button[data-action="toggle-menu"]').click();
      await card.locator('.trigger-item').first().click();
      await expect
        .poll(
          async () =>
            (await notesOf(page)).some((note) => note.message.toLowerCase() === 'update triggered for charlie'),
          {
            timeout: 15_000,
          },
        )
        .toBe(true);
      await expect
        .poll(async () => (await byName('charlie'))?.image.tag.value, { timeout: 60_000, interval: 250 })
        .toBe('2.0.0');
      await hub.parts.updates.idle();
      expect((await dockerd.docker.getContainer('charlie').inspect()).Config.Image).toBe(
        `${registry.host}/card/app:2.0.0`,
      );
      // No CORS refusal in the browser, nor any other error.
      expect(consoleErrors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
