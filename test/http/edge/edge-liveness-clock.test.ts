import { createStorage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EDGE_TIMINGS } from '../../../hub/src/edge/edge-sessions';
import type { HibernatableEdgeUpgrader } from '../../../hub/src/hub-deps';
import { createMemoryHub, type HubClient } from '../../support/hub-harness';

/**
 * Which clock checks the edge sessions' liveness (docs/workers.md "Edge sockets"): a ticker of the
 * hub's own where it holds the sockets, the scheduler's `edge.liveness` job where they hibernate
 * (an interval would keep the object awake). EdgeSessions chooses, through repeatWork.
 */
const upgrader: HibernatableEdgeUpgrader = { upgrade: () => new Response(null, { status: 200 }) };
const hubs: HubClient[] = [];

afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

async function scheduledJobs(edgeSockets: HibernatableEdgeUpgrader | undefined): Promise<Record<string, unknown>> {
  const storage = createStorage();
  const hub = await createMemoryHub({}, { storage, ...(edgeSockets && { edgeSockets }) });
  hubs.push(hub);
  await hub.hub.drain(); // the schedule writes are settled
  const runs: Record<string, unknown> = {};
  for (const key of await storage.getKeys('schedule')) {
    const run = (await storage.getItem(key)) as { name: string; recurrence?: string };
    runs[run.name] = run.recurrence;
  }
  return runs;
}

describe('edge liveness clock', () => {
  it('is the scheduled edge.liveness job, once per silence limit, where sockets hibernate', async () => {
    const runs = await scheduledJobs(upgrader);
    expect(Object.keys(runs)).toContain('edge.liveness');
    expect(String(runs['edge.liveness'])).toContain(String(DEFAULT_EDGE_TIMINGS.silenceLimitMs));
    // The directory's lastSeen flush goes the same way there.
    expect(Object.keys(runs)).toContain('agents.last-seen');
  });

  it('is a ticker of its own, with no job, where the hub holds the sockets', async () => {
    const runs = await scheduledJobs(undefined);
    expect(Object.keys(runs)).not.toContain('edge.liveness');
    expect(Object.keys(runs)).not.toContain('agents.last-seen');
  });
});
