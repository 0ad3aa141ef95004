/**
 * Fuzz of the edge gateways (docs/workers.md "Edge gateways"), in memory
 * (test/support/edge-gateway-bed.ts): mutated frames of signed-in agents through a gateway, whose
 * verdicts partly come back from the hub in a batch's answer; and hostile bodies on the hub's
 * gateway paths.
 *
 * Invariants: each session ends with the close code docs/edge-protocol.md gives for what was sent
 * (the oracle of ./edge-frame-generators, the same as on the hub's own sockets), or stays open and
 * answers a ping; the gateway paths answer every body with 200, 400 or 404 and a JSON body, never a
 * throw; afterwards a good agent still signs in and the hub still serves.
 *
 * Deterministic: FUZZ_SEED=<seed> npx vitest run test/fuzz/gateway-fuzz.test.ts replays a run.
 */
import { createStorage } from 'unstorage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_PATHS } from '../../hub/src/edge/gateway/gateway-messages';
import { answerGatewayRequest } from '../../hub/src/edge/gateway/gateway-requests';
import {
  closeGatewayBeds,
  type GatewayBed,
  gatewayBed,
  helloThrough,
  registeredIdentity,
} from '../support/edge-gateway-bed';
import { type EdgeIdentity, sampleWatcher } from '../support/edge-peer';
import { expectedAfterSignIn, mutated, validAgentFrame } from './edge-frame-generators';
import { HOSTILE_STRINGS, hostileJsonValue, preview, rngFor, seedFromEnv, seedHex } from './generators';

const SEED = seedFromEnv(process.env.FUZZ_SEED);
const WATCHERS = [sampleWatcher({ name: 'local', watchByDefault: false })];

let bed: GatewayBed;
let identity: EdgeIdentity;

beforeAll(async () => {
  bed = await gatewayBed(createStorage());
  identity = await registeredIdentity(bed, 'fuzz');
});

afterAll(closeGatewayBeds);

describe(`edge gateway fuzz (seed ${seedHex(SEED)})`, () => {
  it('closes a session for a mutated frame with the documented code, or keeps it working', async () => {
    const rng = rngFor(SEED, 'gateway-frame-mutations');
    const mismatches: string[] = [];
    for (let i = 0; i < 150; i += 1) {
      const local = rngFor(rng.int(0, 2 ** 30), 'frame');
      const socket = await helloThrough(bed, identity, `fuzz-${i}`, WATCHERS);
      expect(socket.frames.at(-1)?.type).toBe('welcome');
      const text = mutated(local, validAgentFrame(local));
      const expected = expectedAfterSignIn(text);
      bed.gateway.sockets.message(socket, text);
      await bed.gateway.settled();
      if (expected === 'open') {
        const sent = socket.frames.length;
        bed.gateway.sockets.message(socket, JSON.stringify({ type: 'ping', padding: 'x' }));
        const answered = socket.frames.slice(sent).some((frame) => frame.type === 'pong');
        if (socket.closedWith !== undefined || !answered)
          mismatches.push(`#${i} expected open, got ${socket.closedWith ?? 'no pong'}: ${preview(text, 160)}`);
      } else if (socket.closedWith !== expected) {
        mismatches.push(`#${i} expected ${expected}, got ${socket.closedWith ?? 'open'}: ${preview(text, 160)}`);
      }
      bed.gateway.close(
        bed.gateway.list().find((session) => session.agentName === `fuzz-${i}`)?.session ?? '',
        1000,
        '',
      );
    }
    await bed.gateway.settled();
    expect(mismatches).toEqual([]);
  });

  it('answers hostile bodies on the gateway paths with 200, 400 or 404 and a JSON body', async () => {
    const rng = rngFor(SEED, 'gateway-bodies');
    const paths = [...Object.values(GATEWAY_PATHS), '/__edge-gateway/unknown'];
    const valid = {
      gateway: 'edge-gateway-0',
      items: [{ type: 'detach', session: 'nobody', code: 1000 }],
    };
    for (let i = 0; i < 300; i += 1) {
      const path = rng.pick(paths);
      const body = rng.bool(0.3)
        ? rng.pick(HOSTILE_STRINGS)
        : JSON.stringify(rng.bool() ? hostileJsonValue(rng) : { ...valid, items: [hostileJsonValue(rng)] });
      const response = await answerGatewayRequest(
        bed.hub.hub.parts.edge?.gateways,
        new Request(`https://internal.invalid${path}`, { method: 'POST', body }),
      );
      expect([200, 400, 404], `${path} ${preview(body, 120)}`).toContain(response.status);
      expect(await response.json()).toBeTypeOf('object');
    }
    // The hub still serves, and a good agent still signs in through the gateway.
    expect((await bed.hub.request('/api/v1/agents')).status).toBe(200);
    const socket = await helloThrough(bed, identity, 'after-fuzz', WATCHERS);
    expect(socket.closedWith).toBeUndefined();
    expect(socket.frames.map((frame) => frame.type)).toContain('welcome');
  });
});
