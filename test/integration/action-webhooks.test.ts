import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeHub, startNodeHub } from '../../hub/src/adapter/node/start-node-hub';
import { silentSink } from '../../shared/logging/logger';
import type { Container } from '../../shared/schemas/container';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { type LatencyProxy, startLatencyProxy } from '../support/latency-proxy';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const TOKEN = 'ci-token-for-dockerd';

interface WatchAllAnswer {
  result: { watchers: number; failedWatchers: number; coalesced: boolean };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The action webhooks against real dockerds and a real registry (behind a proxy adding 150 ms a
 * request, so a watch cycle lasts long enough to land a second call inside it). Two watchers,
 * `local` and `east`, on two daemons, each running a container named `web`.
 */
describe('action webhooks on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let eastDockerd: TestDockerd;
  let registry: TestRegistry;
  let proxy: LatencyProxy;
  let hub: NodeHub;
  const ref = (tag: string) => `${proxy.host}/team/web:${tag}`;
  const call = (path: string) =>
    fetch(`${hub.url}/api/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });

  async function publish(tag: string): Promise<void> {
    await importBusyboxImage(dockerd.docker, {
      repository: 'team/web',
      tag: `build-${tag}`,
      cmd: ['sleep', '3600'],
      extraFile: { path: '/v', content: tag },
    });
    for (const args of [
      ['tag', `team/web:build-${tag}`, ref(tag)],
      ['push', ref(tag)],
    ]) {
      const result = await dockerd.cli(args);
      if (result.code !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
    }
  }

  beforeAll(async () => {
    [dockerd, eastDockerd, registry] = await Promise.all([
      startDockerd(),
      startDockerd(),
      startRegistry({ variant: 'plain' }),
    ]);
    proxy = await startLatencyProxy(registry.url, 150);
    await publish('1.0.0');
    const pulled = await eastDockerd.cli(['pull', ref('1.0.0')]);
    if (pulled.code !== 0) throw new Error(`docker pull: ${pulled.stderr}`);
    await runContainer(dockerd.docker, { name: 'web', image: ref('1.0.0') });
    await runContainer(eastDockerd.docker, { name: 'web', image: ref('1.0.0') });
    await runContainer(dockerd.docker, {
      name: 'quiet',
      image: ref('1.0.0'),
      labels: { 'dd.webhook.enabled': 'false' },
    });
    hub = await startNodeHub({
      env: {
        DD_STORE_DRIVER: 'memory',
        DD_SERVER_PORT: '0',
        DD_SERVER_HOST: '127.0.0.1',
        DD_WATCHER_LOCAL_SOCKET: dockerd.socketPath,
        DD_WATCHER_LOCAL_JITTER: '0',
        DD_WATCHER_LOCAL_CRON: '0 0 1 1 *',
        DD_WATCHER_EAST_SOCKET: eastDockerd.socketPath,
        DD_WATCHER_EAST_JITTER: '0',
        DD_WATCHER_EAST_CRON: '0 0 1 1 *',
        DD_SERVER_WEBHOOK_ENABLED: 'true',
        DD_SERVER_WEBHOOK_TOKEN: TOKEN,
        DD_ACTION_DOCKER_DEPLOY_BACKUPCOUNT: '1',
      },
      sink: silentSink,
    });
    // Each watcher's run shortly after start; the yearly cron adds none during the test.
    await until(() => hub.hub.parts.fleet.all().every((watcher) => watcher.lastRunAt !== undefined), 30_000);
  }, 120_000);

  afterAll(async () => {
    await hub?.close();
    await proxy?.close();
    await Promise.all([dockerd?.stop(), eastDockerd?.stop(), registry?.stop()]);
  });

  it('POST /webhook/watch runs both watchers; a call landing in a running cycle is folded (result.coalesced)', async () => {
    const [first, second] = await Promise.all([call('/webhook/watch'), call('/webhook/watch')]);
    const answers = [(await first?.json()) as WatchAllAnswer, (await second?.json()) as WatchAllAnswer];
    expect(answers.map((answer) => answer.result.watchers)).toEqual([2, 2]);
    expect(answers.map((answer) => answer.result.failedWatchers)).toEqual([0, 0]);
    expect(answers.map((answer) => answer.result.coalesced).sort()).toEqual([false, true]);
    // Alone, nothing is folded.
    const alone = (await (await call('/webhook/watch')).json()) as WatchAllAnswer;
    expect(alone.result.coalesced).toBe(false);
  });

  it('a name on two watchers is ambiguous (409); ?watcher= picks one, and a fresh check finds the tag pushed just before', async () => {
    const ambiguous = await call('/webhook/watch/web');
    expect(ambiguous.status).toBe(409);
    expect((await ambiguous.json()).error).toContain('__local__/east, __local__/local');

    await publish('1.1.0');
    const picked = await call('/webhook/watch/web?watcher=east&agent=__local__');
    expect(picked.status).toBe(200);
    const { result } = (await picked.json()) as { result: { container: Container } };
    expect(result.container).toMatchObject({
      name: 'web',
      watcher: 'east',
      updateAvailable: true,
      updateKind: { remoteValue: '1.1.0' },
    });
    // Only east was checked: local's record still shows the state of its last cycle.
    const local = hub.hub.parts.containers.all().find((c) => c.name === 'web' && c.watcher === 'local');
    expect(local?.updateAvailable).toBe(false);
  });

  it('dd.webhook.enabled=false: 403 on the per-container routes', async () => {
    expect((await call('/webhook/watch/quiet?watcher=local')).status).toBe(403);
    expect((await call('/webhook/update/quiet?watcher=local')).status).toBe(403);
  });

  it('POST /webhook/update without a pending update answers 400 and leaves the container as it was', async () => {
    const before = await dockerd.docker.getContainer('web').inspect();
    const response = await call('/webhook/update/web?watcher=local');
    expect(response.status).toBe(400);
    const after = await dockerd.docker.getContainer('web').inspect();
    expect([after.Id, after.Image, after.State.Running]).toEqual([before.Id, before.Image, true]);
  });

  it('POST /webhook/update queues an update (202, operationId) that recreates the container on the new tag', async () => {
    const response = await call('/webhook/update/web?watcher=east');
    expect(response.status).toBe(202);
    const body = (await response.json()) as { operationId: string; result: { container: Container } };
    expect(body.result.container).toMatchObject({ name: 'web', watcher: 'east' });
    let status = 'queued';
    const deadline = Date.now() + 60_000;
    while (!['succeeded', 'failed', 'rolled-back'].includes(status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (
        (await (await fetch(`${hub.url}/api/v1/update-operations/${body.operationId}`)).json()) as { status: string }
      ).status;
    }
    expect(status).toBe('succeeded');
    const recreated = await eastDockerd.docker.getContainer('web').inspect();
    expect([recreated.Config.Image, recreated.State.Running]).toEqual([ref('1.1.0'), true]);
  });

  it('audits every call and counts it in dd_webhook_total', async () => {
    const audit = (await (
      await fetch(`${hub.url}/api/v1/audit?actions=webhook-watch,webhook-watch-container,webhook-update`)
    ).json()) as {
      data: { action: string; containerName?: string; status?: string }[];
    };
    const counts = new Map<string, number>();
    for (const entry of audit.data)
      counts.set(`${entry.action}:${entry.status}`, (counts.get(`${entry.action}:${entry.status}`) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({
      'webhook-watch:succeeded': 3,
      'webhook-watch-container:succeeded': 1,
      'webhook-update:failed': 1,
      'webhook-update:queued': 1,
    });
    const metrics = await (await fetch(`${hub.url}/metrics`)).text();
    expect(metrics).toContain('dd_webhook_total{action="watch"} 3');
    expect(metrics).toContain('dd_webhook_total{action="watch-container"} 3');
    expect(metrics).toContain('dd_webhook_total{action="update"} 3');
    expect(metrics).toMatch(/dd_watcher_runs_total\{watcher="east",agent="__local__",result="success"\} [3-9]/);
  });
});
