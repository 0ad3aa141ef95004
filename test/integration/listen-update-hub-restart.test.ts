/**
 * The hub killed (SIGKILL) while a listen-mode agent runs one of its updates, on real processes: a
 * hub process (`npm start`'s entry) with a file store, a listen-mode agent process
 * (`npm run agent -- --listen`) on its own dockerd with a journal file, a plain registry. The
 * update is cut off from the hub in its health gate (a probe that takes 4 s); the agent finishes it
 * alone. The hub restarted on the same data dir takes the operation up from its store and settles
 * it from what the agent reports when the hub connects again (GET /api/operations).
 */
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPORARY_NAME } from '../../shared/update-engine';
import { type EdgeUpdateBed, edgeUpdateApi, runApp, startEdgeUpdateBed } from '../support/edge-update-bed';
import { updateIntoHealthGate } from '../support/edge-update-steps';
import { type HubProcess, startHubProcess } from '../support/hub-process';
import { type ListenAgentProcess, startListenAgentProcess } from '../support/listen-agent-process';

const AGENT = 'lrestart';
const SECRET = 'listen-restart-secret-0123456789';

describe('the hub killed during a listen-mode agent update', () => {
  let bed: EdgeUpdateBed;
  let docker: Docker;
  let hub: HubProcess | undefined;
  let agent: ListenAgentProcess | undefined;
  let hubEnv: Record<string, string>;

  // The hub is looked up on each call: the test replaces it.
  const api = edgeUpdateApi((path, init) => fetch(`${hub?.url}${path}`, init), AGENT);

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    docker = bed.docker;
    agent = await startListenAgentProcess({
      port: 0,
      env: {
        DD_WATCHER_LOCAL_SOCKET: bed.dockerd.socketPath,
        DD_AGENT_SECRET: SECRET,
        DD_AGENT_UPDATE_JOURNAL: join(bed.dir, 'listen-agent.updates.json'),
      },
    });
    hubEnv = {
      DD_STORE_PATH: join(bed.dir, 'store'),
      DD_LOCAL_WATCHER: 'false',
      [`DD_AGENT_${AGENT.toUpperCase()}_HOST`]: '127.0.0.1',
      [`DD_AGENT_${AGENT.toUpperCase()}_PORT`]: String(agent.port),
      [`DD_AGENT_${AGENT.toUpperCase()}_SECRET`]: SECRET,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '30',
    };
    hub = await startHubProcess(hubEnv, 60_000);
  }, 240_000);

  afterAll(async () => {
    await agent?.kill('SIGTERM');
    await hub?.kill('SIGTERM');
    await bed?.stop();
  }, 60_000);

  it('settles the operation succeeded once the restarted hub connects to the agent again, no -old- container left', async () => {
    const oldId = await runApp(bed, 'slow', 'listen/slow', { from: 'http', to: 'slow-healthy' });
    const to = `${bed.registry.host}/listen/slow:2.0.0`;

    const record = await api.pending('slow', { id: oldId, everyMs: 250 });
    const { operationId } = await updateIntoHealthGate(api, record);
    expect(await (hub as HubProcess).kill('SIGKILL')).toBe('SIGKILL');
    const killedAt = Date.now();
    // Cut off from the hub mid-gate: the old container stands by under its temporary name.
    const cut = (await docker.listContainers({ all: true })).flatMap((c) => c.Names.map((n) => n.slice(1)));
    expect(cut.filter((name) => TEMPORARY_NAME.test(name))).toHaveLength(1);

    hub = await startHubProcess(hubEnv, 60_000);
    const operation = await api.settled(operationId, 90_000);
    const settledAfterMs = Date.now() - killedAt;
    expect(operation).toMatchObject({ status: 'succeeded', phase: 'succeeded', agent: AGENT, toVersion: '2.0.0' });
    const running = await docker.getContainer('slow').inspect();
    expect(running.Id).toBe(operation.newContainerId);
    expect(running.Config.Image).toBe(to);
    const names = (await docker.listContainers({ all: true })).flatMap((c) => c.Names.map((n) => n.slice(1)));
    expect(names.filter((name) => name.startsWith('slow'))).toEqual(['slow']);
    console.info(`listen-mode update settled on the restarted hub ${settledAfterMs} ms after the kill`);
  }, 300_000);
});
