import { WSContext } from 'hono/ws';
import { describe, expect, it } from 'vitest';
import { createNodeEd25519Verify } from '../../../hub/src/adapter/node/ed25519-verify';
import type { EdgeSessions } from '../../../hub/src/edge/edge-sessions';
import { EDGE_PROTOCOL } from '../../../shared/edge/protocol';
import { edgeKeyId, generateEdgeKeyPair, signChallenge, toBase64 } from '../../../shared/edge/sign-in';
import { sampleAgentInfo, sampleWatcher } from '../../support/edge-peer';
import { createMemoryHub } from '../../support/hub-harness';

/**
 * A fleet's hellos arriving in one poll phase (issue 18: 10,000 agents dialling at once held the
 * loop for seconds). With the Node runtime's nextTurn the hub verifies them in slices: a timer due
 * meanwhile runs before the burst is over. Without a pacer every welcome goes out first.
 */
const AGENTS = 600;

async function burst(paced: boolean): Promise<{ welcomes: number; beforeTimer: number; afterTimer: number }> {
  const client = await createMemoryHub(
    { DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '100000', DD_EDGE_SIGNIN_MAX: '100000' },
    {
      verifyEd25519: createNodeEd25519Verify(),
      ...(paced && { nextTurn: (work: () => void) => void setImmediate(work) }),
    },
  );
  try {
    const edge = client.hub.parts.edge as EdgeSessions;
    const pairs = await Promise.all(Array.from({ length: AGENTS }, () => generateEdgeKeyPair()));
    const agents = pairs.map((pair, i) => ({ ...pair, keyId: edgeKeyId(pair.publicKey), name: `agent-${i}` }));
    await edge.keys.registerMany(
      agents.map((agent) => ({
        publicKey: toBase64(agent.publicKey),
        keyId: edgeKeyId(agent.publicKey),
        label: agent.name,
      })),
    );
    let timerRan = false;
    const welcomedAt: boolean[] = [];
    const sockets = agents.map(() => {
      const challenges: string[] = [];
      const ws = new WSContext({
        send: (data) => {
          const frame = JSON.parse(String(data)) as { type: string; challenge?: string };
          if (frame.type === 'challenge') challenges.push(frame.challenge as string);
          if (frame.type === 'welcome') welcomedAt.push(timerRan);
        },
        close: () => undefined,
        readyState: 1,
      });
      const events = edge.connect({ protocol: EDGE_PROTOCOL, address: '127.0.0.1' });
      events.onOpen?.(new Event('open'), ws);
      return { ws, events, challenge: () => challenges[0] as string };
    });
    const hellos = await Promise.all(
      agents.map(async (agent, i) =>
        JSON.stringify({
          type: 'hello',
          protocol: EDGE_PROTOCOL,
          keyId: agent.keyId,
          agentName: agent.name,
          signature: await signChallenge(
            agent.secretKey,
            sockets[i]?.challenge() ?? '',
            EDGE_PROTOCOL,
            agent.keyId,
            agent.name,
          ),
          agent: sampleAgentInfo(),
          watchers: [sampleWatcher()],
        }),
      ),
    );
    // Every hello in one go, as a poll phase delivers the sockets that are ready together.
    setTimeout(() => {
      timerRan = true;
    }, 0);
    for (const [i, socket] of sockets.entries())
      socket.events.onMessage?.(new MessageEvent('message', { data: hellos[i] ?? '' }), socket.ws);
    const deadline = Date.now() + 20_000;
    while (welcomedAt.length < AGENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return {
      welcomes: welcomedAt.length,
      beforeTimer: welcomedAt.filter((ran) => !ran).length,
      afterTimer: welcomedAt.filter((ran) => ran).length,
    };
  } finally {
    await client.close();
  }
}

describe('edge sign-ins in a burst', () => {
  it('are verified in slices with the Node pacer: a due timer runs before the last welcome', async () => {
    const result = await burst(true);
    expect(result.welcomes).toBe(AGENTS);
    expect(result.afterTimer).toBeGreaterThan(0);
  });

  it('without a pacer (a runtime that gives no nextTurn) all welcome before the timer: the measure above can fail', async () => {
    const result = await burst(false);
    expect(result.welcomes).toBe(AGENTS);
    expect(result.afterTimer).toBe(0);
  });
});
