/**
 * The administration pages of issue 28 item 7 in a real Chromium against the hub on real Docker
 * hosts: two private dockerds (the hub's watchers `local` and `second`, so a rollout has a canary
 * host and a second wave), one registry with 1.0.0 and 2.0.0 of two images, a Docker action trigger.
 * - /rollouts: the form says its problems beside the fields (an empty image, 0 hosts a wave, an
 *   image with nothing pending: the hub's 409 in words), previews the waves, starts a rollout; its
 *   canary is updated live, it waits out the pause, is paused, resumed and goes on to completed
 *   (the containers really run 2.0.0); a second one is aborted (asked first), its second host untouched;
 * - /policies: a group policy is set (a bad window said beside its field), shown with the containers
 *   it applies to, another set elsewhere appears live, one edited and cleared (asked first); a label override
 *   by selector is added (a hook label refused beside the field) and removed (asked first);
 * no console error, no word broken mid-word in the policies' tables, and axe finds nothing serious on
 * either page at 390 and 1440 px, light and dark.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import type { GroupPolicy } from '../../shared/schemas/group-policy';
import type { GlobalLabelOverride } from '../../shared/schemas/label-override';
import type { Rollout } from '../../shared/schemas/rollout';
import { gotoSteady, launchChromium } from '../support/chromium';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { publishApp, pullApp, startWatchedApp } from '../support/docker/update-images';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { expectAccessible, followNavLink, type PageProblems, watchPage } from './ui-browser';
import { brokenWords } from './word-breaks';

let first: TestDockerd;
let second: TestDockerd;
let registry: TestRegistry;
let hub: HubOnDockerd;
let browser: Browser;
let page: Page;
let seen: PageProblems;
/** The repositories as rollouts name them (`127.0.0.1:<port>/admin/web`). */
const repo: Record<'web' | 'api', string> = { web: '', api: '' };

const containers = async () => (await hub.json<{ data: Container[] }>('/api/v1/containers')).data;
const rollouts = async () => (await hub.json<{ data: Rollout[] }>('/api/v1/rollouts')).data;
const card = (image: string) => page.locator('article.rollout', { hasText: image });
const field = (id: string) => page.locator(`#${id}`);
const problemOf = (id: string) => page.locator(`#${id}-problem`);

beforeAll(async () => {
  [first, second, registry] = await Promise.all([startDockerd(), startDockerd(), startRegistry({ variant: 'plain' })]);
  for (const name of ['web', 'api'] as const) {
    const from = await publishApp(first, registry, { repository: `admin/${name}`, tag: '1.0.0', kind: 'http' });
    await publishApp(first, registry, { repository: `admin/${name}`, tag: '2.0.0', kind: 'http' });
    for (const dockerd of [first, second]) {
      await pullApp(dockerd, from);
      await startWatchedApp(dockerd, name, from, { 'dd.group': 'shop' });
    }
    repo[name] = from.replace(/:1\.0\.0$/, '');
  }
  hub = await startHubOnDockerd(first, {
    DD_WATCHER_SECOND_SOCKET: second.socketPath,
    DD_WATCHER_SECOND_JITTER: '0',
    DD_WATCHER_SECOND_WATCHBYDEFAULT: 'false',
    DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '15',
  });
  expect((await hub.api('/api/v1/containers/watch', { method: 'POST' })).status).toBe(200);
  const pending = (await containers()).filter((c) => c.updateAvailable);
  expect(pending.map((c) => `${c.watcher}/${c.name}`).sort()).toEqual([
    'local/api',
    'local/web',
    'second/api',
    'second/web',
  ]);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  seen = watchPage(page, [
    // The form's image with nothing pending: the hub's 409, said beside the field (asserted below).
    /^409 POST \/api\/v1\/rollouts$/,
    /^console: Failed to load resource: the server responded with a status of 409/,
    // A label the hub refuses would be 400; the form refuses hooks before sending, so none is expected.
  ]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await Promise.all([first?.stop(), second?.stop(), registry?.stop()]);
});

describe('the rollouts page', () => {
  it('says the form’s problems beside the fields, and the hub’s refusal in words', async () => {
    await gotoSteady(page, `${hub.url}/`);
    await followNavLink(page, 'Rollouts');
    await page.getByRole('heading', { level: 1, name: 'Rollouts' }).waitFor();
    await page.getByText('No rollout yet.').waitFor();
    await page.getByRole('button', { name: 'Start a rollout' }).click();
    await page.getByRole('button', { name: 'Start the rollout' }).click();
    expect(await problemOf('rollout-image').textContent()).toContain('Name the image to roll out');
    expect(await field('rollout-image').getAttribute('aria-invalid')).toBe('true');
    await field('rollout-image').fill('127.0.0.1:1/nothing/here');
    await field('rollout-waveSize').fill('0');
    await page.getByRole('button', { name: 'Start the rollout' }).click();
    expect(await problemOf('rollout-waveSize').textContent()).toBe('Hosts per wave must be between 1 and 1000.');
    expect(await problemOf('rollout-image').count()).toBe(0);
    await field('rollout-waveSize').fill('1');
    expect(await problemOf('rollout-waveSize').count()).toBe(0);
    await page.getByRole('button', { name: 'Start the rollout' }).click();
    await expect
      .poll(() => problemOf('rollout-image').textContent())
      .toMatch(/No container of .* has an update pending/);
    expect(await rollouts()).toEqual([]);
  });

  it('previews the waves, starts a rollout and shows its canary updated live, then the pause', async () => {
    await field('rollout-image').fill(repo.web);
    await field('rollout-pauseSeconds').fill('3600');
    const preview = page.locator('.preview-waves li');
    await expect
      .poll(() => preview.allTextContents())
      .toEqual(['Canary: this hub (watcher local) (web) → 2.0.0', 'Wave 1: this hub (watcher second) (web) → 2.0.0']);
    await page.getByRole('button', { name: 'Start the rollout' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Rollout of ${repo.web} to 2.0.0 started.` })
      .waitFor();
    const web = card(repo.web);
    // The canary's update runs and ends: followed from the stream, no reload.
    await expect
      .poll(() => web.locator('[data-host="__local__:local"] [data-container="web"] .outcome').textContent(), {
        timeout: 60_000,
      })
      .toBe('Updated');
    await expect.poll(() => web.locator('.rollout-sentence').textContent()).toBe('Waiting before wave 1 of 2.');
    expect(await web.locator('[data-host="__local__:second"] .state').textContent()).toBe('Waiting its turn');
    expect(await web.locator('.wave.current h3').textContent()).toBe('Wave 1 (now)');
    expect(seen.calls.filter((call) => call.startsWith('GET /api/v1/rollouts')).length).toBe(1);
  });

  it('pauses and resumes it; the second wave then runs to completed, and Docker runs 2.0.0 on both hosts', async () => {
    const web = card(repo.web);
    await web.getByRole('button', { name: `Pause the rollout of ${repo.web}` }).click();
    await expect.poll(() => web.getAttribute('data-state')).toBe('paused');
    expect(await web.locator('.rollout-sentence').textContent()).toBe('Paused before wave 1 of 2. Resume to go on.');
    expect((await rollouts())[0]?.state).toBe('paused');
    await web.getByRole('button', { name: `Resume the rollout of ${repo.web}` }).click();
    await expect.poll(() => web.getAttribute('data-state'), { timeout: 60_000 }).toBe('completed');
    expect(await web.locator('.rollout-sentence').textContent()).toBe('Every host is updated.');
    expect(await web.locator('.rollout-host .state').allTextContents()).toEqual(['Updated', 'Updated']);
    expect(await web.getByRole('button').count()).toBe(0);
    for (const dockerd of [first, second]) {
      const [running] = await dockerd.docker.listContainers({ filters: { name: ['^/web$'] } });
      expect(running?.Image).toBe(`${repo.web}:2.0.0`);
    }
  });

  it('aborts a rollout after asking, leaving its second host untouched', async () => {
    await page.getByRole('button', { name: 'Start a rollout' }).click();
    await field('rollout-image').fill(repo.api);
    await field('rollout-pauseSeconds').fill('3600');
    await page.getByRole('button', { name: 'Start the rollout' }).click();
    const api = card(repo.api);
    await expect
      .poll(() => api.locator('.rollout-sentence').textContent(), { timeout: 60_000 })
      .toBe('Waiting before wave 1 of 2.');
    // Newest first.
    expect(await page.locator('article.rollout').first().getAttribute('data-rollout')).toBe(
      await api.getAttribute('data-rollout'),
    );
    await api.getByRole('button', { name: `Abort… the rollout of ${repo.api}` }).click();
    const dialog = page.getByRole('dialog', { name: `Abort the rollout of ${repo.api}?` });
    expect(await dialog.locator('p').textContent()).toBe(
      'Not touched, staying on their version: this hub (watcher second). An aborted rollout cannot be resumed.',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await rollouts()).find((r) => r.image === repo.api)?.state).toBe('running');
    await api.getByRole('button', { name: `Abort… the rollout of ${repo.api}` }).click();
    await dialog.getByRole('button', { name: 'Abort the rollout' }).click();
    await expect.poll(() => api.getAttribute('data-state')).toBe('aborted');
    const aborted = (await rollouts()).find((r) => r.image === repo.api);
    expect(aborted?.hosts.map((host) => host.state)).toEqual(['succeeded', 'untouched']);
    expect(await api.locator('[data-host="__local__:second"] .state').textContent()).toBe('Not touched');
    expect(seen.problems).toEqual([]);
  });

  it('passes axe at 390 and 1440 px, light and dark', async () => {
    for (const width of [390, 1440])
      await expectAccessible(browser, `${hub.url}/rollouts`, 'article.rollout', { viewport: { width, height: 900 } });
  });
});

describe('the policies page', () => {
  const policyRow = (name: string) => page.locator('tr[data-policy]', { hasText: name });

  it('sets a group policy, a bad window said beside its field, and shows the containers it applies to', async () => {
    await followNavLink(page, 'Policies');
    await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor();
    await page.getByText('No group or agent policy').waitFor();
    await page.getByRole('button', { name: 'Set a policy' }).click();
    await page.getByRole('button', { name: 'Save the policy' }).click();
    expect(await problemOf('policy-name').textContent()).toContain('Name the group');
    await field('policy-name').fill('shop');
    await field('policy-approval').selectOption('required');
    await field('policy-windows').fill('weekends 02:00-05:00');
    await page.getByRole('button', { name: 'Save the policy' }).click();
    expect(await problemOf('policy-windows').textContent()).toContain('“weekends 02:00-05:00” is not a window');
    await field('policy-windows').fill('sat sun 02:00-05:00');
    await page.getByRole('button', { name: 'Save the policy' }).click();
    await page.getByRole('status').filter({ hasText: 'The group policy shop is saved.' }).waitFor();
    const stored = await hub.json<GroupPolicy>('/api/v1/group-policies/group/shop');
    expect({ approvalRequired: stored.approvalRequired, windows: stored.windows }).toEqual({
      approvalRequired: true,
      windows: [{ days: ['sat', 'sun'], start: '02:00', end: '05:00' }],
    });
    expect(await policyRow('shop').locator('td[data-label="What it sets"]').textContent()).toBe(
      'updates need an approval; only sat sun 02:00-05:00 UTC',
    );
    expect(await policyRow('shop').locator('td[data-label="Applies to"]').textContent()).toBe(
      '4 containers: api, api, web, web',
    );
  });

  it('shows a policy set elsewhere without a reload, edits one, and clears it after asking', async () => {
    const put = await hub.api('/api/v1/group-policies/agent/__local__', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ updateMode: 'manual' }),
    });
    expect(put.status).toBe(200);
    await expect.poll(() => policyRow('__local__').count()).toBe(1);
    expect(await policyRow('__local__').locator('td[data-label="What it sets"]').textContent()).toBe(
      'update mode manual',
    );
    await policyRow('shop').getByRole('button', { name: 'Edit the group policy shop' }).click();
    expect(await field('policy-windows').inputValue()).toBe('sat sun 02:00-05:00');
    await field('policy-mode').selectOption('auto');
    await page.getByRole('button', { name: 'Save the policy' }).click();
    await expect
      .poll(() => policyRow('shop').locator('td[data-label="What it sets"]').textContent())
      .toBe('update mode auto; updates need an approval; only sat sun 02:00-05:00 UTC');
    expect((await hub.json<GroupPolicy>('/api/v1/group-policies/group/shop')).updateMode).toBe('auto');
    await policyRow('shop').getByRole('button', { name: 'Clear… the group policy shop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Clear the group policy shop?' });
    await dialog.getByRole('button', { name: 'Clear the policy' }).click();
    await page.getByRole('status').filter({ hasText: 'The group policy shop is cleared.' }).waitFor();
    expect((await hub.api('/api/v1/group-policies/group/shop')).status).toBe(404);
    await expect.poll(() => policyRow('shop').count()).toBe(0);
  });

  it('adds a label override by selector, a hook refused beside the field', async () => {
    await page.getByRole('button', { name: 'Add a label override' }).click();
    await field('selector-name').fill('web*');
    await expect
      .poll(() => page.locator('#override-form-title ~ form .matches').textContent())
      .toBe('2 containers: web, web');
    await field('override-labels').fill('dd.hook.pre=rm -rf /');
    await page.getByRole('button', { name: 'Add the override' }).click();
    expect(await problemOf('override-labels').textContent()).toContain('dd.hook.pre stays a label only');
    await field('override-labels').fill('dd.display.name=Shop web\ndd.update.approval=required');
    await page.getByRole('button', { name: 'Add the override' }).click();
    await page.getByRole('status').filter({ hasText: 'Override added for name web*.' }).waitFor();
    const stored = await hub.json<{ data: GlobalLabelOverride[] }>('/api/v1/label-overrides');
    expect(stored.data.map((o) => ({ selector: o.selector, labels: o.labels }))).toEqual([
      { selector: { name: 'web*' }, labels: { 'dd.display.name': 'Shop web', 'dd.update.approval': 'required' } },
    ]);
    const row = page.locator('tr[data-override]');
    expect(await row.locator('td[data-label="Applies to"]').textContent()).toBe('2 containers: web, web');
    expect(await row.locator('td[data-label="Labels"] li').allTextContents()).toEqual([
      'dd.display.name=Shop web',
      'dd.update.approval=required',
    ]);
    // Both tables (the agent policy set above, the override), as tables at 1440 px and as cards at 390.
    expect(await page.locator('table.list').count()).toBe(2);
    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await brokenWords(page), `${width} px`).toEqual([]);
    }
  });

  it('passes axe at 390 and 1440 px, light and dark', async () => {
    for (const width of [390, 1440])
      await expectAccessible(browser, `${hub.url}/policies`, 'tr[data-override]', { viewport: { width, height: 900 } });
  });

  it('removes the override after asking, with no console error on the way', async () => {
    const row = page.locator('tr[data-override]');
    await row.getByRole('button', { name: 'Remove… the override for name web*' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the override for name web*?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await hub.json<{ total: number }>('/api/v1/label-overrides')).total).toBe(1);
    await row.getByRole('button', { name: 'Remove… the override for name web*' }).click();
    await dialog.getByRole('button', { name: 'Remove the override' }).click();
    await page.getByRole('status').filter({ hasText: 'The override for name web* is removed.' }).waitFor();
    expect((await hub.json<{ total: number }>('/api/v1/label-overrides')).total).toBe(0);
    await page.getByText('No label override by selector.').waitFor();
    expect(seen.problems).toEqual([]);
  });
});
