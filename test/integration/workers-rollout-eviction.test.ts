/**
 * Issue 32 item 1 ("a staged rollout does not survive a restart"), on Workers: the hub under real
 * workerd (Miniflare, the hibernation test's counting object), two real agent processes (`npm run
 * agent`) on two real dockerds, one plain registry. A rollout pauses between its canary and its
 * next wave; nothing asks the hub anything during the pause, so workerd evicts the idle object
 * (its agents' sockets hibernate). The Durable Object's alarm must re-create it when the pause ends
 * and start the next wave there; the rollout completes with each container updated once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { ROOT, WORKERD_BUILD_OPTIONS } from '../../scripts/build-workers.mjs';
import type { Container } from '../../shared/schemas/container';
import type { Rollout } from '../../shared/schemas/rollout';
import type { UpdateOperation } from '../../shared/update-engine';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { type AgentProcess, agentKeygen } from '../support/edge-agent-process';
import { until } from '../support/edge-update-bed';
import { jsonInit } from '../support/hub-harness';
import { expectJson } from '../support/hub-json';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { pendingOnEvery, rolloutWaits, runOnEveryHost, spawnHostAgent } from '../support/rollout-steps';
import { startWorkersHub, type WorkersHub } from '../support/workers-hub';

const HOSTS = ['evicted-a', 'evicted-b'] as const;
type Host = (typeof HOSTS)[number];
/**
 * Long enough for workerd's idle eviction (10 s, 13 s seen on a loaded machine) to happen inside it:
 * the test asks nothing for at least the last 20 s of it.
 */
const PAUSE_SECONDS = 30;

/**
 * Resolves true at the first image pull on this dockerd from now on (false after `timeoutMs`): a
 * wave's start seen on the host's Docker, without asking the hub anything.
 */
async function firstPull(docker: Docker, timeoutMs: number): Promise<boolean> {
  const abort = new AbortController();
  const events = await docker.getEvents({ filters: { type: ['image'], event: ['pull'] }, abortSignal: abort.signal });
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      events.once('data', () => {
        clearTimeout(timer);
        resolve(true);
      });
      events.once('error', () => undefined);
    });
  } finally {
    abort.abort();
  }
}

interface Counts {
  instance: string;
  alarms: { instance: string; at: number }[];
}

describe('a staged rollout across an eviction of the hub object', () => {
  let dir: string;
  let registry: TestRegistry;
  const dockerds = {} as Record<Host, TestDockerd>;
  const agents: AgentProcess[] = [];
  let hub: WorkersHub;
  /** Each host's container of 1.0.0, started in beforeAll. */
  let oldIds: Record<Host, string>;

  const request = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init);
  const json = expectJson(request);
  const { rollout, canaryPaused, ended } = rolloutWaits(json);
  const counts = () => json<Counts>('/__test/counts');

  // Set up side by side: workerd with the dockerds and the registry, then the agents with the app.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dd-workers-rollout-'));
    const scriptPath = join(dir, 'bundle', 'index.js');
    const startHub = async () => {
      await build({
        ...WORKERD_BUILD_OPTIONS,
        entryPoints: [join(ROOT, 'test', 'support', 'workers-hibernation-entry.ts')],
        outfile: scriptPath,
      });
      hub = await startWorkersHub({
        scriptPath,
        className: 'CountingHubDurableObject',
        persistDir: join(dir, 'do'),
        listen: true,
        vars: {
          DD_LOG_LEVEL: 'warn',
          DD_SERVER_HOST: '0.0.0.0',
          DD_SERVER_RATELIMIT_MAX: '1000000000',
          DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20',
        },
      });
    };
    [registry, dockerds['evicted-a'], dockerds['evicted-b']] = await Promise.all([
      startRegistry({ variant: 'plain' }),
      startDockerd(),
      startDockerd(),
      startHub(),
    ]);
    const startAgent = async (host: Host) => {
      const keyFile = join(dir, `${host}.key`);
      const { publicKey } = await agentKeygen(keyFile, host);
      await json('/api/v1/edge/keys', jsonInit('POST', { publicKey, label: host }), 201);
      await spawnHostAgent(agents, { hubUrl: hub.url, keyFile, name: host, dockerd: dockerds[host] });
    };
    const [ran] = await Promise.all([
      runOnEveryHost(dockerds, HOSTS, registry, {
        repository: 'evicted/web',
        name: 'web',
        from: 'http',
        to: 'healthy',
      }),
      ...HOSTS.map(startAgent),
    ]);
    oldIds = ran.oldIds;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.kill('SIGKILL')));
    await hub?.dispose();
    await Promise.all(Object.values(dockerds).map((dockerd) => dockerd.stop()));
    await registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('starts the next wave from the alarm of a re-created object when the pause ends, and completes', async () => {
    onTestFailed(() => console.log(`workerd:\n${hub.output().split('\n').slice(-80).join('\n')}`));
    await pendingOnEvery(request, json, 'web', HOSTS);

    const started = await json<Rollout>(
      '/api/v1/rollouts',
      jsonInit('POST', { image: `${registry.host}/evicted/web`, canaryHost: 'evicted-a', pauseSeconds: PAUSE_SECONDS }),
      201,
    );
    expect(started.hosts.map((host) => [host.host, host.wave])).toEqual([
      ['evicted-a', 0],
      ['evicted-b', 1],
    ]);
    const pausing = await canaryPaused(started.id, 120_000, 250);
    const nextWaveAt = Date.parse(pausing.nextWaveAt as string);
    const { instance: pausedIn } = await counts();
    expect(nextWaveAt - Date.now()).toBeGreaterThan(20_000);

    // Nothing asks the hub anything until the pause is over and the wave has started: its pull on
    // the second host (where nothing else pulls), seen on that host's Docker.
    const secondWavePulled = await firstPull(dockerds['evicted-b'].docker, nextWaveAt - Date.now() + 30_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextWaveAt - Date.now())));
    const askedAt = Date.now();
    expect(secondWavePulled).toBe(true);
    const { alarms } = await counts();
    const atPauseEnd = alarms.find((alarm) => alarm.at >= nextWaveAt - 100);
    // The alarm woke another object than the one that saw the canary end: the first was evicted.
    expect(atPauseEnd, JSON.stringify({ nextWaveAt, pausedIn, alarms })).toBeDefined();
    expect(atPauseEnd?.instance).not.toBe(pausedIn);
    const resumed = await rollout(started.id);
    const second = resumed.hosts[1] as Rollout['hosts'][0];
    expect(second.state).not.toBe('pending');
    expect(Date.parse(second.startedAt as string)).toBeGreaterThanOrEqual(nextWaveAt);
    expect(Date.parse(second.startedAt as string)).toBeLessThan(askedAt);

    const done = await ended(started.id, 120_000, 250);
    expect(done.state).toBe('completed');
    expect(done.hosts.map((host) => host.state)).toEqual(['succeeded', 'succeeded']);
    for (const [index, host] of HOSTS.entries()) {
      const now = await dockerds[host].docker.getContainer('web').inspect();
      expect(now.Id).not.toBe(oldIds[host]);
      expect(now.Config.Image).toBe(`${registry.host}/evicted/web:2.0.0`);
      const operationId = done.hosts[index]?.containers[0]?.operationId;
      const operation = await json<UpdateOperation>(`/api/v1/update-operations/${operationId}`);
      expect(operation).toMatchObject({ status: 'succeeded', batchId: started.id, agent: host });
      const record = await until(
        async () => {
          const { data } = await json<{ data: Container[] }>(`/api/v1/containers?agent=${host}`);
          return data.find((c) => c.name === 'web' && c.id === now.Id);
        },
        `${host}'s new container listed`,
        30_000,
        250,
      );
      expect((await json<{ total: number }>(`/api/v1/containers/${record.id}/update-operations`)).total).toBe(1);
    }
  }, 400_000);
});
