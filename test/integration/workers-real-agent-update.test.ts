/**
 * Issue 16, "How it is proven", bullet 2: a real `npm run agent` process, on its own test dockerd,
 * against the hub as `npm run dev:workers` runs it (wrangler dev --local, workerd). Sign-in,
 * inventory, the hub's watch cycle under workerd finding 2.0.0 in a real registry, the update run
 * by the agent to `succeeded` (2.0.0 running on the dockerd), and the key's revocation closing the
 * agent's socket in under 1 s. Public interfaces only: the HTTP API, the agent process and its
 * log, the dockerd.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64 } from '../../shared/edge/sign-in';
import type { Agent } from '../../shared/schemas/agent';
import { type AgentProcess, closedWith, signedIn } from '../support/edge-agent-process';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  runApp,
  spawnBedAgent,
  startEdgeUpdateBed,
  until,
} from '../support/edge-update-bed';
import { buildDevBundle, dumpOnFailure, startWranglerDev, type WranglerDev } from '../support/wrangler-dev';

const AGENT = 'workers-real';

describe('a real agent process against the hub under wrangler dev', () => {
  let workDir: string;
  let bed: EdgeUpdateBed;
  let hub: WranglerDev;
  let agent: AgentProcess | undefined;
  let keyId: string;

  const request = (path: string, init?: RequestInit) => fetch(`${hub.url}${path}`, init);
  const { json, pending, requestUpdate, settled, byName } = edgeUpdateApi(request, AGENT);
  const listedAgent = async () => (await json<{ data: Agent[] }>('/api/v1/agents')).data.find((a) => a.name === AGENT);

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-real-agent-'));
    const [script, started] = await Promise.all([
      buildDevBundle(join(workDir, 'bundle', 'index.js')),
      startEdgeUpdateBed(AGENT),
    ]);
    bed = started;
    hub = await startWranglerDev({
      script,
      persistTo: join(workDir, 'state'),
      // Anonymous on purpose (loopback only here); the polling below exceeds the default rate limit;
      // a Docker action trigger, without which the hub offers no update.
      vars: {
        DD_SERVER_HOST: '0.0.0.0',
        DD_SERVER_RATELIMIT_MAX: '1000000',
        DD_LOG_LEVEL: 'info',
        DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '5',
      },
    });
    console.log(`wrangler dev ready in ${hub.startupMs} ms on ${hub.url}`);
    // The key through the hub's API, as docs/workers.md step 7 does.
    const registered = await request('/api/v1/edge/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: toBase64(bed.key.publicKey), label: AGENT }),
    });
    expect(registered.status).toBe(201);
    ({ keyId } = (await registered.json()) as { keyId: string });
  }, 180_000);

  afterAll(async () => {
    await agent?.kill('SIGKILL');
    await hub?.stop();
    await bed?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  it('signs in, syncs its inventory, gets its update detected by the hub and runs it to succeeded', async () => {
    dumpOnFailure(
      () => hub,
      () => agent,
    );
    const oldId = await runApp(bed, 'web', 'workers/web', { from: 'http', to: 'http' });
    agent = await spawnBedAgent(bed, hub.url.replace(/^http/, 'ws'), {}, 60_000);

    // Sign-in: listed connected, with the container it synced.
    const listed = await until(
      async () => {
        const found = await listedAgent();
        return found?.connected && found.containers.total > 0 ? found : undefined;
      },
      'the agent listed connected with its containers',
      30_000,
      250,
    );
    expect(listed).toMatchObject({ connected: true, port: 0, containers: { total: 1, running: 1 } });
    const synced = await until(() => byName('web'), 'web listed', 30_000, 250);
    expect(synced).toMatchObject({ id: oldId, agent: AGENT, watcher: 'local', image: { tag: { value: '1.0.0' } } });

    // The hub's watch cycle, under workerd, asks the registry and finds 2.0.0.
    const record = await pending('web', { everyMs: 500 });
    expect(record.updateAvailable).toBe(true);
    expect(record.result).toMatchObject({ tag: '2.0.0' });

    const operationId = await requestUpdate(record);
    const operation = await settled(operationId);
    expect(operation).toMatchObject({
      status: 'succeeded',
      agent: AGENT,
      containerName: 'web',
      toVersion: '2.0.0',
    });
    const running = await bed.docker.listContainers({ filters: { name: ['^/web$'] } });
    expect(running.map((c) => c.Image)).toEqual([`${bed.registry.host}/workers/web:2.0.0`]);
    expect(running[0]?.Id).not.toBe(oldId);
    // And the hub lists the new container, up to date.
    const updated = await until(
      async () => {
        const found = await byName('web');
        return found && found.id !== oldId && !found.updateAvailable ? found : undefined;
      },
      'web listed on 2.0.0',
      30_000,
      250,
    );
    expect(updated.image.tag.value).toBe('2.0.0');
  }, 240_000);

  it("closes the agent's socket within 1 s of the key's revocation", async () => {
    dumpOnFailure(
      () => hub,
      () => agent,
    );
    const running = agent;
    if (!running) throw new Error('no agent');
    const from = running.logs.length;
    const revoked = await request(`/api/v1/edge/keys/${keyId}`, { method: 'DELETE' });
    const answeredAt = Date.now();
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { revokedAt?: string }).revokedAt).toEqual(expect.any(String));
    const closed = await running.waitForLog(closedWith(4002), 5_000, from);
    const elapsedMs = closed.time - answeredAt;
    console.log(`revocation: the agent logged its 4002 close ${elapsedMs} ms after the DELETE answered`);
    expect(elapsedMs).toBeLessThan(1_000);
    // The hub lists it disconnected, and refuses its next sign-in (the agent retries at its longest step).
    await until(async () => ((await listedAgent())?.connected === false ? true : undefined), 'agent disconnected');
    const afterClose = running.logs.indexOf(closed) + 1;
    await running.waitForLog(closedWith(4002), 10_000, afterClose);
    expect(running.logs.slice(from).filter(signedIn)).toEqual([]);
    expect((await listedAgent())?.connected).toBe(false);
  }, 60_000);
});
