import { WSContext } from 'hono/ws';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  EDGE_CLOSE,
  EDGE_MAX_FRAME_BYTES,
  EDGE_PROTOCOL,
  EDGE_SIGN_IN_MAX_FRAME_BYTES,
} from '../../../shared/edge/protocol';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { sampleAgentInfo } from '../../../test/support/edge-peer';
import { EdgeSession, type EdgeSessionOptions, type HelloFrame, type SessionOwner } from './edge-session';
import { type EdgeSessionRecord, EdgeSessionRecordSchema } from './edge-session-record';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const TIMINGS = { heartbeatMs: 1_000, silenceLimitMs: 3_000, signInDeadlineMs: 1_000, requestTimeoutMs: 1_000 };

const hello: HelloFrame = {
  type: 'hello',
  protocol: EDGE_PROTOCOL,
  keyId: '0123456789abcdef',
  agentName: 'nas',
  signature: 'c2ln',
  agent: sampleAgentInfo(),
  watchers: [],
};

/**
 * A session on a recording socket whose owner welcomes every hello and hands each frame to `frame`;
 * `more` as the runtime gives them (`setFrameLimit`, `pace`, `resume`, …).
 */
function session(more: Partial<EdgeSessionOptions> = {}, frame: SessionOwner['frame'] = () => undefined) {
  const events: string[] = [];
  const ws = new WSContext({
    send: (data) => events.push(`send ${(JSON.parse(String(data)) as { type: string }).type}`),
    close: (code) => events.push(`close ${code}`),
    readyState: 1,
  });
  const owner: SessionOwner = {
    signIn: async () => ({ ok: true }),
    welcomed: () => undefined,
    frame,
    closed: () => undefined,
  };
  const edge = new EdgeSession({
    ws,
    protocol: EDGE_PROTOCOL,
    address: undefined,
    hubVersion: 't',
    timings: TIMINGS,
    owner,
    logger,
    now: () => 0,
    ...more,
  });
  edge.open();
  return { edge, events };
}

/** The record of a session signed in as `nas`, as a hibernated socket keeps it. */
const signedInRecord: EdgeSessionRecord = {
  protocol: EDGE_PROTOCOL,
  openedAt: 0,
  challenge: 'abc',
  agentName: 'nas',
  keyId: hello.keyId,
  lastFrameAt: 0,
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const pingOf = (bytes: number) => JSON.stringify({ type: 'ping' }).padEnd(bytes, ' ');

describe('EdgeSession frame caps', () => {
  it('closes 1009 for a frame over 32 KiB before the welcome (runtimes whose frames arrive whole)', () => {
    const at = session();
    at.edge.message(pingOf(EDGE_SIGN_IN_MAX_FRAME_BYTES));
    // At the cap the frame is read, and refused for what it is: not a hello.
    expect(at.events).toEqual(['send challenge', 'send error', `close ${EDGE_CLOSE.invalidFrame}`]);
    const over = session();
    over.edge.message(pingOf(EDGE_SIGN_IN_MAX_FRAME_BYTES + 1));
    expect(over.events).toEqual(['send challenge', `close ${EDGE_CLOSE.tooLarge}`]);
  });

  it('raises the socket cap to 4 MiB before the welcome goes out, then takes frames up to it', async () => {
    const { edge, events } = session({ setFrameLimit: (_ws, maxBytes) => events.push(`limit ${maxBytes}`) });
    edge.message(JSON.stringify(hello));
    await settle();
    expect(events).toEqual(['send challenge', `limit ${EDGE_MAX_FRAME_BYTES}`, 'send welcome']);
    edge.message(pingOf(2 * EDGE_SIGN_IN_MAX_FRAME_BYTES));
    expect(events.at(-1)).toBe('send pong');
  });

  it('closes 1011, without a welcome, when the runtime cannot raise the cap', async () => {
    const { edge, events } = session({
      setFrameLimit: () => {
        throw new Error('no _receiver');
      },
    });
    edge.message(JSON.stringify(hello));
    await settle();
    expect(events).not.toContain('send welcome');
    expect(events.at(-1)).toBe(`close ${EDGE_CLOSE.internalError}`);
    expect(edge.isClosed).toBe(true);
  });
});

describe('EdgeSession records (hibernatable sockets, docs/workers.md "Edge sockets")', () => {
  it('saves a valid record at the challenge and at the welcome, the second naming the agent', async () => {
    const records: EdgeSessionRecord[] = [];
    const { edge, events } = session({ saveRecord: (record) => records.push(record) });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ protocol: EDGE_PROTOCOL, challenge: edge.challenge });
    expect(records[0]?.agentName).toBeUndefined();
    edge.message(JSON.stringify(hello));
    await settle();
    expect(events).toContain('send welcome');
    expect(records.at(-1)).toMatchObject({ agentName: 'nas', keyId: hello.keyId, challenge: edge.challenge });
    for (const record of records) expect(v.is(EdgeSessionRecordSchema, JSON.parse(JSON.stringify(record)))).toBe(true);
    // Small enough for a Durable Object socket attachment (2,048 bytes).
    expect(JSON.stringify(records.at(-1)).length).toBeLessThan(512);
  });

  it('resumes signed in from its record: no new challenge, the signed-in frame cap, the same identity', () => {
    const { edge, events } = session({ resume: signedInRecord });
    expect(edge.isOpen).toBe(true);
    expect(edge.agentName).toBe('nas');
    edge.message(pingOf(2 * EDGE_SIGN_IN_MAX_FRAME_BYTES));
    expect(events).toEqual(['send pong']);
  });

  it('counts a ping the runtime answered as a sign of life, and sends no pings of its own', () => {
    let now = 0;
    let answeredAt: number | undefined;
    const { edge, events } = session({ now: () => now, resume: signedInRecord, autoAnsweredAt: () => answeredAt });
    now = TIMINGS.silenceLimitMs;
    answeredAt = TIMINGS.silenceLimitMs - 100;
    edge.tick(now);
    expect(events).toEqual([]);
    now = answeredAt + TIMINGS.silenceLimitMs + 1;
    edge.tick(now);
    expect(events).toEqual(['send error', `close ${EDGE_CLOSE.heartbeatMissed}`]);
  });
});

describe('EdgeSession with a pacer', () => {
  /** A session whose paced frames wait in `waiting` until `drain()`, recording the frames its owner gets. */
  function pacedSession(now = () => 0, more: Partial<EdgeSessionOptions> = {}) {
    const waiting: (() => void)[] = [];
    const handled: string[] = [];
    const { edge, events } = session({ now, pace: (work) => void waiting.push(work), ...more }, (_session, frame) => {
      handled.push(frame.type === 'container.removed' ? `removed ${frame.containerId}` : frame.type);
      return undefined;
    });
    const drain = () => {
      for (const work of waiting.splice(0)) work();
    };
    return { edge, events, handled, waiting, drain };
  }
  const removed = (id: string, padding = 0) =>
    JSON.stringify({ type: 'container.removed', watcher: 'local', containerId: id, pad: ' '.repeat(padding) });

  it('queues the hello, and a hello in the queue meets the sign-in deadline', async () => {
    let now = 0;
    const at = pacedSession(() => now);
    at.edge.message(JSON.stringify(hello));
    expect(at.waiting).toHaveLength(1);
    now = TIMINGS.signInDeadlineMs * 5;
    at.edge.tick(now);
    expect(at.events).toEqual(['send challenge']);
    at.drain();
    await settle();
    expect(at.edge.isOpen).toBe(true);
    expect(at.events).toEqual(['send challenge', 'send welcome']);
  });

  it('answers a small frame at once when nothing of the session waits, and keeps order behind a queued one', async () => {
    const at = pacedSession();
    at.edge.message(JSON.stringify(hello));
    at.drain();
    await settle();
    at.edge.message(JSON.stringify({ type: 'ping' }));
    expect(at.events.at(-1)).toBe('send pong');
    // A large frame waits; a small one after it waits behind it, and both arrive in order.
    at.edge.message(removed('a', 1_000));
    at.edge.message(removed('b'));
    at.edge.message(JSON.stringify({ type: 'ping' }));
    expect(at.handled).toEqual([]);
    expect(at.waiting).toHaveLength(3);
    at.drain();
    expect(at.handled).toEqual(['removed a', 'removed b']);
    expect(at.events.at(-1)).toBe('send pong');
    // Nothing queued any more: small frames are handled at once again.
    at.edge.message(removed('c'));
    expect(at.handled).toEqual(['removed a', 'removed b', 'removed c']);
  });

  it('drops the frames still queued when the session closes', async () => {
    const at = pacedSession();
    at.edge.message(JSON.stringify(hello));
    at.drain();
    await settle();
    at.edge.message(removed('a', 1_000));
    at.edge.socketClosed(1006);
    at.drain();
    expect(at.handled).toEqual([]);
  });

  it('pauses reading the socket while over two full frames wait, resumes once they are handled, and counts them as signs of life', async () => {
    let now = 0;
    const paused: boolean[] = [];
    const at = pacedSession(() => now, { pauseReading: (_ws, state) => void paused.push(state) });
    at.edge.message(JSON.stringify(hello));
    at.drain();
    await settle();
    expect(at.edge.isOpen).toBe(true);
    // Three frames of 3 MiB: the third passes 8 MiB waiting.
    const big = removed('a', 3 * 1024 * 1024);
    at.edge.message(big);
    at.edge.message(big);
    expect(paused).toEqual([]);
    at.edge.message(big);
    expect(paused).toEqual([true]);
    // Long past the silence limit, the frames still waiting keep the session open.
    now = TIMINGS.silenceLimitMs * 3;
    at.edge.tick(now);
    expect(at.edge.isOpen).toBe(true);
    at.drain();
    expect(paused).toEqual([true, false]);
    expect(at.handled).toEqual(['removed a', 'removed a', 'removed a']);
  });

  it('still closes a silent connection at the sign-in deadline', () => {
    let now = 0;
    const at = pacedSession(() => now);
    now = TIMINGS.signInDeadlineMs + 1;
    at.edge.tick(now);
    expect(at.events).toEqual(['send challenge', 'send error', `close ${EDGE_CLOSE.signInTimeout}`]);
  });
});
