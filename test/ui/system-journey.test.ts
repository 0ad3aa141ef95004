/**
 * The system page in a real Chromium (issue 28, item 7), against the hub as `npm start` runs it on a
 * real dockerd with a configuration file (DD_CONFIG_FILE) that adds a registry with a password: the
 * hub's version and that it cannot update itself outside a container; the local watcher with its
 * next run, read again on demand; the registry with its password masked; the configuration's
 * variables with their sources, a bad value named beside its variable when checked, then a good
 * file written and reloaded after a second click (the file on disk changed); axe in both themes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoSteady, launchChromium, reloadSteady } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';

const PASSWORD = 's3cret-mirror-pass';
const FILE = [
  '# the system journey: a registry with a password',
  'DD_REGISTRY:',
  '  custom:',
  '    mirror:',
  '      url: https://mirror.example.test',
  '      login: alice',
  `      password: ${PASSWORD}`,
  '',
].join('\n');

let dockerd: TestDockerd;
let hub: HubOnDockerd;
let browser: Browser;
let page: Page;
let seen: PageProblems;
let dir: string;
let file: string;
const section = (id: string) => page.locator(`section[aria-labelledby="${id}"]`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'system-journey-'));
  file = join(dir, 'dockwatch.yaml');
  await writeFile(file, FILE);
  dockerd = await startDockerd();
  hub = await startHubOnDockerd(dockerd, { DD_CONFIG_FILE: file, DD_WATCHER_LOCAL_CRON: '0 * * * *' });
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  seen = watchPage(page, [/^400 POST \/api\/v1\/config\/validate$/, /^console: Failed to load resource: .* 400/]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await hub?.hub.close();
  await dockerd?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the system page', () => {
  it('tells the version and that the hub cannot update itself outside a container', async () => {
    await gotoSteady(page, `${hub.url}/system`);
    const version = (await hub.json<{ version: string }>('/api/v1/app')).version;
    await section('this-hub').locator('[data-field="version"]').waitFor();
    expect(await section('this-hub').locator('[data-field="version"]').textContent()).toBe(`dockwatch ${version}`);
    expect(await section('this-hub').locator('[data-field="self-update"]').textContent()).toContain(
      'cannot update itself',
    );
  });

  it('lists the watcher with its schedule and next run, and reads it again on demand', async () => {
    // After its first run (2 s after the start), the next is the cron's.
    await expect
      .poll(
        async () =>
          (await hub.json<{ data: { metadata: { lastRunAt?: string } }[] }>('/api/v1/watchers')).data[0]?.metadata
            .lastRunAt,
        {
          timeout: 30_000,
        },
      )
      .toBeDefined();
    await reloadSteady(page);
    const row = section('watchers').locator('tr[data-watcher="local"]');
    await row.waitFor();
    expect(await row.locator('td[data-label="Schedule"]').textContent()).toBe('0 * * * *');
    expect(await row.locator('td[data-label="Where"]').textContent()).toContain(dockerd.socketPath);
    // The next top of the hour: seconds away when the test runs in the minute before it.
    expect(await row.locator('[data-field="next-run"]').textContent()).toMatch(
      /^in \d+ (seconds?|minutes?)$|^in 1 hour$|^now$/,
    );
    await row.getByRole('button', { name: 'Read local again' }).click();
    await section('watchers').getByRole('status').filter({ hasText: 'Read the containers of local again.' }).waitFor();
  });

  it('lists the registry from the file with its password masked', async () => {
    const row = section('registries').locator('tr[data-registry="custom.mirror"]');
    await row.waitFor();
    expect(await row.locator('td[data-label="Configured"]').textContent()).toBe('yes');
    expect(await section('registries').textContent()).not.toContain(PASSWORD);
  });

  it('names a bad value beside its variable, then writes a good file and reloads it', async () => {
    const config = section('configuration');
    await config.locator('tr[data-variable="DD_REGISTRY_CUSTOM_MIRROR_PASSWORD"]').waitFor();
    expect(
      await config
        .locator('tr[data-variable="DD_REGISTRY_CUSTOM_MIRROR_PASSWORD"] td[data-label="From"]')
        .textContent(),
    ).toBe('file');
    expect(await config.textContent()).not.toContain(PASSWORD);
    // The file is shown with its secrets masked; a masked value sent back keeps the file's.
    const editor = config.getByRole('textbox', { name: /dockwatch\.yaml/ });
    const shown = await editor.inputValue();
    expect(shown).not.toContain(PASSWORD);
    expect(shown).toContain('***');

    await editor.fill(`${shown}DD_LOG_LEVEL: loud\n`);
    await config.getByRole('button', { name: 'Check' }).click();
    const problems = config.locator('[data-field="validation"]');
    await problems.waitFor();
    expect(await problems.getAttribute('role')).toBe('alert');
    expect(await problems.textContent()).toContain('DD_LOG_LEVEL');
    expect(await config.getByRole('button', { name: 'Save and reload…' }).count()).toBe(0);

    await editor.fill(`${shown}DD_LOG_LEVEL: debug\n`);
    await config.getByRole('button', { name: 'Check' }).click();
    await config.getByRole('status').filter({ hasText: 'The file is valid' }).waitFor();
    await config.getByRole('button', { name: 'Save and reload…' }).click();
    await config.getByRole('button', { name: 'Write the file and reload now' }).click();
    await config
      .getByRole('status')
      .filter({ hasText: /^Saved and reloaded/ })
      .waitFor();
    const written = await readFile(file, 'utf8');
    expect(written).toContain('DD_LOG_LEVEL: debug');
    expect(written).toContain(PASSWORD);
    expect(seen.problems).toEqual([]);
  });

  it('passes axe in light and dark', { timeout: 90_000 }, async () => {
    await expectAccessible(browser, `${hub.url}/system`, 'tr[data-watcher]');
  });
});
