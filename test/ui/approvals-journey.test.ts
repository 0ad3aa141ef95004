/**
 * The approvals view in a real Chromium against a real hub (anonymous on loopback, memory store,
 * container records put in its store: no Docker, so an approved update is refused 503 by the update
 * path, which the view must say while the approval stays approved). The navigation counts what
 * waits; deferring, rejecting (asked first, with a comment) and approving change the record as the
 * API shows it; an approval opened elsewhere appears without a reload; axe finds nothing serious.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/schemas/approval';
import type { Container } from '../../shared/schemas/container';
import { gotoSteady, launchChromium } from '../support/chromium';
import { containerRecord } from '../support/container-fixture';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { expectAccessible, type PageProblems, watchPage } from './ui-browser';

let hub: HubClient;
let browser: Browser;
let page: Page;
let seen: PageProblems;

/** A container whose label asks for approvals, with an update to `to` pending. */
const waiting = (name: string, to = '2.0.0'): Container =>
  containerRecord({
    id: name.padEnd(64, '0'),
    name,
    labels: { 'dd.update.approval': 'required' },
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: to, semverDiff: 'major' },
    result: { tag: to },
  });
const NAMES = ['alpha', 'bravo', 'charlie'];

/** An update request: refused 409, it opens the container's approval. */
async function requestUpdate(name: string): Promise<void> {
  const response = await hub.request(`/api/v1/containers/${waiting(name).id}/update`, { method: 'POST' });
  expect(response.status).toBe(409);
}
async function approvalOf(name: string): Promise<Approval> {
  const response = await hub.request(`/api/v1/approvals?container=${name}`);
  const page = (await response.json()) as { data: Approval[] };
  const found = page.data[0];
  if (!found) throw new Error(`no approval for ${name}`);
  return found;
}
const row = (name: string) => page.locator('table.list tbody tr', { hasText: name });
const navLink = () => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Approvals/ });

beforeAll(async () => {
  hub = await createServerHub({ DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1' });
  for (const name of [...NAMES, 'delta']) await hub.hub.parts.containers.put(waiting(name));
  for (const name of NAMES) await requestUpdate(name);
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  // The approve of a container no Docker can reach is refused 503: the view says so (asserted below).
  seen = watchPage(page, [
    /^503 POST \/api\/v1\/approvals\/[^/]+\/approve$/,
    /^console: Failed to load resource: the server responded with a status of 503/,
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await hub?.close();
});

describe('the approvals view', () => {
  it('counts what waits in the navigation and lists it', async () => {
    await gotoSteady(page, `${hub.url}/`);
    await expect.poll(() => navLink().textContent()).toBe('Approvals 3');
    await navLink().click();
    await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/approvals');
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(3);
    expect(await row('alpha').locator('td[data-label="Update"]').textContent()).toBe('1.0.0 → 2.0.0 · new tag');
    expect(seen.problems).toEqual([]);
  });

  it('defers one for a day: the API shows it deferred, and it leaves the list of pending ones', async () => {
    await row('alpha').getByRole('button', { name: 'Defer 1 day for alpha' }).click();
    await page.getByRole('status').filter({ hasText: 'alpha: 2.0.0 deferred for 1 day.' }).waitFor();
    const deferred = await approvalOf('alpha');
    expect(deferred.state).toBe('deferred');
    const hours = (Date.parse(deferred.deferredUntil ?? '') - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(2);
    await expect.poll(() => navLink().textContent()).toBe('Approvals 2');
  });

  it('asks before rejecting, and keeps the comment with the decision', async () => {
    await row('bravo').getByRole('button', { name: 'Reject' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reject 2.0.0 for bravo?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await approvalOf('bravo')).state).toBe('pending');
    await row('bravo').getByRole('button', { name: 'Reject' }).click();
    await dialog.getByLabel('Why (optional)').fill('breaks the <b>plugin</b> API');
    await dialog.getByRole('button', { name: 'Reject the update' }).click();
    await page.getByRole('status').filter({ hasText: 'bravo: 2.0.0 rejected' }).waitFor();
    const rejected = await approvalOf('bravo');
    expect({ state: rejected.state, comment: rejected.comment }).toEqual({
      state: 'rejected',
      comment: 'breaks the <b>plugin</b> API',
    });
    await page.locator('select').selectOption('rejected');
    await expect
      .poll(() => row('bravo').locator('td[data-label="State"]').textContent())
      .toContain('“breaks the <b>plugin</b> API”');
    expect(await page.locator('main b').count()).toBe(0);
  });

  it('approves one: the refusal of the update path is said, and the approval stays approved', async () => {
    await page.locator('select').selectOption('pending');
    await row('charlie').getByRole('button', { name: 'Approve' }).click();
    await page.locator('.error').filter({ hasText: /./ }).first().waitFor();
    expect((await approvalOf('charlie')).state).toBe('approved');
    await page.locator('select').selectOption('approved');
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(1);
    // An approved approval waits for its update: no decision buttons any more.
    expect(await row('charlie').getByRole('button').count()).toBe(0);
  });

  it('shows an approval opened elsewhere without a reload', async () => {
    await page.locator('select').selectOption('pending');
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(0);
    const callsBefore = seen.calls.filter((call) => call.startsWith('GET /api/v1/containers?')).length;
    await requestUpdate('delta');
    await expect.poll(() => row('delta').count()).toBe(1);
    await expect.poll(() => navLink().textContent()).toBe('Approvals 1');
    // Not a reload of the page: the container list was not fetched again.
    expect(seen.calls.filter((call) => call.startsWith('GET /api/v1/containers?')).length).toBe(callsBefore);
    expect(seen.problems).toEqual([]);
  });

  it('passes axe in light and dark', async () => {
    await expectAccessible(browser, `${hub.url}/approvals`, 'table.list tbody tr');
  });
});
