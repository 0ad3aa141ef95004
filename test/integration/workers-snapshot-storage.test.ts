import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleContainer, sampleImage, sampleWatcher, snapshotFrames, waitFor } from '../support/edge-peer';
import { signInWorkerdAgent, type WorkerdAgent } from '../support/workerd-edge-socket';
import { startWorkersHub, type WorkersHub } from '../support/workers-hub';

/**
 * An edge agent's snapshot stored in Durable Object storage as one batch (issue 16 item 3): its
 * records and their audit entries written by the driver's setItems, one transaction of puts of at
 * most 128 keys (600 items: five puts); the next workerd on the same persistence directory reads
 * every record and entry back from storage.
 */

const AGENT = 'snapshot-agent';
const CONTAINERS = 300;

let workDir: string;

/** workerd on this test's persistence directory, so a second one reads what the first stored. */
function startWorker(): Promise<WorkersHub> {
  return startWorkersHub({
    persistDir: join(workDir, 'do'),
    vars: { DD_LOG_LEVEL: 'warn', DD_SERVER_HOST: '0.0.0.0' },
  });
}

/** Every container of the agent as the hub lists it, page by page. */
async function listedIds(hub: WorkersHub): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; ) {
    const response = await hub.fetch(`/api/v1/containers?agent=${AGENT}&limit=100&offset=${offset}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { data: { id: string }[]; total: number };
    ids.push(...page.data.map((container) => container.id));
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.total) return ids;
  }
}

async function addedEntries(hub: WorkersHub): Promise<number> {
  const response = await hub.fetch('/api/v1/audit?action=container-added&limit=1');
  return ((await response.json()) as { total: number }).total;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'dockwatch-workers-snapshot-'));
}, 120_000);

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('an edge agent snapshot in Durable Object storage', () => {
  it(`stores a ${CONTAINERS}-container snapshot so that every record is read back after a restart`, async () => {
    const first = await startWorker();
    const containers = Array.from({ length: CONTAINERS }, (_, i) =>
      // Not watched: the cycle after the sync asks no registry.
      sampleContainer(`app-${i}`, { labels: { 'dd.watch': 'false' } }),
    );
    let agent: WorkerdAgent | undefined;
    try {
      agent = await signInWorkerdAgent(first, AGENT, [sampleWatcher({ name: 'local' })]);
      for (const frame of snapshotFrames('local', containers, [sampleImage()], { partSize: 100 })) agent.send(frame);

      await waitFor(
        async () => ((await listedIds(first)).length === CONTAINERS ? true : undefined),
        20_000,
        `${CONTAINERS} containers listed`,
      );
      await waitFor(
        async () => ((await addedEntries(first)) === CONTAINERS ? true : undefined),
        20_000,
        `${CONTAINERS} container-added entries`,
      );
    } finally {
      agent?.close();
      await first.dispose();
    }

    // A new workerd loads the hub from storage alone: what it lists was stored.
    const second = await startWorker();
    try {
      expect((await listedIds(second)).sort()).toEqual(containers.map((container) => container.id).sort());
      expect(await addedEntries(second)).toBe(CONTAINERS);
      const one = containers[CONTAINERS - 1];
      const read = await second.fetch(`/api/v1/containers/${one?.id}`);
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ id: one?.id, name: one?.name, agent: AGENT });
    } finally {
      await second.dispose();
    }
  }, 120_000);
});
