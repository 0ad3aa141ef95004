/**
 * Issue 32 item 1 ("a staged rollout does not survive a restart"), on Node: a hub process (`npm
 * start`'s entry) with a file store and two Docker watchers on two real dockerds, one plain
 * registry. A rollout of one image to both hosts pauses between its canary and its next wave; the
 * hub is stopped (SIGTERM) during the pause and a new process started on the same store. The
 * rollout must still be running, start its next wave when the pause ends (the wave and the pause
 * are scheduler jobs, in storage), and update each container once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import type { Rollout } from '../../shared/schemas/rollout';
import type { UpdateOperation } from '../../shared/update-engine';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { until } from '../support/edge-update-bed';
import { jsonInit } from '../support/hub-harness';
import { expectJson } from '../support/hub-json';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { rolloutWaits, runOnEveryHost } from '../support/rollout-steps';

const WATCHERS = ['east', 'west'] as const;
type Watcher = (typeof WATCHERS)[number];
const PAUSE_SECONDS = 15;

describe('a staged rollout across a restart of the hub process', () => {
  let storePath: string;
  let registry: TestRegistry;
  const dockerds = {} as Record<Watcher, TestDockerd>;
  const hubs = new Set<HubProcess>();
  let hub: HubProcess;

  const json = expectJson((path, init) => fetch(`${hub.url}${path}`, init));
  const { rollout, canaryPaused, ended } = rolloutWaits(json);

  async function startHub(): Promise<HubProcess> {
    const started = await startHubProcess({
      DD_STORE_PATH: storePath,
      DD_LOCAL_WATCHER: 'false',
      ...Object.fromEntries(
        WATCHERS.flatMap((name) => [
          [`DD_WATCHER_${name.toUpperCase()}_SOCKET`, dockerds[name].socketPath],
          [`DD_WATCHER_${name.toUpperCase()}_JITTER`, '0'],
          [`DD_WATCHER_${name.toUpperCase()}_WATCHBYDEFAULT`, 'false'],
        ]),
      ),
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20',
    });
    hubs.add(started);
    return started;
  }

  beforeAll(async () => {
    storePath = await mkdtemp(join(tmpdir(), 'dd-rollout-restart-'));
    [registry, dockerds.east, dockerds.west] = await Promise.all([
      startRegistry({ variant: 'plain' }),
      startDockerd(),
      startDockerd(),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...hubs].map((one) => one.kill('SIGKILL')));
    await Promise.all(Object.values(dockerds).map((dockerd) => dockerd.stop()));
    await registry?.stop();
    if (storePath) await rm(storePath, { recursive: true, force: true });
  }, 60_000);

  it('resumes the rollout after the restart: the next wave starts when the pause ends, each container updated once', async () => {
    // The hub process starts while the app is published and run on both hosts.
    const [{ oldIds }, first] = await Promise.all([
      runOnEveryHost(dockerds, WATCHERS, registry, {
        repository: 'restart/web',
        name: 'web',
        from: 'http',
        to: 'healthy',
      }),
      startHub(),
    ]);
    hub = first;
    await until(
      async () => {
        const { data } = await json<{ data: Container[] }>('/api/v1/containers/watch', { method: 'POST' });
        return data.filter((c) => c.name === 'web' && c.updateAvailable).length === 2 ? true : undefined;
      },
      'web pending on both hosts',
      60_000,
      500,
    );

    const started = await json<Rollout>(
      '/api/v1/rollouts',
      jsonInit('POST', {
        image: `${registry.host}/restart/web`,
        canaryHost: '__local__:east',
        pauseSeconds: PAUSE_SECONDS,
      }),
      201,
    );
    expect(started.hosts.map((host) => [host.host, host.wave])).toEqual([
      ['__local__:east', 0],
      ['__local__:west', 1],
    ]);
    // The canary is through: the rollout waits out its pause before the west host.
    const pausing = await canaryPaused(started.id, 90_000, 100);
    const nextWaveAt = Date.parse(pausing.nextWaveAt as string);
    expect(nextWaveAt - Date.now()).toBeGreaterThan(5_000);

    // Stopped in the pause, and started again on the same store.
    expect(await hub.kill('SIGTERM')).toBe(0);
    hubs.delete(hub);
    hub = await startHub();
    const restarted = await rollout(started.id);
    expect(Date.now()).toBeLessThan(nextWaveAt);
    expect(restarted).toMatchObject({ state: 'running', currentWave: 1, nextWaveAt: pausing.nextWaveAt });
    expect(restarted.hosts.map((host) => host.state)).toEqual(['succeeded', 'pending']);

    const done = await ended(started.id, 90_000, 200);
    expect(done.state).toBe('completed');
    expect(done.hosts.map((host) => host.state)).toEqual(['succeeded', 'succeeded']);
    const west = done.hosts[1] as Rollout['hosts'][0];
    // The pause the first process stored is the one the second kept.
    expect(Date.parse(west.startedAt as string)).toBeGreaterThanOrEqual(nextWaveAt);

    // Each container updated once, by the rollout, and running 2.0.0.
    for (const [index, name] of WATCHERS.entries()) {
      const now = await dockerds[name].docker.getContainer('web').inspect();
      expect(now.Id).not.toBe(oldIds[name]);
      expect(now.Config.Image).toBe(`${registry.host}/restart/web:2.0.0`);
      const operationId = done.hosts[index]?.containers[0]?.operationId;
      const operation = await json<UpdateOperation>(`/api/v1/update-operations/${operationId}`);
      expect(operation).toMatchObject({ status: 'succeeded', batchId: started.id, watcher: name });
      const history = await json<{ total: number }>(`/api/v1/containers/${now.Id}/update-operations`);
      expect(history.total).toBe(1);
    }
    const audit = await json<{ data: { status?: string }[] }>('/api/v1/audit?actions=rollout&limit=50');
    expect(audit.data.map((entry) => entry.status).reverse()).toEqual([
      'started',
      'wave-succeeded',
      'wave-succeeded',
      'completed',
    ]);
  }, 300_000);
});
