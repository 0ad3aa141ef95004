import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEdgePeer, type EdgePeer } from '../../support/edge-peer';
import { createServerHub, type HubClient } from '../../support/hub-harness';

/**
 * WebSocket upgrades arriving together at the Node hub go through its upgrade pacer
 * (hub/src/adapter/node/upgrade-pacer.ts: a slice of upgrade work a loop turn, issue 18). On a
 * real socket: every one of a burst is upgraded and gets its challenge, none lost or refused while
 * it waited for its turn. (The pacing itself is tested in upgrade-pacer.test.ts, and its effect on
 * the event loop measured with 10,000 agents in docs/benchmarks.md.)
 */
const DIALS = 300;

let client: HubClient;

beforeAll(async () => {
  client = await createServerHub({ DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '100000', DD_EDGE_SIGNIN_MAX: '100000' });
});

afterAll(async () => {
  await client?.close();
});

describe('a burst of edge upgrades on the Node hub', () => {
  it('upgrades every dial and sends each its challenge', async () => {
    const peers: EdgePeer[] = [];
    try {
      const dialled = await Promise.all(Array.from({ length: DIALS }, () => connectEdgePeer(client.url as string)));
      peers.push(...dialled);
      const challenges = await Promise.all(dialled.map((peer) => peer.next('challenge', 20_000)));
      expect(challenges).toHaveLength(DIALS);
      expect(new Set(challenges.map((frame) => (frame as { challenge: string }).challenge)).size).toBe(DIALS);
    } finally {
      for (const peer of peers) peer.close();
    }
  }, 60_000);
});
