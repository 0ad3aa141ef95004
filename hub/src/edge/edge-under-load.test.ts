import { pbkdf2 } from 'node:crypto';
import { WSContext } from 'hono/ws';
import { createStorage, defineDriver } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { describe, expect, it } from 'vitest';
import { EDGE_CLOSE, EDGE_PROTOCOL } from '../../../shared/edge/protocol';
import { edgeKeyId, generateEdgeKeyPair, newChallenge, signChallenge, toBase64 } from '../../../shared/edge/sign-in';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { sampleAgentInfo, sampleWatcher } from '../../../test/support/edge-peer';
import { createMemoryHub, jsonInit } from '../../../test/support/hub-harness';
import { createEdgeKeyStore } from './edge-key-store';
import { EdgeSession, type HelloFrame, type SessionOwner, type SignInVerdict } from './edge-session';
import type { EdgeSessions } from './edge-sessions';
import { createSignInCheck } from './sign-in-check';

/**
 * Found by the edge-agents benchmark (1,000 agents signing in while their syncs filled the fs
 * store): sign-ins waited for the storage's I/O, and agents that had answered in time were closed.
 */
const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const TIMINGS = { heartbeatMs: 1_000, silenceLimitMs: 3_000, signInDeadlineMs: 100, requestTimeoutMs: 1_000 };

const hello = (overrides: Partial<HelloFrame> = {}): HelloFrame => ({
  type: 'hello',
  protocol: EDGE_PROTOCOL,
  keyId: '0123456789abcdef',
  agentName: 'nas',
  signature: 'c2ln',
  agent: sampleAgentInfo(),
  watchers: [sampleWatcher()],
  ...overrides,
});

/** A session on a socket that records what the hub sends, whose owner decides when the sign-in verdict comes. */
function sessionWithSlowVerdict() {
  const sent: { type: string }[] = [];
  const closes: number[] = [];
  let decide: (verdict: SignInVerdict) => void = () => undefined;
  const owner: SessionOwner = {
    signIn: () => new Promise((resolve) => (decide = resolve)),
    welcomed: () => undefined,
    frame: () => undefined,
    closed: () => undefined,
  };
  const ws = new WSContext({
    send: (data) => sent.push(JSON.parse(String(data)) as { type: string }),
    close: (code) => closes.push(code ?? 1005),
    readyState: 1,
  });
  let now = 0;
  const session = new EdgeSession({
    ws,
    protocol: EDGE_PROTOCOL,
    address: undefined,
    hubVersion: 't',
    timings: TIMINGS,
    owner,
    logger,
    now: () => now,
  });
  session.open();
  return { session, sent, closes, decide: (verdict: SignInVerdict) => decide(verdict), at: (ms: number) => (now = ms) };
}

/** A memory driver whose writes of keys wait at a gate while `hold` is set. */
function storageHoldingKeyWrites() {
  const base = memoryDriver();
  const state: { hold: boolean; release: () => void } = { hold: false, release: () => undefined };
  const gate = new Promise<void>((resolve) => {
    state.release = resolve;
  });
  const driver = defineDriver(() => ({
    ...base,
    name: 'holding-key-writes',
    async setItem(key: string, value: string, options: unknown) {
      if (state.hold && key.startsWith('edge-keys:')) await gate;
      return base.setItem?.(key, value, options as never);
    },
  }));
  return { storage: createStorage({ driver: driver(undefined) }), state };
}

const until = async (condition: () => boolean, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('edge sign-in and revocation under load', () => {
  it('regression: the sign-in deadline is not held against an agent whose hello arrived in time', async () => {
    const { session, sent, closes, decide, at } = sessionWithSlowVerdict();
    at(TIMINGS.signInDeadlineMs - 10);
    session.message(JSON.stringify(hello()));
    at(TIMINGS.signInDeadlineMs * 5);
    session.tick(TIMINGS.signInDeadlineMs * 5);
    expect(closes).toEqual([]);
    decide({ ok: true });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent.map((frame) => frame.type)).toEqual(['challenge', 'welcome']);
    expect(session.isOpen).toBe(true);
  });

  it('still closes with 4005 a connection whose hello never came', () => {
    const { session, closes, at } = sessionWithSlowVerdict();
    at(TIMINGS.signInDeadlineMs + 1);
    session.tick(TIMINGS.signInDeadlineMs + 1);
    expect(closes).toEqual([EDGE_CLOSE.signInTimeout]);
  });

  it('regression: verifying a signature does not wait for the libuv threadpool (busy with storage I/O)', async () => {
    const keys = createEdgeKeyStore(createStorage(), () => 0, logger);
    await keys.load();
    const pair = await generateEdgeKeyPair();
    const keyId = edgeKeyId(pair.publicKey);
    await keys.register({ publicKey: toBase64(pair.publicKey), keyId, label: '' });
    const check = createSignInCheck(keys);
    const challenge = newChallenge();
    const signed = hello({
      keyId,
      signature: await signChallenge(pair.secretKey, challenge, EDGE_PROTOCOL, keyId, 'nas'),
    });
    expect(await check(signed, challenge, EDGE_PROTOCOL)).toEqual({ ok: true });

    const again = { ...signed, signature: await signChallenge(pair.secretKey, challenge, EDGE_PROTOCOL, keyId, 'nas') };
    // Every threadpool thread busy for a while (three times over), as fsyncs of a fleet's records keep it.
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const busy = Array.from(
      { length: threads * 3 },
      () => new Promise<void>((resolve) => pbkdf2('x', 'y', 300_000, 64, 'sha512', () => resolve())),
    );
    const started = performance.now();
    expect(await check(again, challenge, EDGE_PROTOCOL)).toEqual({ ok: true });
    const tookMs = performance.now() - started;
    let threadpoolFree = false;
    await Promise.all(busy).then(() => (threadpoolFree = true));
    expect(threadpoolFree).toBe(true);
    expect(tookMs).toBeLessThan(250);
  });

  it('regression: a name binding does not wait for the storage writes of other names', async () => {
    const base = memoryDriver();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = defineDriver(() => ({
      ...base,
      name: 'slow-for-one-name',
      async setItem(key: string, value: string, options: unknown) {
        if (key === 'edge-names:first') await gate;
        return base.setItem?.(key, value, options as never);
      },
    }));
    const keys = createEdgeKeyStore(createStorage({ driver: slow(undefined) }), () => 0, logger);
    await keys.load();
    const first = keys.claimName('first', '0000000000000001');
    const blocked = new Promise((resolve) => setTimeout(() => resolve('still waiting after 1 s'), 1_000));
    expect(await Promise.race([keys.claimName('second', '0000000000000002'), blocked])).toBe('bound');
    expect(keys.bindingOf('first')?.keyId).toBe('0000000000000001');
    release();
    await expect(first).resolves.toBe('bound');
  });

  it('regression: a revocation closes the live sessions without waiting for the revocation to be stored', async () => {
    const { storage, state } = storageHoldingKeyWrites();
    const client = await createMemoryHub({}, { storage });
    try {
      const pair = await generateEdgeKeyPair();
      const keyId = edgeKeyId(pair.publicKey);
      const registered = await client.request(
        '/api/v1/edge/keys',
        jsonInit('POST', { publicKey: toBase64(pair.publicKey), label: 'slow' }),
      );
      expect(registered.status).toBe(201);
      // One session, driven through the hub's own socket events.
      const sent: { type: string; challenge?: string }[] = [];
      const closes: number[] = [];
      const ws = new WSContext({
        send: (data) => sent.push(JSON.parse(String(data)) as { type: string }),
        close: (code) => closes.push(code ?? 1005),
        readyState: 1,
      });
      const events = (client.hub.parts.edge as EdgeSessions).connect({ protocol: EDGE_PROTOCOL, address: undefined });
      events.onOpen?.(new Event('open'), ws);
      const challenge = sent[0]?.challenge as string;
      const signed = hello({
        keyId,
        signature: await signChallenge(pair.secretKey, challenge, EDGE_PROTOCOL, keyId, 'nas'),
      });
      events.onMessage?.(new MessageEvent('message', { data: JSON.stringify(signed) }), ws);
      await until(() => sent.some((frame) => frame.type === 'welcome'), 2_000);

      state.hold = true;
      let answered = false;
      const revoking = client.request(`/api/v1/edge/keys/${keyId}`, { method: 'DELETE' }).then((response) => {
        answered = true;
        return response;
      });
      await until(() => closes.includes(EDGE_CLOSE.keyRevoked), 1_000);
      expect(answered).toBe(false);
      state.release();
      expect((await revoking).status).toBe(200);
    } finally {
      state.release();
      await client.close();
    }
  });
});
