/**
 * The hub killed (SIGKILL) while an edge agent runs one of its updates, on real processes: a hub
 * process (`npm start`'s entry) with a file store and an authorized_keys file, a real agent
 * process (`npm run agent`) on its own dockerd, a plain registry. The update is cut off from the
 * hub in its health gate (an image whose health probe takes 4 s); the agent finishes it alone.
 * The hub restarted on the same data dir, port and keys takes the operation up from its store
 * (recoverOne → awaitAgentOperation) and settles it from the agent's report once it reconnects.
 */
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPORARY_NAME } from '../../shared/update-engine';
import { type AgentProcess, signedIn } from '../support/edge-agent-process';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  runApp,
  spawnBedAgent,
  startEdgeUpdateBed,
  until,
} from '../support/edge-update-bed';
import { updateIntoHealthGate } from '../support/edge-update-steps';
import { type HubProcess, startHubProcess } from '../support/hub-process';

const AGENT = 'edge-restart';

describe('the hub killed during an edge agent update', () => {
  let bed: EdgeUpdateBed;
  let docker: Docker;
  let hub: HubProcess | undefined;
  let agent: AgentProcess | undefined;
  let hubEnv: Record<string, string>;

  // The hub is looked up on each call: the test replaces it.
  const api = edgeUpdateApi((path, init) => fetch(`${hub?.url}${path}`, init), AGENT);
  const { json, pending, settled } = api;

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    docker = bed.docker;
    hubEnv = {
      DD_STORE_PATH: join(bed.dir, 'store'),
      DD_LOCAL_WATCHER: 'false',
      DD_EDGE_AUTHORIZED_KEYS: bed.authorizedKeys,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '30',
    };
    hub = await startHubProcess(hubEnv, 60_000);
    agent = await spawnBedAgent(bed, hub.url, {}, 60_000);
  }, 240_000);

  afterAll(async () => {
    await agent?.kill('SIGTERM');
    await hub?.kill('SIGTERM');
    await bed?.stop();
  }, 60_000);

  it('settles the operation succeeded once the agent reconnects to the restarted hub, no -old- container left', async () => {
    // 2.0.0's health probe takes 4 s (healthy after ~4.5 s, under its 5 s timeout).
    const oldId = await runApp(bed, 'slow', 'edge/slow', { from: 'http', to: 'slow-healthy' });
    const to = `${bed.registry.host}/edge/slow:2.0.0`;
    const oldImageId = (await docker.getContainer(oldId).inspect()).Image;

    const record = await pending('slow', { id: oldId, everyMs: 250 });
    const { operationId, operation: inGate } = await updateIntoHealthGate(api, record);
    expect(inGate.status).toBe('in-progress');
    const port = (hub as HubProcess).port;
    expect(await (hub as HubProcess).kill('SIGKILL')).toBe('SIGKILL');
    const killedAt = Date.now();
    // Cut off from the hub mid-gate: the old container stands by under its temporary name.
    const cut = (await docker.listContainers({ all: true })).flatMap((c) => c.Names.map((n) => n.slice(1)));
    expect(cut.filter((name) => TEMPORARY_NAME.test(name))).toHaveLength(1);

    // The same data dir, keys and port (the agent keeps dialling its configured URL).
    const logFrom = agent?.logs.length ?? 0;
    hub = await startHubProcess({ ...hubEnv, DD_SERVER_PORT: String(port) }, 60_000);
    expect(hub.port).toBe(port);
    await agent?.waitForLog(signedIn, 60_000, logFrom);
    const operation = await settled(operationId);
    const settledAfterMs = Date.now() - killedAt;
    expect(operation).toMatchObject({ status: 'succeeded', phase: 'succeeded', agent: AGENT, toVersion: '2.0.0' });
    const running = await docker.getContainer('slow').inspect();
    expect(running.Id).toBe(operation.newContainerId);
    expect(running.Config.Image).toBe(to);
    expect(running.State.Running).toBe(true);
    const names = (await docker.listContainers({ all: true })).flatMap((c) => c.Names.map((n) => n.slice(1)));
    expect(names.filter((name) => name.startsWith('slow'))).toEqual(['slow']);
    expect(names.filter((name) => TEMPORARY_NAME.test(name))).toEqual([]);
    // Settled as any other: the backup of 1.0.0 is kept, the update announced in the audit.
    const backups = await until(async () => {
      const found = await json<{ data: { imageId: string; imageTag: string }[] }>(
        '/api/v1/containers/backups?containerName=slow',
      );
      return found.data.length > 0 ? found.data : undefined;
    }, 'the backup kept after the recovery');
    expect(backups).toEqual([expect.objectContaining({ imageId: oldImageId, imageTag: '1.0.0' })]);
    const applied = await until(async () => {
      const entries = await json<{ data: { containerName: string; action: string }[] }>(
        '/api/v1/audit?actions=update-applied&limit=50',
      );
      return entries.data.find((entry) => entry.containerName === 'slow');
    }, 'update-applied audited');
    expect(applied.action).toBe('update-applied');
    console.info(`edge update settled on the restarted hub ${settledAfterMs} ms after the kill`);
  }, 300_000);
});
