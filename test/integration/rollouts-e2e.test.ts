/**
 * Staged rollouts across hosts (docs/group-policies.md "Staged rollouts") on real components: three
 * private dockerds, each the host of a real edge agent process (`npm run agent`), one plain registry,
 * the hub in process on a loopback port. The same image runs on the three hosts; a rollout updates
 * the canary host first, then one host per wave, each wave waiting for its update to end healthy
 * (the update engine's health gate), and halts at the first wave that fails, leaving the hosts after
 * it untouched. Heavy (three dockerds on a small machine): run this file alone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNewKeyFile } from '../../edge-agent/src/keys/key-file';
import { toBase64 } from '../../shared/edge/sign-in';
import type { Container } from '../../shared/schemas/container';
import type { Rollout } from '../../shared/schemas/rollout';
import type { UpdateOperation } from '../../shared/update-engine';
import { startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { type AppKind, publishApp, pullApp } from '../support/docker/update-images';
import type { AgentProcess } from '../support/edge-agent-process';
import { until } from '../support/edge-update-bed';
import { createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { expectJson } from '../support/hub-json';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';
import { pendingOnEvery, rolloutWaits, spawnHostAgent } from '../support/rollout-steps';
import { dataOf, openSse, type SseStream } from '../support/sse-client';

const HOSTS = ['rollout-a', 'rollout-b', 'rollout-c'] as const;
type Host = (typeof HOSTS)[number];

interface AuditEntry {
  action: string;
  status?: string;
  details?: string;
}

describe('a staged rollout across three agents on three dockerds', () => {
  let dir: string;
  let registry: TestRegistry;
  const dockerds = {} as Record<Host, TestDockerd>;
  const agents: AgentProcess[] = [];
  let hub: HubClient;

  const request = (path: string, init?: RequestInit) => hub.request(path, init);
  const json = expectJson(request);

  /** Publishes the two versions of a repository and runs 1.0.0 as `name` on every host (with env on some). */
  async function deploy(
    repository: string,
    name: string,
    kinds: { from: AppKind; to: AppKind },
    envOf: (host: Host) => string[] = () => [],
    group = 'fleet',
  ): Promise<Record<Host, string>> {
    const first = dockerds[HOSTS[0]];
    const from = await publishApp(first, registry, { repository, tag: '1.0.0', kind: kinds.from });
    await publishApp(first, registry, { repository, tag: '2.0.0', kind: kinds.to });
    const ids = {} as Record<Host, string>;
    for (const host of HOSTS) {
      await pullApp(dockerds[host], from);
      const created = await dockerds[host].docker.createContainer({
        name,
        Image: from,
        Labels: { 'dd.watch': 'true', 'dd.group': group },
        Env: envOf(host),
        StopTimeout: 2,
        NetworkDisabled: true,
        HostConfig: { Init: true, NetworkMode: 'none' },
      });
      await created.start();
      ids[host] = created.id;
    }
    return ids;
  }

  /** Asks the hub to watch until every agent lists `name` with an update pending. */
  const pendingEverywhere = (name: string) => pendingOnEvery(request, json, name, HOSTS);

  const { rollout, ended } = rolloutWaits(json);
  const finished = (id: string) => ended(id, 180_000, 200, ['completed', 'halted', 'aborted']);
  const inspect = (host: Host, name: string) => dockerds[host].docker.getContainer(name).inspect();
  const ms = (iso: string | undefined) => Date.parse(iso as string);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dd-rollouts-'));
    registry = await startRegistry({ variant: 'plain' });
    // One after the other: three daemons starting at once crowd a small machine.
    for (const host of HOSTS) dockerds[host] = await startDockerd();
    const lines: string[] = [];
    for (const host of HOSTS) {
      const key = await writeNewKeyFile(join(dir, `${host}.key`));
      lines.push(`${toBase64(key.publicKey)} ${host}`);
    }
    await writeFile(join(dir, 'authorized_keys'), `${lines.join('\n')}\n`);
    hub = await createServerHub({
      DD_EDGE_AUTHORIZED_KEYS: join(dir, 'authorized_keys'),
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20',
    });
    for (const host of HOSTS) {
      const keyFile = join(dir, `${host}.key`);
      await spawnHostAgent(agents, { hubUrl: hub.url as string, keyFile, name: host, dockerd: dockerds[host] });
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.kill()));
    await hub?.close();
    await Promise.all(Object.values(dockerds).map((dockerd) => dockerd.stop()));
    await registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it("follows the group's policy: the canary host, then one host per wave with the pause between, pausable; announced and audited", async () => {
    const oldIds = await deploy('rollout/web', 'web', { from: 'http', to: 'healthy' });
    await pendingEverywhere('web');
    await json(
      '/api/v1/group-policies/group/fleet',
      jsonInit('PUT', { rollout: { canaryHost: 'rollout-b', pauseSeconds: 2 } }),
    );
    const stream: SseStream = await openSse(request, '/api/v1/events/ui');
    const seen: { type: string; rollout: Rollout }[] = [];
    const reading = (async () => {
      for (;;) {
        const event = await stream.next(200_000).catch(() => undefined);
        if (!event) return;
        if (event.event?.startsWith('dd:rollout-')) seen.push({ type: event.event, rollout: dataOf<Rollout>(event) });
        if (event.event === 'dd:rollout-updated' && dataOf<Rollout>(event).state === 'completed') return;
      }
    })();

    const started = await json<Rollout>(
      '/api/v1/rollouts',
      jsonInit('POST', { image: `${registry.host}/rollout/web`, group: 'fleet' }),
      201,
    );
    expect(started).toMatchObject({ state: 'running', toVersion: '2.0.0', waveSize: 1, pauseSeconds: 2, waves: 3 });
    expect(started.hosts.map((host) => [host.host, host.wave])).toEqual([
      ['rollout-b', 0],
      ['rollout-a', 1],
      ['rollout-c', 2],
    ]);
    // The same image and candidate cannot be rolled out twice at once.
    const twice = await request('/api/v1/rollouts', jsonInit('POST', { image: `${registry.host}/rollout/web:1.0.0` }));
    expect(twice.status).toBe(409);
    expect(((await twice.json()) as { details: { reason: string } }).details.reason).toBe('rollout-active');

    // Paused once the canary is through (inside the 2 s pause): nothing more happens until resumed.
    await until(
      async () => ((await rollout(started.id)).hosts[0]?.state === 'succeeded' ? true : undefined),
      'the canary updated',
      120_000,
      100,
    );
    const paused = await json<Rollout>(`/api/v1/rollouts/${started.id}/pause`, { method: 'POST' });
    expect(paused.state).toBe('paused');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const waiting = await rollout(started.id);
    expect(waiting.state).toBe('paused');
    expect(waiting.hosts.map((host) => host.state)).toEqual(['succeeded', 'pending', 'pending']);
    expect((await inspect('rollout-a', 'web')).Id).toBe(oldIds['rollout-a']);
    expect((await json<Rollout>(`/api/v1/rollouts/${started.id}/resume`, { method: 'POST' })).state).toBe('running');

    const done = await finished(started.id);
    expect(done.state).toBe('completed');
    expect(done.failure).toBeUndefined();
    const [canary, first, second] = done.hosts as [Rollout['hosts'][0], Rollout['hosts'][0], Rollout['hosts'][0]];
    expect(done.hosts.map((host) => host.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    // In order: each wave starts after the one before it ended; the pause (2 s) between waves 1 and 2.
    expect(ms(first.startedAt)).toBeGreaterThanOrEqual(ms(canary.finishedAt));
    expect(ms(first.startedAt) - ms(canary.finishedAt)).toBeGreaterThanOrEqual(3_000); // held while paused
    expect(ms(second.startedAt) - ms(first.finishedAt)).toBeGreaterThanOrEqual(1_900);

    // What the hosts say: every container re-created on 2.0.0, in the rollout's order.
    const created: Record<string, number> = {};
    for (const host of HOSTS) {
      const now = await inspect(host, 'web');
      expect(now.Id).not.toBe(oldIds[host]);
      expect(now.Config.Image).toBe(`${registry.host}/rollout/web:2.0.0`);
      expect(now.State.Health?.Status).toBe('healthy');
      created[host] = Date.parse(now.Created);
    }
    expect(created['rollout-b']).toBeLessThan(created['rollout-a'] as number);
    expect(created['rollout-a']).toBeLessThan(created['rollout-c'] as number);
    // Each operation belongs to the rollout (its batch) and succeeded.
    for (const host of done.hosts) {
      const operation = await json<UpdateOperation>(`/api/v1/update-operations/${host.containers[0]?.operationId}`);
      expect(operation).toMatchObject({ status: 'succeeded', agent: host.host, toVersion: '2.0.0' });
    }

    await reading;
    await stream.close();
    expect(seen[0]).toMatchObject({ type: 'dd:rollout-started', rollout: { id: started.id, state: 'running' } });
    const states = seen.map((event) => event.rollout.state).filter((state, i, all) => state !== all[i - 1]);
    expect(states).toEqual(['running', 'paused', 'running', 'completed']);
    const audit = await json<{ data: AuditEntry[] }>('/api/v1/audit?actions=rollout&limit=50');
    expect(audit.data.map((entry) => entry.status).reverse()).toEqual([
      'started',
      'wave-succeeded',
      'paused',
      'resumed',
      'wave-succeeded',
      'wave-succeeded',
      'completed',
    ]);
    expect(audit.data.every((entry) => entry.details?.includes(started.id))).toBe(true);
  }, 300_000);

  it('halts at the wave whose host fails its health gate, names the host and why, and leaves the later hosts untouched', async () => {
    // One image everywhere; its 2.0.0 turns unhealthy on rollout-b only (the container's own environment).
    const oldIds = await deploy('rollout/api', 'api', { from: 'http', to: 'env-gated' }, (host) =>
      host === 'rollout-b' ? ['DD_TEST_UNHEALTHY=1'] : [],
    );
    await pendingEverywhere('api');
    const started = await json<Rollout>(
      '/api/v1/rollouts',
      jsonInit('POST', {
        image: `${registry.host}/rollout/api`,
        canaryHost: 'rollout-a',
        waveSize: 1,
        pauseSeconds: 0,
      }),
      201,
    );
    expect(started.hosts.map((host) => host.host)).toEqual(['rollout-a', 'rollout-b', 'rollout-c']);

    const halted = await finished(started.id);
    expect(halted.state).toBe('halted');
    expect(halted.hosts.map((host) => host.state)).toEqual(['succeeded', 'failed', 'untouched']);
    expect(halted.failure).toMatchObject({ host: 'rollout-b', wave: 1, containerName: 'api' });
    expect(halted.failure?.reason).toMatch(/^rolled back: /);
    expect(halted.failure?.reason).toMatch(/health/i);
    const failedOperation = await json<UpdateOperation>(`/api/v1/update-operations/${halted.failure?.operationId}`);
    expect(failedOperation).toMatchObject({ status: 'rolled-back', agent: 'rollout-b' });
    expect(halted.hosts[2]?.containers[0]?.operationId).toBeUndefined();

    // The canary moved; the failed host is back on 1.0.0; the host after it was never touched.
    expect((await inspect('rollout-a', 'api')).Config.Image).toBe(`${registry.host}/rollout/api:2.0.0`);
    expect((await inspect('rollout-b', 'api')).Config.Image).toBe(`${registry.host}/rollout/api:1.0.0`);
    const untouched = await inspect('rollout-c', 'api');
    expect(untouched.Id).toBe(oldIds['rollout-c']);
    expect(untouched.Config.Image).toBe(`${registry.host}/rollout/api:1.0.0`);
    const listed = await json<{ data: Container[] }>('/api/v1/containers?agent=rollout-c');
    const record = listed.data.find((c) => c.name === 'api') as Container;
    expect(record.id).toBe(oldIds['rollout-c']);
    expect((await json<{ total: number }>(`/api/v1/containers/${record.id}/update-operations`)).total).toBe(0);

    const audit = await json<{ data: AuditEntry[] }>('/api/v1/audit?actions=rollout&limit=50');
    const halting = audit.data.find((entry) => entry.status === 'halted');
    expect(halting?.details).toContain(started.id);
    expect(halting?.details).toContain('rollout-b');
    // A halted rollout is over: it cannot be resumed, only read.
    expect((await request(`/api/v1/rollouts/${started.id}/resume`, { method: 'POST' })).status).toBe(409);
    const halts = await json<{ data: Rollout[] }>('/api/v1/rollouts?state=halted');
    expect(halts.data.map((one) => one.id)).toEqual([started.id]);
  }, 300_000);

  it("starts by itself when the group's policy rolls out automatically: the first host found is the canary, the others join", async () => {
    await json(
      '/api/v1/group-policies/group/nightly',
      jsonInit('PUT', { updateMode: 'auto', rollout: { automatic: true, waveSize: 2 } }),
    );
    const oldIds = await deploy('rollout/auto', 'auto', { from: 'http', to: 'healthy' }, () => [], 'nightly');
    // Once the hub lists it (a watch lists it), the container shows its group's mode as the one in force.
    const effective = await until(
      async () => {
        await request('/api/v1/containers/watch', { method: 'POST' });
        const { data } = await json<{ data: Container[] }>('/api/v1/containers?agent=rollout-a');
        const record = data.find((c) => c.name === 'auto');
        if (!record) return undefined;
        return json<{ effective: { updateMode: unknown } }>(`/api/v1/containers/${record.id}/group-policy`);
      },
      'the container listed',
      60_000,
      200,
    );
    expect(effective.effective.updateMode).toEqual({ value: 'auto', source: 'group-policy' });
    // Nobody starts it: the watches find the candidate and the auto-update policy hands it over.
    const started = await until(
      async () => {
        await request('/api/v1/containers/watch', { method: 'POST' });
        const { data } = await json<{ data: Rollout[] }>('/api/v1/rollouts');
        return data.find((one) => one.image === `${registry.host}/rollout/auto`);
      },
      'the automatic rollout',
      90_000,
      500,
    );
    expect(started).toMatchObject({ origin: 'auto', group: 'nightly', toVersion: '2.0.0', by: 'auto-update' });
    const done = await until(
      async () => {
        await request('/api/v1/containers/watch', { method: 'POST' });
        const current = await rollout(started.id);
        return current.state === 'completed' && current.hosts.length === 3 ? current : undefined;
      },
      'the automatic rollout completed on the three hosts',
      180_000,
      500,
    );
    expect(done.hosts.map((host) => host.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect([...done.hosts.map((host) => host.host)].sort()).toEqual([...HOSTS]);
    const canary = done.hosts[0] as Rollout['hosts'][0];
    expect(canary.wave).toBe(0);
    for (const host of done.hosts.slice(1)) expect(ms(host.startedAt)).toBeGreaterThanOrEqual(ms(canary.finishedAt));
    for (const host of HOSTS) {
      const now = await inspect(host, 'auto');
      expect(now.Id).not.toBe(oldIds[host]);
      expect(now.Config.Image).toBe(`${registry.host}/rollout/auto:2.0.0`);
    }
    // Each container was updated once, by the rollout (its batch), never by the auto-update policy itself.
    for (const host of done.hosts) {
      const operation = await json<UpdateOperation>(`/api/v1/update-operations/${host.containers[0]?.operationId}`);
      expect(operation).toMatchObject({ status: 'succeeded', source: 'api', batchId: started.id });
    }
  }, 300_000);
});
