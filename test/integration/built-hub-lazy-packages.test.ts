/**
 * The production build (`node dist/hub.mjs`, what `npm start` runs) with the npm packages it imports
 * only when they are needed: prom-client at the first scrape of /metrics, undici for a registry with
 * a private CA file. Both are CommonJS, which the bundle hands over as a default export only; read
 * as named exports, /metrics answered 500 and a CA-file registry could not be reached, while every
 * test through tsx passed (hub/src/adapter/node/commonjs-import.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { waitFor } from '../support/edge-peer';
import { HUB_BUILD, type HubProcess, startHubProcess } from '../support/hub-process';
import { pushImage } from '../support/registry/push-image';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

let registry: TestRegistry;
let hub: HubProcess;
let dir: string;

beforeAll(async () => {
  registry = await startRegistry({ variant: 'tls' });
  await pushImage(registry, { repository: 'team/app', tags: ['1.0.0', '1.0.1'] });
  dir = await mkdtemp(join(tmpdir(), 'dockwatch-built-hub-'));
  await writeFile(join(dir, 'images.yml'), `images:\n  - ${registry.host}/team/app:1.0.0\n`);
  hub = await startHubProcess(
    {
      DD_STORE_DRIVER: 'memory',
      DD_LOCAL_WATCHER: 'false',
      DD_WATCHER_LIST_TYPE: 'file',
      DD_WATCHER_LIST_FILE: join(dir, 'images.yml'),
      DD_WATCHER_LIST_JITTER: '0',
      DD_REGISTRY_CUSTOM_PRIVATE_URL: registry.url,
      DD_REGISTRY_CUSTOM_PRIVATE_CAFILE: registry.caFile ?? '',
    },
    20_000,
    HUB_BUILD,
  );
}, 60_000);

afterAll(async () => {
  await hub?.kill();
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the production build and its on-demand CommonJS packages', () => {
  it("serves /metrics with prom-client's process metrics in both formats", async () => {
    const prometheus = await fetch(`${hub.url}/metrics`);
    expect(prometheus.status).toBe(200);
    const text = await prometheus.text();
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^# TYPE dd_http_requests_total counter$/m);
    const openMetrics = await fetch(`${hub.url}/metrics`, {
      headers: { accept: 'application/openmetrics-text; version=1.0.0' },
    });
    expect(openMetrics.status).toBe(200);
    const exposition = await openMetrics.text();
    expect(exposition).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(exposition.trimEnd().endsWith('# EOF')).toBe(true);
  });

  it('checks an image in a registry known by its private CA file (undici)', async () => {
    const record = await waitFor(
      async () => {
        const listed = (await (await fetch(`${hub.url}/api/v1/containers`)).json()) as { data: Container[] };
        const found = listed.data.find((container) => container.image.name === 'team/app');
        return found?.result || found?.error ? found : undefined;
      },
      20_000,
      'the image checked',
    );
    expect(record.error).toBeUndefined();
    expect(record).toMatchObject({ updateAvailable: true, result: { tag: '1.0.1' } });
  });
});
