// Screenshots of each view of the web UI for docs/ui.md: a hub with seeded containers (an edge
// agent peer feeds them, and lists its images), API keys, an edge key and a notification trigger, desktop 1440 px and
// phone 390 px, light and dark, into docs/ui/*.png.
// Run: npx tsx scripts/ui-screenshots.ts
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a notification template holds ${…} on purpose
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/support/chromium';
import { sampleContainer, sampleImage, snapshotFrames, waitFor } from '../test/support/edge-peer';
import { createServerHub, jsonInit } from '../test/support/hub-harness';
import { connectAgent } from '../test/ui/ui-browser';
import { buildUi, ROOT } from './build-ui.mjs';

const OUT = join(ROOT, 'docs', 'ui');
const IMAGE = '127.0.0.1:9/team/app:1.0.0';

await buildUi();
await mkdir(OUT, { recursive: true });
// The trigger points at a closed loopback port: it is listed and previewed, and never delivers.
const hub = await createServerHub({ DD_NOTIFICATION_HTTP_OPS_URL: 'http://127.0.0.1:9/hook' });
const { peer } = await connectAgent(hub, 'nas');
const seeded = [
  sampleContainer('web', { image: IMAGE, labels: { 'com.docker.compose.project': 'shop', 'dd.watch': 'true' } }),
  sampleContainer('api', { image: '127.0.0.1:9/team/api:2.3.1' }),
  sampleContainer('db', { image: '127.0.0.1:9/library/postgres:16.2' }),
  sampleContainer('cache', { image: '127.0.0.1:9/library/redis:7.2', state: 'exited' }),
  sampleContainer('<script>alert(1)</script>', { image: IMAGE }),
];
for (const frame of snapshotFrames('local', seeded, [sampleImage({ repoTags: [IMAGE] })])) peer.send(frame);
// The images view asks the agent (`image.list`): the one the containers use, an older build nothing
// uses, and a dangling one (sampleContainer's image id is the first).
const agentImages = [
  { id: `sha256:${'1'.repeat(64)}`, repoTags: [IMAGE], createdAt: Date.UTC(2026, 0, 2), sizeBytes: 187_400_000 },
  {
    id: `sha256:${'2'.repeat(64)}`,
    repoTags: ['127.0.0.1:9/team/app:0.9.0'],
    createdAt: Date.UTC(2025, 11, 1),
    sizeBytes: 185_900_000,
  },
  { id: `sha256:${'3'.repeat(64)}`, repoTags: [], createdAt: Date.UTC(2025, 10, 3), sizeBytes: 42_100_000 },
].map((image) => ({ ...image, repoDigests: [], containers: -1 }));
peer.ws.on('message', (data) => {
  const frame = JSON.parse(data.toString()) as { type: string; id?: string; request?: { method: string } };
  if (frame.type === 'request' && frame.request?.method === 'image.list')
    peer.send({ type: 'reply', id: frame.id, ok: true, result: { images: agentImages, truncated: false } });
});
await waitFor(async () =>
  ((await (await hub.request('/api/v1/containers')).json()) as { total: number }).total === seeded.length
    ? true
    : undefined,
);

// Keys and an audit trail to show: a CI key that minted a child, a revoked one.
const created = async (body: object) => {
  const answer = await hub.request('/api/v1/api-keys', jsonInit('POST', body));
  return (await answer.json()) as { keyId: string };
};
await created({ name: 'ci deploys', scopes: ['read', 'containers:update'] });
await created({ name: 'grafana', scopes: ['read'], expiresAt: new Date(Date.now() + 90 * 86_400_000).toISOString() });
const old = await created({ name: 'old laptop', scopes: ['admin'] });
await hub.request(`/api/v1/api-keys/${old.keyId}`, {
  method: 'DELETE',
  headers: { 'x-dd-confirm-action': 'api-key-revoke' },
});

const browser = await launchChromium();
/** The notifications view is shown with a rule's template editor open and its preview rendered. */
async function openTemplates(page: Page): Promise<void> {
  const rule = page.locator('article[data-rule="update-available"]');
  await rule.getByRole('button', { name: /Edit the templates/ }).click();
  await rule.getByLabel('Title', { exact: true }).fill('${container.name}: ${container.updateKind.remoteValue} is out');
  await rule.locator('[data-preview="simpleTitle"]').filter({ hasText: 'is out' }).waitFor();
}

const views: [name: string, path: string, ready: string, prepare?: (page: Page) => Promise<void>][] = [
  ['dashboard', '/', 'h1'],
  ['containers', '/containers', 'table.list tbody tr'],
  // The detail's sections load on their own: the history is the last to answer.
  ['detail', `/containers/${seeded[0]?.id}`, 'section[aria-labelledby="history"] p'],
  ['agents', '/agents', 'tr[data-key]'],
  ['images', '/images', 'table.list tbody tr'],
  ['api-keys', '/api-keys', 'tr[data-key]'],
  ['audit', '/audit', 'table.audit tbody tr'],
  ['notifications', '/notifications', 'article[data-rule]', openTemplates],
  ['log', '/log', 'ol.log li'],
  ['settings', '/settings', 'select'],
];
for (const [width, device] of [
  [1440, 'desktop'],
  [390, 'phone'],
] as const) {
  for (const colorScheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
    const page = await context.newPage();
    for (const [name, path, ready, prepare] of views) {
      await page.goto(`${hub.url}${path}`);
      await page.locator(ready).first().waitFor();
      await prepare?.(page);
      const file = join(OUT, `${name}-${device}-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: device === 'phone' });
      console.log(`wrote ${file}`);
    }
    await context.close();
  }
}
await browser.close();
peer.close();
await hub.close();
