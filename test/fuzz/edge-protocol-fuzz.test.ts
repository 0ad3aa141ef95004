/**
 * Fuzz of the edge/1.0 endpoint: replayed and forged sign-ins, unknown and revoked keys, garbage,
 * binary and oversized frames, frames before sign-in, random mutations of valid frames before
 * and after sign-in, and two agents claiming one name at once, against the hub as `npm start`
 * runs it (in this process, on a real socket, short protocol timings).
 *
 * Invariants: every connection ends with the close code docs/edge-protocol.md gives for what was
 * sent (./edge-frame-generators holds the oracle), or stays open and working (a ping is still
 * answered); the hub never logs an internal error and keeps serving; afterwards a good agent
 * still signs in and syncs, and no session, subscriber or socket of the fuzz is left behind.
 *
 * Deterministic: one seed drives every batch and is printed in the suite name. Reproduce a
 * failure with FUZZ_SEED=<seed> npx vitest run test/fuzz/edge-protocol-fuzz.test.ts.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeSessions } from '../../hub/src/edge/edge-sessions';
import {
  EDGE_CLOSE,
  EDGE_MAX_FRAME_BYTES,
  EDGE_PROTOCOL,
  EDGE_SIGN_IN_MAX_FRAME_BYTES,
} from '../../shared/edge/protocol';
import { newChallenge, signChallenge, toBase64Url } from '../../shared/edge/sign-in';
import type { Agent } from '../../shared/schemas/agent';
import {
  connectEdgePeer,
  type EdgeIdentity,
  type EdgePeer,
  helloFor,
  newEdgeIdentity,
  sampleContainer,
  sampleImage,
  sampleWatcher,
  signedInPeer,
  snapshotFrames,
  waitFor,
} from '../support/edge-peer';
import { createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import {
  expectedAfterSignIn,
  expectedBeforeSignIn,
  FUZZ_IMAGE,
  garbageText,
  keepUnwatched,
  mutated,
  type Outcome,
  randomBytes,
  validAgentFrame,
} from './edge-frame-generators';
import { preview, rngFor, seedFromEnv, seedHex } from './generators';

const SEED = seedFromEnv(process.env.FUZZ_SEED);
const SEED_TAG = `seed ${seedHex(SEED)}`;
// Short timings: a silent connection meets its sign-in deadline in two seconds.
const TIMINGS = { heartbeatMs: 3_000, silenceLimitMs: 8_000, signInDeadlineMs: 2_000, requestTimeoutMs: 2_000 };
const CONCURRENCY = 8;
const SETTLE_MS = 5_000;
// Unwatched by default: no container of the fuzz is ever looked up in a registry.
const WATCHERS = [sampleWatcher({ name: 'local', watchByDefault: false })];

let client: HubClient;
let url: string;
let edge: EdgeSessions;
let key: EdgeIdentity;
let otherKey: EdgeIdentity;
let revokedKey: EdgeIdentity;
let baseline: { fds: number; subscribers: number };
/** Every case whose outcome differed from the oracle's; asserted empty per batch. */
let mismatches: string[] = [];
const tally = new Map<string, number>();

const openFds = () => readdirSync('/proc/self/fd').length;
/** The hub's own bookkeeping, read through TypeScript's escape hatch for private members. */
const sessions = () => (edge['sessions'] as Set<unknown>).size;
const liveAgents = () => (client.hub.parts.agents['live'] as Map<string, unknown>).size;

async function register(identity: EdgeIdentity, label: string): Promise<void> {
  const response = await client.request(
    '/api/v1/edge/keys',
    jsonInit('POST', { publicKey: identity.publicKeyBase64, label }),
  );
  expect(response.status).toBe(201);
}

/** Runs the cases CONCURRENCY at a time; `slot` is the worker's number (one agent name per worker). */
async function inPool<T>(items: readonly T[], work: (item: T, slot: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, slot) => {
      while (next < items.length) await work(items[next++] as T, slot);
    }),
  );
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)),
  ]);
}

/**
 * Waits for what the oracle expects and records a mismatch otherwise. 'open' is proven by a ping
 * the hub still answers (frames are handled in order, so a close for the fuzzed frame comes first).
 */
async function settle(peer: EdgePeer, expected: Outcome | 'welcome', label: string): Promise<void> {
  let actual: string;
  try {
    if (expected === 'open' || expected === 'welcome') {
      if (expected === 'open') peer.send({ type: 'ping' });
      const answered = await Promise.race([
        peer.next(expected === 'open' ? 'pong' : 'welcome', SETTLE_MS).then(() => expected),
        peer.closed.then((closed) => `closed ${closed.code} (${closed.reason})`),
      ]);
      actual = answered;
    } else {
      const closed = await within(peer.closed, SETTLE_MS, label);
      actual = closed.code === expected ? String(expected) : `closed ${closed.code} (${closed.reason})`;
    }
  } catch (error) {
    actual = `no outcome: ${(error as Error).message}`;
  }
  tally.set(actual, (tally.get(actual) ?? 0) + 1);
  if (actual !== String(expected)) mismatches.push(`${label}: expected ${expected}, got ${actual}`);
  if (peer.ws.readyState === peer.ws.OPEN) peer.close(1000);
  await within(peer.closed, SETTLE_MS, `${label} closing`).catch(() => peer.ws.terminate());
}

function expectNoMismatch(): void {
  const found = mismatches;
  mismatches = [];
  expect(found, `${SEED_TAG}: reproduce with FUZZ_SEED=${seedHex(SEED)}`).toEqual([]);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

beforeAll(async () => {
  // Many upgrades from one address, up to 16 of them signing in at once (a replay case holds two).
  client = await createServerHub(
    { DD_SERVER_RATELIMIT_WEBSOCKET: '1000000', DD_EDGE_SIGNIN_MAX_PER_ADDRESS: '1000' },
    { edge: { timings: TIMINGS } },
  );
  url = client.url as string;
  edge = client.hub.parts.edge as EdgeSessions;
  [key, otherKey, revokedKey] = await Promise.all([newEdgeIdentity(), newEdgeIdentity(), newEdgeIdentity()]);
  await register(key, 'fuzz');
  await register(otherKey, 'fuzz-other');
  await register(revokedKey, 'fuzz-revoked');
  // The bound name of the 4003 cases, and the revoked key's own name (bound before its revocation).
  (await signedInPeer(url, key, 'bound', { watchers: WATCHERS })).close();
  (await signedInPeer(url, revokedKey, 'revoked', { watchers: WATCHERS })).close();
  expect((await client.request(`/api/v1/edge/keys/${revokedKey.keyId}`, { method: 'DELETE' })).status).toBe(200);
  await waitFor(() => (sessions() === 0 ? true : undefined), 5_000, 'setup sessions closed');
  baseline = { fds: openFds(), subscribers: client.hub.parts.events.subscriberCount };
});

afterAll(async () => {
  console.info(`edge fuzz (${SEED_TAG}) outcomes: ${JSON.stringify(Object.fromEntries([...tally].sort()))}`);
  await client?.close();
});

describe(`edge protocol fuzz (${SEED_TAG})`, () => {
  it('answers forged, replayed and unknown-key sign-ins with 4001, a revoked key with 4002, a bound name with 4003', async () => {
    const rng = rngFor(SEED, 'edge-sign-in');
    const kinds = [
      'replay',
      'random-signature',
      'bit-flip',
      'other-key',
      'other-name',
      'other-challenge',
      'other-protocol',
      'unknown-key',
    ];
    const cases = range(48).map((i) => ({
      i,
      kind: i < 40 ? rng.pick(kinds) : rng.pick(['revoked', 'name-bound']),
      seed: rng.int(0, 2 ** 30),
    }));
    await inPool(cases, async ({ i, kind, seed }) => {
      const local = rngFor(seed, kind);
      const peer = await connectEdgePeer(url);
      const { challenge } = await peer.next('challenge');
      const name = `signin-${i}`;
      let hello = await helloFor(peer, key, name, { challenge, watchers: WATCHERS });
      let expected: number = EDGE_CLOSE.signInFailed;
      const sign = (identity: EdgeIdentity, over: { challenge?: string; protocol?: string; name?: string } = {}) =>
        signChallenge(
          identity.secretKey,
          over.challenge ?? challenge,
          over.protocol ?? EDGE_PROTOCOL,
          hello.keyId,
          over.name ?? name,
        );
      if (kind === 'replay') {
        // A hello captured on another connection: signed over that connection's challenge.
        const captured = await connectEdgePeer(url);
        hello = await helloFor(captured, key, name, { watchers: WATCHERS });
        captured.close();
      } else if (kind === 'random-signature') hello.signature = toBase64Url(randomBytes(local, 64));
      else if (kind === 'bit-flip') {
        const bytes = Buffer.from(hello.signature, 'base64url');
        const at = local.int(0, 63);
        bytes[at] = (bytes[at] ?? 0) ^ (1 << local.int(0, 7));
        hello.signature = toBase64Url(bytes);
      } else if (kind === 'other-key') hello.signature = await sign(otherKey);
      else if (kind === 'other-name') hello.signature = await sign(key, { name: `${name}-x` });
      else if (kind === 'other-challenge') hello.signature = await sign(key, { challenge: newChallenge() });
      else if (kind === 'other-protocol') hello.signature = await sign(key, { protocol: 'edge/1.1' });
      else if (kind === 'unknown-key')
        hello = await helloFor(peer, await newEdgeIdentity(), name, { challenge, watchers: WATCHERS });
      else if (kind === 'revoked') {
        hello = await helloFor(peer, revokedKey, local.bool() ? 'revoked' : name, { challenge, watchers: WATCHERS });
        expected = EDGE_CLOSE.keyRevoked;
      } else {
        hello = await helloFor(peer, otherKey, 'bound', { challenge, watchers: WATCHERS });
        expected = EDGE_CLOSE.nameTaken;
      }
      peer.send(hello);
      await settle(peer, expected, `sign-in #${i} ${kind}`);
    });
    expectNoMismatch();
  });

  it('closes garbage and binary frames with 4004, invalid UTF-8 with 1007, oversized ones with 1009, before and after sign-in', async () => {
    const rng = rngFor(SEED, 'edge-garbage');
    const cases = range(70).map((i) => ({
      i,
      signedIn: rng.bool(),
      kind: rng.pick(['text', 'text', 'text', 'binary', 'utf8']),
      seed: rng.int(0, 2 ** 30),
    }));
    // The size boundaries: one byte over each cap, and exactly at it (accepted, then judged as JSON);
    // before sign-in the cap is 32 KiB, so a frame between the two caps is refused then only.
    const sized = [
      { signedIn: false, text: 'x'.repeat(EDGE_MAX_FRAME_BYTES + 1) },
      { signedIn: false, text: 'x'.repeat(EDGE_SIGN_IN_MAX_FRAME_BYTES + 1) },
      { signedIn: false, binary: Buffer.alloc(EDGE_SIGN_IN_MAX_FRAME_BYTES + 1) },
      { signedIn: false, text: JSON.stringify({ type: 'ping' }).padEnd(EDGE_SIGN_IN_MAX_FRAME_BYTES, ' ') },
      { signedIn: false, text: `"${'é'.repeat(EDGE_SIGN_IN_MAX_FRAME_BYTES / 2)}"` },
      { signedIn: true, text: 'x'.repeat(EDGE_MAX_FRAME_BYTES + 1) },
      { signedIn: true, binary: Buffer.alloc(EDGE_MAX_FRAME_BYTES + 1) },
      { signedIn: true, text: JSON.stringify({ type: 'ping' }).padEnd(EDGE_MAX_FRAME_BYTES, ' ') },
      { signedIn: false, text: JSON.stringify({ type: 'ping' }).padEnd(EDGE_MAX_FRAME_BYTES, ' ') },
      { signedIn: true, text: `"${'é'.repeat(EDGE_MAX_FRAME_BYTES / 2)}"` },
    ];
    await inPool([...cases, ...sized.map((c, i) => ({ i: 1000 + i, ...c }))], async (c, slot) => {
      const peer = c.signedIn
        ? await signedInPeer(url, key, `fuzz-${slot}`, { watchers: WATCHERS })
        : await connectEdgePeer(url);
      if (!c.signedIn) await peer.next('challenge');
      let expected: Outcome | 'welcome';
      let shown: string;
      if ('text' in c || 'binary' in c) {
        if ('binary' in c && c.binary) {
          peer.ws.send(c.binary, { binary: true });
          expected = EDGE_CLOSE.tooLarge;
          shown = `binary ${c.binary.length} bytes`;
        } else {
          const text = (c as { text: string }).text;
          peer.send(text);
          expected = c.signedIn
            ? expectedAfterSignIn(text)
            : expectedBeforeSignIn(text, { keyId: '', agentName: '', signature: '' });
          shown = `text ${Buffer.byteLength(text)} bytes`;
        }
      } else {
        const local = rngFor(c.seed, c.kind);
        if (c.kind === 'binary') {
          const bytes = local.bool(0.2)
            ? Buffer.from(JSON.stringify({ type: 'ping' }))
            : randomBytes(local, local.int(0, 2048));
          peer.ws.send(bytes, { binary: true });
          // RFC 6455 §5.6: binary frames carry no text; edge/1.0 refuses them all.
          expected = EDGE_CLOSE.invalidFrame;
          shown = `binary ${preview(bytes.toString('hex'), 40)}`;
        } else if (c.kind === 'utf8') {
          // A text frame that is not UTF-8: ws closes it (RFC 6455 §8.1) before the hub sees it.
          const bytes = Buffer.concat([Buffer.from('{"type":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
          peer.ws.send(bytes, { binary: false });
          expected = 1007;
          shown = 'text, invalid UTF-8';
        } else {
          const text = garbageText(local);
          peer.send(text);
          expected = c.signedIn
            ? expectedAfterSignIn(text)
            : expectedBeforeSignIn(text, { keyId: '', agentName: '', signature: '' });
          shown = preview(text, 80);
        }
      }
      await settle(peer, expected, `garbage #${c.i} (${c.signedIn ? 'signed in' : 'before sign-in'}) ${shown}`);
    });
    expectNoMismatch();
  });

  it('closes with 4004 any frame but one hello before the welcome, and with 4005 a connection that never signs in', async () => {
    const rng = rngFor(SEED, 'edge-early');
    const cases = range(24).map((i) => ({ i, frame: validAgentFrame(rng) }));
    await inPool(cases, async ({ i, frame }) => {
      const peer = await connectEdgePeer(url);
      if (i % 2 === 0) await peer.next('challenge');
      peer.send(keepUnwatched(frame));
      await settle(peer, EDGE_CLOSE.invalidFrame, `early #${i} ${frame.type}`);
    });
    const twice = await connectEdgePeer(url);
    const hello = await helloFor(twice, key, 'twice', { watchers: WATCHERS });
    twice.send(hello);
    twice.send(hello);
    await settle(twice, EDGE_CLOSE.invalidFrame, 'two hellos');
    const silent = await connectEdgePeer(url);
    await settle(silent, EDGE_CLOSE.signInTimeout, 'silent');
    expectNoMismatch();
  });

  it('answers mutated hellos with the documented code, or a welcome when the change is outside what is signed', async () => {
    const rng = rngFor(SEED, 'edge-hello-mutations');
    const cases = range(150).map((i) => ({ i, seed: rng.int(0, 2 ** 30) }));
    await inPool(cases, async ({ i, seed }, slot) => {
      const local = rngFor(seed, 'hello');
      const peer = await connectEdgePeer(url);
      const hello = await helloFor(peer, key, `hello-${slot}`, { watchers: WATCHERS });
      const text = mutated(local, hello);
      peer.send(text);
      await settle(peer, expectedBeforeSignIn(text, hello), `hello #${i} ${preview(text, 160)}`);
    });
    expectNoMismatch();
  });

  it('closes a session for a mutated frame with 4004, 4008 or 1009, or keeps it working when the frame is still valid', async () => {
    const rng = rngFor(SEED, 'edge-frame-mutations');
    const cases = range(400).map((i) => ({ i, seed: rng.int(0, 2 ** 30) }));
    await inPool(cases, async ({ i, seed }, slot) => {
      const local = rngFor(seed, 'frame');
      const peer = await signedInPeer(url, key, `fuzz-${slot}`, { watchers: WATCHERS });
      const text = mutated(local, validAgentFrame(local));
      peer.send(text);
      await settle(peer, expectedAfterSignIn(text), `frame #${i} ${preview(text, 160)}`);
    });
    expectNoMismatch();
  });

  it('lets one of two keys claiming a new name at once have it (the other gets 4003); one key twice at once keeps the newer (4000)', async () => {
    for (const round of range(8)) {
      const name = `race-${round}`;
      const [a, b] = await Promise.all([connectEdgePeer(url), connectEdgePeer(url)]);
      const [helloA, helloB] = await Promise.all([
        helloFor(a, key, name, { watchers: WATCHERS }),
        helloFor(b, otherKey, name, { watchers: WATCHERS }),
      ]);
      a.send(helloA);
      b.send(helloB);
      const outcomes = await Promise.all(
        [a, b].map((peer) =>
          Promise.race([
            peer.next('welcome', SETTLE_MS).then(() => 'welcome'),
            peer.closed.then((c) => String(c.code)),
          ]),
        ),
      );
      expect([...outcomes].sort(), `round ${round}`).toEqual(['4003', 'welcome']);
      const winner = outcomes.indexOf('welcome') === 0 ? key : otherKey;
      const keys = (await (await client.request('/api/v1/edge/keys')).json()) as {
        data: { keyId: string; agentNames: string[] }[];
      };
      expect(keys.data.filter((k) => k.agentNames.includes(name)).map((k) => k.keyId)).toEqual([winner.keyId]);
      for (const peer of [a, b]) peer.close();

      const twin = `twin-${round}`;
      const [c, d] = await Promise.all([connectEdgePeer(url), connectEdgePeer(url)]);
      const [helloC, helloD] = await Promise.all([
        helloFor(c, key, twin, { watchers: WATCHERS }),
        helloFor(d, key, twin, { watchers: WATCHERS }),
      ]);
      c.send(helloC);
      d.send(helloD);
      const closes = await Promise.race([
        Promise.any([c.closed, d.closed]),
        new Promise((resolve) => setTimeout(resolve, SETTLE_MS)),
      ]);
      expect(closes, `twin round ${round}`).toMatchObject({ code: EDGE_CLOSE.superseded });
      const survivor = c.ws.readyState === c.ws.OPEN ? c : d;
      await settle(survivor, 'open', `twin survivor ${round}`);
      await Promise.all([c.closed, d.closed]);
    }
    expectNoMismatch();
  });

  it('keeps serving: health and lists answer, a good agent signs in and syncs, and nothing of the fuzz is left open', async () => {
    expect((await client.request('/health')).status).toBe(200);
    expect((await client.request('/api/v1/containers')).status).toBe(200);
    await waitFor(
      () => (sessions() === 0 && liveAgents() === 0 ? true : undefined),
      5_000,
      'every fuzz session closed',
    );
    const agents = ((await (await client.request('/api/v1/agents')).json()) as { data: Agent[] }).data;
    expect(agents.filter((agent) => agent.connected)).toEqual([]);

    const good = await newEdgeIdentity();
    await register(good, 'good');
    const peer = await signedInPeer(url, good, 'good', { watchers: WATCHERS });
    const containers = ['web', 'db', 'cache'].map((name) => sampleContainer(name, { image: FUZZ_IMAGE }));
    for (const frame of snapshotFrames('local', containers, [sampleImage({ repoTags: [FUZZ_IMAGE] })]))
      peer.send(frame);
    const listed = await waitFor(async () => {
      const response = await client.request('/api/v1/containers?agent=good');
      const data = ((await response.json()) as { data: { id: string }[] }).data;
      return data.length === 3 ? data : undefined;
    });
    expect(listed.map((c) => c.id).sort()).toEqual(containers.map((c) => c.id).sort());
    peer.close();
    await peer.closed;

    await waitFor(() => (sessions() === 0 && liveAgents() === 0 ? true : undefined), 5_000, 'good session closed');
    expect(client.hub.parts.expectations.pending()).toBe(0);
    // Every place among the connections signing in was given back (at sign-in, close or deadline).
    expect(edge.signingInCount).toBe(0);
    expect(client.hub.parts.events.subscriberCount).toBe(baseline.subscribers);
    // Sockets of both ends live in this process: once every session closed, the descriptors are back.
    await waitFor(
      () => (openFds() <= baseline.fds + 4 ? true : undefined),
      5_000,
      `descriptors back near ${baseline.fds}`,
    );
    const internal = client.logged.filter(({ entry }) => entry.level === 'error' || entry.level === 'fatal');
    expect(internal.map(({ entry }) => entry.msg)).toEqual([]);
  });
});
