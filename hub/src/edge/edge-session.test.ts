import { WSContext } from 'hono/ws';
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
import { EdgeSession, type HelloFrame, type SessionOwner } from './edge-session';

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

/** A session on a recording socket whose owner welcomes every hello; `setFrameLimit` as the runtime gives it. */
function session(setFrameLimit?: (ws: WSContext, maxBytes: number) => void) {
  const events: string[] = [];
  const ws = new WSContext({
    send: (data) => events.push(`send ${(JSON.parse(String(data)) as { type: string }).type}`),
    close: (code) => events.push(`close ${code}`),
    readyState: 1,
  });
  const owner: SessionOwner = {
    signIn: async () => ({ ok: true }),
    welcomed: () => undefined,
    frame: () => undefined,
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
    setFrameLimit,
  });
  edge.open();
  return { edge, events };
}

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
    const { edge, events } = session((_ws, maxBytes) => events.push(`limit ${maxBytes}`));
    edge.message(JSON.stringify(hello));
    await settle();
    expect(events).toEqual(['send challenge', `limit ${EDGE_MAX_FRAME_BYTES}`, 'send welcome']);
    edge.message(pingOf(2 * EDGE_SIGN_IN_MAX_FRAME_BYTES));
    expect(events.at(-1)).toBe('send pong');
  });

  it('closes 1011, without a welcome, when the runtime cannot raise the cap', async () => {
    const { edge, events } = session(() => {
      throw new Error('no _receiver');
    });
    edge.message(JSON.stringify(hello));
    await settle();
    expect(events).not.toContain('send welcome');
    expect(events.at(-1)).toBe(`close ${EDGE_CLOSE.internalError}`);
    expect(edge.isClosed).toBe(true);
  });
});
