// Screenshots of each view of the web UI for docs/ui.md, from a realistic fleet: an edge agent peer
// feeds containers whose images are in a real registry with newer tags (a major, a minor and a patch
// update, their candidates' publication dates from the image configs), with display names; one
// update waits for an approval and one failed on the agent; API keys, an edge key and a notification
// trigger. Desktop 1440 px and phone 390 px, light and dark, into docs/ui/*.png.
// Run: npx tsx scripts/ui-screenshots.ts
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a notification template holds ${…} on purpose
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/support/chromium';
import { sampleContainer, sampleImage, snapshotFrames, waitFor } from '../test/support/edge-peer';
import { createServerHub, jsonInit } from '../test/support/hub-harness';
import { pushImage } from '../test/support/registry/push-image';
import { startRegistry } from '../test/support/registry/start-registry';
import { connectAgent } from '../test/ui/ui-browser';
import { buildUi, ROOT } from './build-ui.mjs';

const OUT = join(ROOT, 'docs', 'ui');

await buildUi();
await mkdir(OUT, { recursive: true });
const registry = await startRegistry({ variant: 'plain' });
/** Each repository's tags, with the date its image says it was built: the candidate's age. */
const published: [repository: string, tag: string, created: string][] = [
  ['team/web', '1.4.2', '2026-05-02T10:00:00Z'],
  ['team/web', '2.0.0', '2026-11-29T10:00:00Z'],
  ['team/api', '2.3.1', '2026-09-10T10:00:00Z'],
  ['team/api', '2.4.0', '2026-12-03T10:00:00Z'],
  ['library/postgres', '16.2', '2026-08-01T10:00:00Z'],
  ['library/postgres', '16.3', '2026-11-20T10:00:00Z'],
  ['library/redis', '7.2.5', '2026-10-01T10:00:00Z'],
  ['team/worker', '3.1.0', '2026-11-02T10:00:00Z'],
];
for (const [repository, tag, created] of published)
  await pushImage(registry, { repository, tags: [tag], created, layerSeed: `${repository}:${tag}` });
const image = (repository: string, tag: string) => `${registry.host}/${repository}:${tag}`;

// The trigger points at a closed loopback port: it is listed and previewed, and never delivers.
const hub = await createServerHub({
  DD_NOTIFICATION_HTTP_OPS_URL: 'http://127.0.0.1:9/hook',
  DD_REGISTRY_INSECURE: 'true',
  DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT: '1',
});
const { peer } = await connectAgent(hub, 'nas');
const seeded = [
  sampleContainer('web', {
    image: image('team/web', '1.4.2'),
    labels: { 'com.docker.compose.project': 'shop', 'dd.display.name': 'Shop front', 'dd.watch': 'true' },
  }),
  sampleContainer('api', {
    image: image('team/api', '2.3.1'),
    labels: { 'com.docker.compose.project': 'shop', 'dd.display.name': 'Shop API', 'dd.update.approval': 'required' },
  }),
  sampleContainer('db', { image: image('library/postgres', '16.2'), labels: { 'dd.display.name': 'Orders database' } }),
  sampleContainer('cache', { image: image('library/redis', '7.2.5'), state: 'exited' }),
  sampleContainer('worker', { image: image('team/worker', '3.1.0') }),
  sampleContainer('<script>alert(1)</script>', { image: image('team/worker', '3.1.0') }),
];
for (const frame of snapshotFrames(
  'local',
  seeded,
  seeded.map((c) => sampleImage({ repoTags: [c.image] })),
))
  peer.send(frame);
// The images view asks the agent (`image.list`); an update sent to it is refused (its Docker is stuck).
const agentImages = [
  {
    id: `sha256:${'1'.repeat(64)}`,
    repoTags: [image('team/web', '1.4.2')],
    createdAt: Date.UTC(2026, 4, 2),
    sizeBytes: 187_400_000,
  },
  {
    id: `sha256:${'2'.repeat(64)}`,
    repoTags: [image('team/web', '1.4.1')],
    createdAt: Date.UTC(2026, 3, 1),
    sizeBytes: 185_900_000,
  },
  { id: `sha256:${'3'.repeat(64)}`, repoTags: [], createdAt: Date.UTC(2025, 10, 3), sizeBytes: 42_100_000 },
].map((entry) => ({ ...entry, repoDigests: [], containers: -1 }));
peer.ws.on('message', (data) => {
  const frame = JSON.parse(data.toString()) as { type: string; id?: string; request?: { method: string } };
  if (frame.type !== 'request') return;
  if (frame.request?.method === 'image.list')
    peer.send({ type: 'reply', id: frame.id, ok: true, result: { images: agentImages, truncated: false } });
  if (frame.request?.method === 'container.update')
    peer.send({
      type: 'reply',
      id: frame.id,
      ok: false,
      error: { code: 'busy', message: 'its Docker Engine is not answering' },
    });
});
await waitFor(async () =>
  ((await (await hub.request('/api/v1/containers')).json()) as { total: number }).total === seeded.length
    ? true
    : undefined,
);
// One cycle: the registry's newer tags become the candidates.
await hub.request('/api/v1/containers/watch', { method: 'POST' });
const idOf = (name: string) => seeded.find((c) => c.name === name)?.id ?? '';
// The API's update waits for an approval; the database's fails on the agent.
await hub.request(`/api/v1/containers/${idOf('api')}/update`, { method: 'POST' });
const failing = await hub.request(`/api/v1/containers/${idOf('db')}/update`, { method: 'POST' });
const { operationId } = (await failing.json()) as { operationId: string };
// The agent refuses it: the operation settles as failed, and the audit says so.
await waitFor(async () => {
  const operation = (await (await hub.request(`/api/v1/update-operations/${operationId}`)).json()) as {
    status: string;
  };
  return ['failed', 'rolled-back'].includes(operation.status) ? true : undefined;
});

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
  ['dashboard', '/', 'li.pending-update'],
  ['containers', '/containers', 'table.list tbody tr'],
  // The detail's sections load on their own (on a phone the history is folded): a moment for them.
  ['detail', `/containers/${seeded[0]?.id}`, 'main.detail h1', (page) => page.waitForTimeout(1_000)],
  // On a wide screen a container opens beside the list (on a phone this is the list).
  ['panel', `/containers?open=${seeded[0]?.id}`, 'table.list tbody tr'],
  ['agents', '/agents', 'tr[data-key]'],
  ['images', '/images', 'table.list tbody tr'],
  ['api-keys', '/api-keys', 'tr[data-key]'],
  ['audit', '/audit', 'table.audit tbody tr'],
  ['notifications', '/notifications', 'article[data-rule]', openTemplates],
  ['log', '/log', 'ol.log li'],
  ['settings', '/settings', 'select'],
  ['approvals', '/approvals', 'main h1'],
  ['security', '/security', 'main h1'],
  ['rollouts', '/rollouts', 'main h1'],
  ['policies', '/policies', 'main h1'],
  ['system', '/system', 'tr[data-watcher]'],
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
await registry.stop();
