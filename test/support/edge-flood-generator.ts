/**
 * The load of test/integration/edge-unsigned-flood.test.ts, run as its own process (`node --import
 * tsx`), so its thousands of sockets neither share the hub's descriptor limit nor its event loop.
 * It plays strangers who never sign in: some start one large text frame right after the upgrade,
 * the rest open a socket and stay silent. Each dials from a loopback source address of its plan
 * (127.0.0.x), so the per-address limits count them as many clients: an address's attempts come
 * one after another (address-major), so its cap is met at once. argv[2] is the plan (JSON).
 *
 * Stdout, one JSON line each: `{event: 'ready'}` once loaded (it then waits for a line on stdin, so
 * its own start-up is not measured as load), `{event: 'flooded', ...}` once every attempt was
 * refused or opened (and every large frame's socket closed), `{event: 'done', ...}` once every
 * socket is closed.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { EDGE_SUBPROTOCOLS } from '../../shared/edge/protocol';

export interface FloodPlan {
  /** ws://host:port/api/v1/edge/ws */
  url: string;
  /** Sockets that start one text frame of `bytes` right after the upgrade; `concurrency` in flight. */
  large: { count: number; bytes: number; addresses: string[]; concurrency: number };
  /** Sockets that never send anything (an open one no longer counts as in flight). */
  idle: { count: number; addresses: string[]; concurrency: number };
}

export interface FloodTally {
  opened: number;
  /** HTTP status of refused upgrades → count. */
  refused: Record<string, number>;
  /** Close code (1006: none came) → count. */
  closed: Record<string, number>;
  errors: number;
  /** One refusal body of each status, as received. */
  bodies: Record<string, string>;
  /** The most sockets open at once from one address. */
  maxOpenPerAddress: number;
  /** Large frames only: payload bytes written in all. */
  sentBytes: number;
}

const tally = (): FloodTally => ({
  opened: 0,
  refused: {},
  closed: {},
  errors: 0,
  bodies: {},
  maxOpenPerAddress: 0,
  sentBytes: 0,
});
const bump = (into: Record<string, number>, key: number | string) => {
  into[key] = (into[key] ?? 0) + 1;
};

const plan = JSON.parse(process.argv[2] ?? '{}') as FloodPlan;
const large = tally();
const idle = tally();
const idleClosed: Promise<void>[] = [];
const openFrom = new Map<string, number>();

function opened(into: FloodTally, key: string): void {
  into.opened += 1;
  openFrom.set(key, (openFrom.get(key) ?? 0) + 1);
  into.maxOpenPerAddress = Math.max(into.maxOpenPerAddress, openFrom.get(key) ?? 0);
}

/** An idle stranger: a ws client that opens and never sends; resolves once refused or open. */
function idleAttempt(address: string): Promise<void> {
  return new Promise((settle) => {
    const ws = new WebSocket(plan.url, [...EDGE_SUBPROTOCOLS], { localAddress: address, handshakeTimeout: 20_000 });
    let closed: (() => void) | undefined;
    ws.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      bump(idle.refused, status);
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        idle.bodies[status] ??= body;
        settle();
      });
      response.on('error', () => settle());
    });
    ws.on('open', () => {
      opened(idle, address);
      idleClosed.push(new Promise((resolve) => (closed = resolve)));
      settle();
    });
    ws.on('close', (code) => {
      if (closed) openFrom.set(address, (openFrom.get(address) ?? 1) - 1);
      bump(idle.closed, code);
      closed?.();
      settle();
    });
    ws.on('error', () => {
      idle.errors += 1;
      // An error before 'open' or 'unexpected-response' ends the attempt ('close' follows otherwise).
      if (ws.readyState === WebSocket.CLOSED) settle();
    });
  });
}

/** What a large sender writes first: the frame's header (FIN, text, 64-bit length, an all-zero mask) and this much payload. */
const FIRST_CHUNK_BYTES = 64 * 1024;
/** Without an answer this long after the first chunk, the rest of the frame follows (a hub that takes it whole). */
const REST_AFTER_MS = 1_000;

/**
 * A large stranger, on a raw socket (ws cannot send part of a frame): it upgrades, announces one
 * text frame of `bytes`, sends its first 64 KiB, and sends the rest only if the hub has not closed
 * by then, as a client that stops once refused would. A hub that buffers frames whole (the bug)
 * waits for, and gets, all of it; one whose parser refuses the announced length answers 1009 at
 * once, and little more is sent. The payload is zero-masked, so it is sent as is.
 */
function largeAttempt(address: string, payload: Buffer): Promise<void> {
  const url = new URL(plan.url);
  return new Promise((settle) => {
    const socket: Socket = connect({ host: url.hostname, port: Number(url.port), localAddress: address });
    let buffered = Buffer.alloc(0);
    let upgraded = false;
    let code: number | undefined;
    let restTimer: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      clearTimeout(restTimer);
      if (upgraded) {
        openFrom.set(`large ${address}`, (openFrom.get(`large ${address}`) ?? 1) - 1);
        bump(large.closed, code ?? 1006);
      }
      upgraded = false;
      socket.destroy();
      settle();
    };
    const write = (chunk: Buffer) => {
      large.sentBytes += chunk.length;
      socket.write(chunk);
    };
    socket.on('connect', () => {
      const key = randomBytes(16).toString('base64');
      socket.write(
        `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ${EDGE_SUBPROTOCOLS[0]}\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered.subarray(0, end).toString())?.[1] ?? 0);
        if (status !== 101) {
          // A refusal: the JSON body follows, and the hub closes the connection after it.
          bump(large.refused, status);
          socket.once('end', () => {
            large.bodies[status] ??= buffered.subarray(end + 4).toString();
            finish();
          });
          socket.removeAllListeners('data');
          socket.on('data', (more: Buffer) => (buffered = Buffer.concat([buffered, more])));
          return;
        }
        upgraded = true;
        opened(large, `large ${address}`);
        buffered = buffered.subarray(end + 4);
        const header = Buffer.alloc(14);
        header[0] = 0x81;
        header[1] = 0x80 | 127;
        header.writeBigUInt64BE(BigInt(payload.length), 2);
        write(header);
        write(payload.subarray(0, FIRST_CHUNK_BYTES));
        restTimer = setTimeout(() => write(payload.subarray(FIRST_CHUNK_BYTES)), REST_AFTER_MS);
      }
      // The hub's frames are unmasked and small (the challenge, an error frame, the close).
      while (buffered.length >= 2) {
        const length = (buffered[1] as number) & 0x7f;
        const offset = length === 126 ? 4 : 2;
        const size = length === 126 ? buffered.readUInt16BE(2) : length;
        if (length === 127 || buffered.length < offset + size) return;
        if (((buffered[0] as number) & 0x0f) === 0x8) {
          code = size >= 2 ? buffered.readUInt16BE(offset) : 1005;
          finish();
          return;
        }
        buffered = buffered.subarray(offset + size);
      }
    });
    socket.on('error', () => {
      large.errors += 1;
    });
    socket.on('close', finish);
  });
}

/** Attempt i of count: the addresses in turn, each for its share of consecutive attempts. */
const addressOf = (addresses: string[], i: number, count: number) =>
  addresses[Math.floor((i * addresses.length) / count)] as string;

async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

async function main(): Promise<void> {
  // One payload for every large frame, sent unmasked and unchanged: not JSON, never complete before a refusal.
  const payload = Buffer.alloc(plan.large.bytes, 0x20);
  payload.write('{"type":"hello","padding":"');
  // Both at once, so large frames arrive while the idle sockets pile up.
  await Promise.all([
    pool(plan.large.count, plan.large.concurrency, (i) =>
      largeAttempt(addressOf(plan.large.addresses, i, plan.large.count), payload),
    ),
    pool(plan.idle.count, plan.idle.concurrency, (i) =>
      idleAttempt(addressOf(plan.idle.addresses, i, plan.idle.count)),
    ),
  ]);
  process.stdout.write(`${JSON.stringify({ event: 'flooded', large, idle })}\n`);
  await Promise.all(idleClosed);
  process.stdout.write(`${JSON.stringify({ event: 'done', large, idle })}\n`);
}

process.stdout.write(`${JSON.stringify({ event: 'ready' })}\n`);
process.stdin.once('data', () => {
  process.stdin.destroy();
  void main();
});
