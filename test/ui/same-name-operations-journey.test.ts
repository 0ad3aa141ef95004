/**
 * Issue 32, bug 3: two containers of the same name on two agents, updated at once, each keep their
 * own update progress in the UI. Real components: the hub in process (listening, serving the UI
 * bundle), two real edge agents (createEdgeAgent) each on its own dockerd and registry, and a real
 * Chromium with one detail page per container. Both are called `nginx`; `edge-a`'s update succeeds,
 * `edge-b`'s new image fails its healthcheck and is rolled back. Before the fix the UI kept
 * operations by container name and the events named no host, so both pages showed whichever
 * operation spoke last.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeAgent } from '../../edge-agent/src/agent/edge-agent';
import { gotoSteady, launchChromium } from '../support/chromium';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  runApp,
  startEdgeUpdateBed,
  startInProcessAgent,
} from '../support/edge-update-bed';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { type PageProblems, watchPage } from './ui-browser';

const NAME = 'nginx';
/** Reads of the re-created container's old id may still be in flight when it goes (detail-journey.test.ts). */
const OLD_ID_READS = [
  /^404 GET \/api\/v1\/containers\/[0-9a-f]{64}(\/[a-z-]+)?$/,
  /^console: Failed to load resource: the server responded with a status of 404 .*\/api\/v1\/containers\/[0-9a-f]{64}/,
];

let beds: EdgeUpdateBed[] = [];
let agents: EdgeAgent[] = [];
let hub: HubClient;
let browser: Browser;
const operationEvents: Record<string, unknown>[] = [];

/** The detail page of one agent's `nginx`, with what goes wrong on it. */
interface DetailPage {
  agent: string;
  page: Page;
  seen: PageProblems;
}

const stepperOf = (page: Page, operationId: string) =>
  page.locator(`section[aria-labelledby="operation-${operationId}"]`);

beforeAll(async () => {
  beds = await Promise.all([startEdgeUpdateBed('edge-a'), startEdgeUpdateBed('edge-b')]);
  const [a, b] = beds as [EdgeUpdateBed, EdgeUpdateBed];
  // One authorized_keys file naming both agents.
  const authorizedKeys = join(a.dir, 'both_authorized_keys');
  await writeFile(
    authorizedKeys,
    (await Promise.all(beds.map((bed) => readFile(bed.authorizedKeys, 'utf8')))).join(''),
  );
  hub = await createServerHub({ DD_EDGE_AUTHORIZED_KEYS: authorizedKeys, DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '5' });
  hub.hub.parts.events.subscribe((event) => {
    if (event.type === 'dd:update-operation-changed' || event.type === 'dd:update-failed')
      operationEvents.push({ type: event.type, ...(event.data as Record<string, unknown>) });
  });
  await Promise.all([
    runApp(a, NAME, 'web/nginx', { from: 'http', to: 'http' }),
    runApp(b, NAME, 'web/nginx', { from: 'http', to: 'unhealthy' }),
  ]);
  agents = await Promise.all(beds.map((bed) => startInProcessAgent(bed, hub.url as string)));
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(agents.map((agent) => agent.stop()));
  await hub?.close();
  await Promise.all(beds.map((bed) => bed.stop()));
}, 60_000);

describe('two containers of one name on two agents, updated at once (issue 32, bug 3)', () => {
  it('shows each its own update: one succeeds, the other rolls back, and neither page shows the other', async () => {
    const apis = ['edge-a', 'edge-b'].map((agent) => ({
      agent,
      api: edgeUpdateApi((path, init) => hub.request(path, init), agent),
    }));
    const records = await Promise.all(apis.map(({ api }) => api.pending(NAME)));
    expect(records.map((r) => [r.name, r.agent, r.watcher])).toEqual([
      [NAME, 'edge-a', 'local'],
      [NAME, 'edge-b', 'local'],
    ]);

    const context = await browser.newContext();
    const pages: DetailPage[] = [];
    for (const record of records) {
      const page = await context.newPage();
      const seen = watchPage(page, OLD_ID_READS);
      await gotoSteady(page, `${hub.url}/containers/${record.id}`);
      await page.getByRole('heading', { level: 1, name: NAME }).waitFor();
      pages.push({ agent: record.agent as string, page, seen });
    }
    // Both pages are live before the updates start: the stream, not a reload, brings the phases.
    for (const { page } of pages) await page.getByRole('button', { name: 'Check now' }).waitFor();

    const [first, second] = apis as [(typeof apis)[0], (typeof apis)[0]];
    const [succeeding, rollingBack] = await Promise.all([
      first.api.requestUpdate(records[0] as (typeof records)[0]),
      second.api.requestUpdate(records[1] as (typeof records)[0]),
    ]);
    const [done, undone] = await Promise.all([first.api.settled(succeeding), second.api.settled(rollingBack)]);
    expect([done.status, undone.status]).toEqual(['succeeded', 'rolled-back']);

    // The events name the host of each operation (additive fields beside containerName).
    const hostsOf = (operationId: string) =>
      new Set(
        operationEvents.filter((e) => e['operationId'] === operationId).map((e) => `${e['agent']}/${e['watcher']}`),
      );
    expect(hostsOf(succeeding)).toEqual(new Set(['edge-a/local']));
    expect(hostsOf(rollingBack)).toEqual(new Set(['edge-b/local']));

    const [pageA, pageB] = pages as [DetailPage, DetailPage];
    // edge-a's page (following its re-created container) shows its own success, and nothing of edge-b's.
    await stepperOf(pageA.page, succeeding).and(pageA.page.locator('[data-operation="succeeded"]')).waitFor({
      timeout: 15_000,
    });
    // edge-b's page shows its own rollback, with the reason, and nothing of edge-a's.
    await stepperOf(pageB.page, rollingBack)
      .and(pageB.page.locator('[data-operation="rolled-back"]'))
      .waitFor({ timeout: 15_000 });
    expect(await stepperOf(pageA.page, rollingBack).count()).toBe(0);
    expect(await stepperOf(pageB.page, succeeding).count()).toBe(0);
    expect(await pageA.page.locator('[data-operation]').count()).toBe(1);
    expect(await pageB.page.locator('[data-operation]').count()).toBe(1);
    expect(await pageB.page.locator('[data-operation] .error').textContent()).toBeTruthy();
    expect(await pageA.page.locator('[data-operation] .error').count()).toBe(0);
    for (const { agent, seen } of pages) expect(seen.problems, agent).toEqual([]);
    await context.close();
  }, 180_000);
});
