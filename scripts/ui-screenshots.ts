// Screenshots of each view of the web UI for docs/ui.md, from a realistic fleet: the hub's own
// Docker (a real dockerd, the scan test bed: a container whose image the OSV fixture database finds
// a critical vulnerability in, scanned) and two edge agent peers feeding containers whose images are
// in a real registry with newer tags (a major, minors and a patch, their candidates' publication
// dates from the image configs), with display names, icons from an icon set server and release
// notes from a forge (GitHub's release API, the fixture server); one update waits for an approval,
// one failed on the agent, and a staged rollout of the workers has updated its canary host and
// pauses before the next wave. API keys, edge keys and a notification trigger. Desktop 1440 px and
// phone 390 px, light and dark, into docs/ui/*.png.
// Run: npx tsx scripts/ui-screenshots.ts
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a notification template holds ${…} on purpose
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { UpdateOperation } from '../shared/update-engine/operation';
import { launchChromium } from '../test/support/chromium';
import { sampleContainer, sampleImage, snapshotFrames, waitFor } from '../test/support/edge-peer';
import { createServerHub, jsonInit } from '../test/support/hub-harness';
import { startIconServer } from '../test/support/icon-server';
import { pushImage } from '../test/support/registry/push-image';
import { startRegistry } from '../test/support/registry/start-registry';
import { startReleaseApiServer } from '../test/support/release-api-server';
import { startScanBed } from '../test/support/scan-bed';
import { connectAgent } from '../test/ui/ui-browser';
import { buildUi, ROOT } from './build-ui.mjs';

const OUT = join(ROOT, 'docs', 'ui');

await buildUi();
await mkdir(OUT, { recursive: true });
const [registry, bed, icons, forge] = await Promise.all([
  startRegistry({ variant: 'plain' }),
  startScanBed(),
  startIconServer(),
  startReleaseApiServer(),
]);
// Icons as the selfh.st set serves them: a coloured tile with the app's letter.
const tile = (colour: string, letter: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5" fill="${colour}"/><text x="12" y="17" font-family="sans-serif" font-size="14" font-weight="700" fill="#fff" text-anchor="middle">${letter}</text></svg>`;
for (const [name, colour, letter] of [
  ['nginx', '#009639', 'N'],
  ['postgresql', '#336791', 'P'],
  ['redis', '#d82c20', 'R'],
  ['node-js', '#5fa04e', 'JS'],
] as const)
  icons.serve(`/selfhst/svg/${name}.svg`, { contentType: 'image/svg+xml', body: tile(colour, letter) });
// The shop's releases: the jump from 1.4.2 to 2.0.0 moves past 1.5.0.
forge.github('acme/shop', [
  {
    tag: 'v2.0.0',
    name: 'Shop 2.0.0',
    date: '2026-11-29T10:00:00Z',
    body: '## Breaking changes\n\n- The `/v1` API is gone: use `/v2`.\n- **Sessions** now expire after 12 hours.\n\n## Features\n\n- Dark mode for every page.',
  },
  {
    tag: 'v1.5.0',
    name: 'Shop 1.5.0',
    date: '2026-08-14T10:00:00Z',
    body: '## Features\n\n- Orders can be exported as CSV.\n\n## Fixes\n\n- The basket kept deleted items ([#412](https://github.com/acme/shop/issues/412)).',
  },
  { tag: 'v1.4.2', name: 'Shop 1.4.2', date: '2026-05-02T10:00:00Z', body: '## Fixes\n\n- A typo.' },
]);
/** Each repository's tags, with the date its image says it was built: the candidate's age. */
const published: [repository: string, tag: string, created: string][] = [
  ['team/web', '1.4.2', '2026-05-02T10:00:00Z'],
  ['team/web', '2.0.0', '2026-11-29T10:00:00Z'],
  ['team/api', '2.3.1', '2026-09-10T10:00:00Z'],
  ['team/api', '2.4.0', '2026-12-03T10:00:00Z'],
  ['library/postgres', '16.2', '2026-08-01T10:00:00Z'],
  ['library/postgres', '16.3', '2026-11-20T10:00:00Z'],
  ['library/redis', '7.2.5', '2026-10-01T10:00:00Z'],
  ['library/redis', '7.2.6', '2026-11-25T10:00:00Z'],
  ['team/worker', '3.1.0', '2026-11-02T10:00:00Z'],
  ['team/worker', '3.2.0', '2026-11-24T10:00:00Z'],
];
for (const [repository, tag, created] of published)
  await pushImage(registry, { repository, tags: [tag], created, layerSeed: `${repository}:${tag}` });
const image = (repository: string, tag: string) => `${registry.host}/${repository}:${tag}`;

// The trigger points at a closed loopback port: it is listed and previewed, and never delivers.
const hub = await createServerHub({
  ...bed.scannerEnv,
  DD_LOCAL_WATCHER: 'true',
  DD_WATCHER_LOCAL_SOCKET: bed.dockerd.socketPath,
  DD_WATCHER_LOCAL_CRON: '0 0 1 1 *',
  DD_NOTIFICATION_HTTP_OPS_URL: 'http://127.0.0.1:9/hook',
  DD_REGISTRY_INSECURE: 'true',
  DD_ICONS_SELFHST_URL: `${icons.url}/selfhst`,
  DD_RELEASE_NOTES_GITHUB_API_URL: forge.url,
});
const { peer } = await connectAgent(hub, 'nas');
const { peer: pi } = await connectAgent(hub, 'pi');
const workers = { 'dd.group': 'workers', 'dd.display.icon': 'sh:node-js' };
const seeded = [
  sampleContainer('web', {
    image: image('team/web', '1.4.2'),
    labels: {
      'com.docker.compose.project': 'shop',
      'dd.display.name': 'Shop front',
      'dd.display.icon': 'sh:nginx',
      'dd.source.repo': 'https://github.com/acme/shop',
    },
  }),
  sampleContainer('api', {
    image: image('team/api', '2.3.1'),
    labels: { 'com.docker.compose.project': 'shop', 'dd.display.name': 'Shop API', 'dd.update.approval': 'required' },
  }),
  sampleContainer('db', {
    image: image('library/postgres', '16.2'),
    labels: { 'dd.display.name': 'Orders database', 'dd.display.icon': 'sh:postgresql' },
  }),
  sampleContainer('cache', {
    image: image('library/redis', '7.2.5'),
    state: 'exited',
    labels: { 'dd.display.icon': 'sh:redis' },
  }),
  sampleContainer('worker', { image: image('team/worker', '3.1.0'), labels: workers }),
  sampleContainer('<script>alert(1)</script>', { image: image('team/web', '1.4.2') }),
];
const onPi = [sampleContainer('worker', { image: image('team/worker', '3.1.0'), labels: workers })];
for (const [agent, containers] of [
  [peer, seeded],
  [pi, onPi],
] as const)
  for (const frame of snapshotFrames(
    'local',
    containers,
    containers.map((c) => sampleImage({ repoTags: [c.image] })),
  ))
    agent.send(frame);
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
interface RequestFrame {
  type: string;
  id?: string;
  request?: { method: string; operation?: UpdateOperation };
}
const inventories = new Map([
  [peer, seeded],
  [pi, onPi],
]);
/**
 * The workers' updates succeed at once (the rollout's canary) and the agent reports the container
 * on its new image, as a real agent's next observation would; any other is refused: its Docker is stuck.
 */
function answerUpdate(agent: typeof peer, frame: RequestFrame) {
  const operation = frame.request?.operation;
  if (operation?.targetImage.includes('/team/worker:')) {
    const settled = { ...operation, status: 'succeeded', phase: 'succeeded', updatedAt: new Date().toISOString() };
    agent.send({ type: 'reply', id: frame.id, ok: true, result: settled });
    const containers = (inventories.get(agent) ?? []).map((c) =>
      c.name === operation.containerName ? { ...c, image: operation.targetImage } : c,
    );
    const images = containers.map((c) => sampleImage({ repoTags: [c.image] }));
    for (const part of snapshotFrames('local', containers, images)) agent.send(part);
    return;
  }
  agent.send({
    type: 'reply',
    id: frame.id,
    ok: false,
    error: { code: 'busy', message: 'its Docker Engine is not answering' },
  });
}
/** Each agent answers the images view (`image.list`) with its images, and updates as answerUpdate says. */
for (const [agent, images] of [
  [peer, agentImages],
  [pi, []],
] as const)
  agent.ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as RequestFrame;
    if (frame.type !== 'request') return;
    if (frame.request?.method === 'image.list')
      agent.send({ type: 'reply', id: frame.id, ok: true, result: { images, truncated: false } });
    if (frame.request?.method === 'container.update') answerUpdate(agent, frame);
  });
// The agents' containers (the hub's own is listed by its first watch cycle, below).
const agentsSize = seeded.length + onPi.length;
const listed = async () => ((await (await hub.request('/api/v1/containers')).json()) as { total: number }).total;
await waitFor(async () => ((await listed()) === agentsSize ? true : undefined));
// One cycle: the registry's newer tags become the candidates.
await hub.request('/api/v1/containers/watch', { method: 'POST' });
if ((await listed()) !== agentsSize + 1) throw new Error(`the hub lists ${await listed()} containers`);
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
// The hub's own container scanned: its image has a critical finding that its update fixes.
const scanned = await hub.request(`/api/v1/containers/${bed.containerId}/scan`, { method: 'POST' });
if (scanned.status !== 200) throw new Error(`scan: ${scanned.status} ${await scanned.text()}`);
// The workers' rollout: the canary host (nas) is updated, then an hour's pause before pi.
const started = await hub.request(
  '/api/v1/rollouts',
  jsonInit('POST', {
    image: `${registry.host}/team/worker`,
    toVersion: '3.2.0',
    canaryHost: 'nas',
    pauseSeconds: 3600,
  }),
);
if (started.status !== 201 && started.status !== 202)
  throw new Error(`rollout: ${started.status} ${await started.text()}`);
const { id: rolloutId } = (await started.json()) as { id: string };
await waitFor(async () => {
  const rollout = (await (await hub.request(`/api/v1/rollouts/${rolloutId}`)).json()) as { nextWaveAt?: string };
  return rollout.nextWaveAt ? true : undefined;
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
  ['security', '/security', 'li[data-image]'],
  ['rollouts', '/rollouts', 'article.rollout'],
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
pi.close();
await hub.close();
await Promise.all([registry.stop(), bed.stop(), icons.close(), forge.close()]);
