/**
 * The API reference page at /api/v1/docs in a real Chromium (issue 17 item 6): served by the hub
 * from its own origin under the web UI's strict CSP, it renders every operation of the served
 * OpenAPI document with no console error, CSP violation or failed request, filters them, shows an
 * operation's scope, parameters, body and responses, and has no serious or critical axe-core
 * violation in light and dark with operations of every tag opened. Without a UI build the
 * route answers 503 JSON. Under workerd: test/integration/workers-entry.test.ts.
 */
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UiBundle } from '../../hub/src/ui/ui-bundle';
import { buildUi } from '../../scripts/build-ui.mjs';
import { groupByTag, matchesFilter, type OpenApiDocument } from '../../ui/src/docs/openapi-model';
import { gotoSteady, launchChromium } from '../support/chromium';
import { createMemoryHub, createServerHub, expectJsonError, type HubClient } from '../support/hub-harness';
import { type PageProblems, watchPage } from './ui-browser';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DOCS = '/api/v1/docs';

interface Axe {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

describe('the API reference page', () => {
  let hub: HubClient;
  let browser: Browser;
  let page: Page;
  let seen: PageProblems;
  let operations: number;
  /** The operations the page's filter model keeps for "webhook" (openapi-model.test.ts tests the model). */
  let webhookOperations: number;

  beforeAll(async () => {
    const { bundle } = await buildUi({ write: false });
    hub = await createServerHub({}, { ui: bundle as UiBundle });
    const document = (await (await hub.request('/api/v1/openapi.json')).json()) as OpenApiDocument;
    operations = Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
    webhookOperations = [...groupByTag(document).values()]
      .flat()
      .filter((entry) => matchesFilter(entry, 'webhook')).length;
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    seen = watchPage(page);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('is served from the hub under the strict CSP, with no inline script', async () => {
    const response = await hub.request(DOCS);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await response.text();
    expect(html).toMatch(/<script type="module" src="\/assets\/docs-[A-Z0-9]+\.js"><\/script>/);
    expect(html).not.toMatch(/<script>|<style|style=|https?:\/\//);
  });

  it('renders every operation of the served document, without a console error or failed request', async () => {
    await gotoSteady(page, `${hub.url}${DOCS}`);
    await expect.poll(() => page.locator('details.operation').count(), { timeout: 10_000 }).toBe(operations);
    await expect.poll(() => page.getByTestId('operation-count').textContent()).toBe(`${operations} operations`);
    expect(await page.title()).toBe('dockwatch API reference');
    expect(await page.locator('h1').textContent()).toContain('dockwatch API');
    expect(seen.calls).toContain('GET /api/v1/openapi.json');
    expect(seen.problems).toEqual([]);
  });

  it('shows an operation’s scope, credentials, parameters, body and responses when opened', async () => {
    const operation = (method: string, path: string) =>
      page
        .locator('details.operation')
        .filter({ has: page.locator('code.path', { hasText: new RegExp(`^${path}$`) }) })
        .filter({ has: page.locator('.method', { hasText: new RegExp(`^${method}$`) }) });
    const patch = operation('PATCH', '/api/v1/settings');
    await patch.locator('summary').click();
    const body = patch.locator('.operation-body');
    await expect.poll(() => body.isVisible()).toBe(true);
    const text = (await body.textContent()) ?? '';
    expect(text).toContain('settings:write');
    expect(text).toContain(
      'session or session and apiKey (settings:write)'.replace('session or session and ', 'session or '),
    );
    expect(text).toMatch(/updateMode\?: 'notify' \| 'manual' \| 'auto'/);
    expect(text).toContain('ErrorBody');
    const audit = operation('GET', '/api/v1/audit');
    await audit.locator('summary').click();
    expect(await audit.locator('table.params').textContent()).toContain('limit');
    expect(seen.problems).toEqual([]);
  });

  it('filters the operations as one types', async () => {
    const input = page.getByLabel('Filter operations');
    await input.fill('webhook');
    // At least the four webhook routes, and fewer than all.
    expect(webhookOperations).toBeGreaterThanOrEqual(4);
    expect(webhookOperations).toBeLessThan(operations);
    await expect.poll(() => page.locator('details.operation').count()).toBe(webhookOperations);
    await input.fill('');
    await expect.poll(() => page.locator('details.operation').count()).toBe(operations);
  });

  it('has no serious or critical accessibility violation, in light and dark, with operations opened', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      // axe-core is injected, which the page's CSP would refuse: a context that bypasses it.
      const context = await browser.newContext({ bypassCSP: true, colorScheme });
      try {
        const checked = await context.newPage();
        await gotoSteady(checked, `${hub.url}${DOCS}`);
        await checked.locator('details.operation').first().waitFor();
        await checked.addScriptTag({ path: AXE_PATH });
        // Opened, the page still shows every summary: one axe run covers both states.
        // Two operations of every tag, and those with the widest bodies and tables: every kind of
        // content the page renders, without axe walking all ~150 of them on a shared CI machine.
        await checked.evaluate(() => {
          for (const section of document.querySelectorAll('main section')) {
            for (const details of [...section.querySelectorAll('details')].slice(0, 2)) details.open = true;
          }
          for (const id of ['patchSettings', 'getAudit', 'postApiKeys', 'getContainers']) {
            const details = document.getElementById(id);
            if (details instanceof HTMLDetailsElement) details.open = true;
          }
        });
        const result = (await checked.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as Axe;
        const serious = result.violations
          .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
          .map(
            (violation) =>
              `${violation.impact} ${violation.id}: ${violation.help} at ${JSON.stringify(violation.nodes.slice(0, 3).map((n) => n.target))}`,
          );
        expect(serious, colorScheme).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it('answers 503 JSON where the hub has no UI build', async () => {
    const bare = await createMemoryHub();
    try {
      const body = await expectJsonError(await bare.request(DOCS), 503);
      expect(body.error).toContain('API reference page');
    } finally {
      await bare.close();
    }
  });
});
