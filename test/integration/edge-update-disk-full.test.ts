/**
 * The hub's disk full while an edge agent finishes an update (found by the soak, issue 18): the hub
 * (`npm start`'s code in process) on an fs store on a small tmpfs of its own, a real agent on its own
 * dockerd, a plain registry. The disk fills while the update is in its health gate (a probe of 4 s);
 * the agent reports the end once, and the hub could not store it. It used to drop the report and
 * show the operation in progress, its container claimed, until the next restart; it now writes it
 * again until space returns, with no restart.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeAgent } from '../../edge-agent/src/agent/edge-agent';
import type { UpdateOperation } from '../../shared/update-engine';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  runApp,
  startEdgeUpdateBed,
  startInProcessAgent,
  until,
} from '../support/edge-update-bed';
import { updateIntoHealthGate } from '../support/edge-update-steps';
import { createServerHub, type HubClient } from '../support/hub-harness';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk';

const AGENT = 'edge-full';

describe('an edge agent update whose end comes while the hub disk is full', () => {
  let bed: EdgeUpdateBed;
  let disk: SmallDisk;
  let hub: HubClient;
  let agent: EdgeAgent;
  const api = edgeUpdateApi((path, init) => hub.request(path, init), AGENT);
  const { json, pending, settled } = api;
  const operationOf = (id: string) => json<UpdateOperation>(`/api/v1/update-operations/${id}`);

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    disk = mountSmallDisk(16);
    hub = await createServerHub({
      DD_STORE_DRIVER: 'fs',
      DD_STORE_PATH: join(disk.path, 'data'),
      DD_EDGE_AUTHORIZED_KEYS: bed.authorizedKeys,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '30',
    });
    agent = await startInProcessAgent(bed, hub.url as string);
  }, 180_000);

  afterAll(async () => {
    disk?.free();
    await agent?.stop();
    await hub?.close();
    await bed?.stop();
    disk?.close();
  }, 60_000);

  it('settles the operation once space returns, without a restart', async () => {
    await runApp(bed, 'slow', 'edge/slow', { from: 'http', to: 'slow-healthy' });
    const record = await pending('slow');
    const { operationId } = await updateIntoHealthGate(api, record);

    disk.fill();
    // The agent ends it (its journal is beside its key, not on the full disk) and reports it.
    await until(
      async () => {
        const journal = JSON.parse(await readFile(bed.journalFile, 'utf8')) as { operations: UpdateOperation[] };
        return journal.operations.find((entry) => entry.id === operationId && entry.status === 'succeeded');
      },
      'the agent journalled the success',
      60_000,
    );
    // Reported, not stored: the hub still shows it in progress while the disk is full.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await operationOf(operationId)).status).toBe('in-progress');

    disk.free();
    const operation = await settled(operationId, 30_000);
    expect(operation).toMatchObject({ status: 'succeeded', phase: 'succeeded', agent: AGENT, toVersion: '2.0.0' });
    expect(
      hub.logged.some(({ entry }) => entry.level === 'warn' && entry.msg.includes('not stored, trying again')),
    ).toBe(true);
  }, 240_000);
});
