// Screenshots of each view of the web UI for docs/ui.md: a hub with seeded containers (an edge
// agent peer feeds them), desktop 1440 px and phone 390 px, light and dark, into docs/ui/*.png.
// Run: npx tsx scripts/ui-screenshots.ts
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { launchChromium } from '../test/support/chromium';
import { sampleContainer, sampleImage, snapshotFrames, waitFor } from '../test/support/edge-peer';
import { createServerHub } from '../test/support/hub-harness';
import { connectAgent } from '../test/ui/ui-browser';
import { buildUi, ROOT } from './build-ui.mjs';

const OUT = join(ROOT, 'docs', 'ui');
const IMAGE = '127.0.0.1:9/team/app:1.0.0';

await buildUi();
await mkdir(OUT, { recursive: true });
const hub = await createServerHub();
const { peer } = await connectAgent(hub, 'nas');
const seeded = [
  sampleContainer('web', { image: IMAGE, labels: { 'com.docker.compose.project': 'shop', 'dd.watch': 'true' } }),
  sampleContainer('api', { image: '127.0.0.1:9/team/api:2.3.1' }),
  sampleContainer('db', { image: '127.0.0.1:9/library/postgres:16.2' }),
  sampleContainer('cache', { image: '127.0.0.1:9/library/redis:7.2', state: 'exited' }),
  sampleContainer('<script>alert(1)</script>', { image: IMAGE }),
];
for (const frame of snapshotFrames('local', seeded, [sampleImage({ repoTags: [IMAGE] })])) peer.send(frame);
await waitFor(async () =>
  ((await (await hub.request('/api/v1/containers')).json()) as { total: number }).total === seeded.length
    ? true
    : undefined,
);

const browser = await launchChromium();
const views = [
  ['dashboard', '/', 'h1'],
  ['containers', '/containers', 'table.list tbody tr'],
  ['detail', `/containers/${seeded[0]?.id}`, 'h1'],
] as const;
for (const [width, device] of [
  [1440, 'desktop'],
  [390, 'phone'],
] as const) {
  for (const colorScheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
    const page = await context.newPage();
    for (const [name, path, ready] of views) {
      await page.goto(`${hub.url}${path}`);
      await page.locator(ready).first().waitFor();
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
