import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsSample, StatsSummary } from '../../hub/src/stats/stats-sampler';
import { type HubOnDockerd, startHubOnDockerd } from '../support/docker/hub-on-dockerd';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { importBusyboxImage, runContainer } from '../support/docker/test-images';
import { expectJsonError } from '../support/hub-harness';
import { dataOf, openSse, type SseStream } from '../support/sse-client';

const IMAGE = 'localtest/stats:1';
// Docker needs about a second per sample (it waits for a second reading to compute the CPU share).
const FRAME_TIMEOUT_MS = 10_000;

const expectSample = (sample: StatsSample) => {
  expect(sample).toEqual({
    cpuPercent: expect.any(Number),
    memoryBytes: expect.any(Number),
    memoryLimitBytes: expect.any(Number),
    at: expect.any(String),
  });
  expect(sample.cpuPercent).toBeGreaterThanOrEqual(0);
  expect(sample.memoryBytes).toBeGreaterThan(0);
  expect(sample.memoryLimitBytes).toBeGreaterThanOrEqual(sample.memoryBytes);
  expect(Date.parse(sample.at)).not.toBeNaN();
};

describe('container stats on a real Docker Engine', () => {
  let dockerd: TestDockerd;
  let docker: Docker;
  let hub: HubOnDockerd;
  let busy: string;
  const streams: SseStream[] = [];

  beforeAll(async () => {
    dockerd = await startDockerd();
    docker = dockerd.docker;
    await importBusyboxImage(docker, { repository: 'localtest/stats', tag: '1', cmd: ['sleep', '3600'] });
    // One container with some CPU use, one idle, one stopped (not in the running count).
    busy = await runContainer(docker, { name: 'busy', image: IMAGE, cmd: ['sh', '-c', 'while :; do :; done'] });
    await runContainer(docker, { name: 'idle', image: IMAGE });
    const stopped = await runContainer(docker, { name: 'stopped', image: IMAGE });
    await docker.getContainer(stopped).stop();
    hub = await startHubOnDockerd(dockerd, { DD_WATCHER_LOCAL_WATCHALL: 'true' });
    await hub.refresh();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(streams.map((stream) => stream.close()));
    await hub?.close();
    await dockerd?.stop();
  });

  it('reports a container’s current CPU and memory, and keeps the samples as history', async () => {
    const stats = await hub.json<{ containerId: string; current: StatsSample; history: StatsSample[] }>(
      `/api/v1/containers/${busy}/stats`,
    );
    expect(stats.containerId).toBe(busy);
    expectSample(stats.current);
    expect(stats.current.cpuPercent).toBeGreaterThan(0);
    expect(stats.history.at(-1)).toEqual(stats.current);
    await expectJsonError(await hub.api(`/api/v1/containers/${'0'.repeat(64)}/stats`), 404);
  });

  it('sums the running containers of the fleet', async () => {
    const summary = await hub.json<StatsSummary>('/api/v1/stats/summary');
    expect(summary).toMatchObject({ containers: 2, sampled: 2 });
    expect(summary.cpuPercent).toBeGreaterThan(0);
    expect(summary.memoryBytes).toBeGreaterThan(0);
    // Both run on one host: its memory is counted once, not once per container.
    const limit = (await hub.json<{ current: StatsSample }>(`/api/v1/containers/${busy}/stats`)).current
      .memoryLimitBytes;
    expect(summary.memoryLimitBytes).toBe(limit);
  });

  it('streams a container’s samples over SSE at the requested interval', async () => {
    const stream = await openSse(hub.api, `/api/v1/containers/${busy}/stats/stream?interval=1`);
    streams.push(stream);
    expect(stream.response.headers.get('cache-control')).toBe('no-cache');
    const first = await stream.next(FRAME_TIMEOUT_MS);
    const second = await stream.next(FRAME_TIMEOUT_MS);
    expect([first.id, first.event, second.id, second.event]).toEqual(['1', 'container-stats', '2', 'container-stats']);
    for (const frame of [first, second]) {
      const { containerId, ...sample } = dataOf<StatsSample & { containerId: string }>(frame);
      expect(containerId).toBe(busy);
      expectSample(sample);
    }
    expect(Date.parse(dataOf<StatsSample>(second).at)).toBeGreaterThan(Date.parse(dataOf<StatsSample>(first).at));
    const history = await hub.json<{ history: StatsSample[] }>(`/api/v1/containers/${busy}/stats`);
    expect(history.history.length).toBeGreaterThanOrEqual(3);
  });

  it('streams the fleet summary over SSE', async () => {
    const stream = await openSse(hub.api, '/api/v1/stats/summary/stream?interval=1');
    streams.push(stream);
    for (const id of ['1', '2']) {
      const frame = await stream.next(FRAME_TIMEOUT_MS);
      expect(frame).toMatchObject({ id, event: 'stats-summary' });
      expect(dataOf<StatsSummary>(frame)).toMatchObject({ containers: 2, sampled: 2 });
    }
  });

  it('ends a container stream with a stats-error frame once the container is gone', async () => {
    const doomed = await runContainer(docker, { name: 'doomed', image: IMAGE });
    await hub.refresh();
    const stream = await openSse(hub.api, `/api/v1/containers/${doomed}/stats/stream?interval=1`);
    streams.push(stream);
    await stream.nextOfType('container-stats', FRAME_TIMEOUT_MS);
    await docker.getContainer(doomed).remove({ force: true });
    const error = await stream.nextOfType('stats-error', FRAME_TIMEOUT_MS);
    expect(dataOf(error)).toEqual({ containerId: doomed, error: 'The container no longer exists' });
    expect(await stream.ended).toBe('done');
  });
});
