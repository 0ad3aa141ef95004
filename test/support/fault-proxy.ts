import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * What the proxy does to each request from now on:
 * - `pass`: forwards it unchanged;
 * - `storm`: answers 500, 502, 503 or 504 in turn without asking the registry (a 5xx storm);
 * - `timeout`: never answers (the client's own deadline ends it);
 * - `slow`: forwards it, and trickles the answer's body out a few bytes at a time;
 * - `throttle`: answers 429 with `Retry-After`.
 */
export type FaultMode = 'pass' | 'storm' | 'timeout' | 'slow' | 'throttle';

export interface FaultProxy {
  /** `127.0.0.1:PORT`: the registry host to name in image references. */
  host: string;
  mode(): FaultMode;
  setMode(mode: FaultMode): void;
  /** Requests seen per mode they met, and per answer status (`hang` for the ones never answered). */
  counts: Map<string, number>;
  close(): Promise<void>;
}

const STORM_STATUSES = [500, 502, 503, 504] as const;
const RETRY_AFTER_SECONDS = 2;
const SLOW_CHUNK_BYTES = 16;
const SLOW_CHUNK_EVERY_MS = 50;

/**
 * A fault-injecting HTTP proxy in front of a real registry (test/support/registry), for the soak:
 * the faults of a registry on the internet (storms, hangs, slow bodies, rate limits), switched at
 * run time. Starts from test/support/latency-proxy.ts; it never alters a body it passes, so what
 * reaches the hub is either the registry's exact answer, a well-formed refusal, or nothing.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const counts = new Map<string, number>();
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const sockets = new Set<Socket>();
  let current: FaultMode = 'pass';
  let storms = 0;

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse, slow: boolean) => {
    const upstream = request(
      {
        host: targetUrl.hostname,
        port: targetUrl.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: targetUrl.host },
        agent,
      },
      (answer) => {
        count(`status ${answer.statusCode}`);
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        if (!slow) {
          answer.pipe(outgoing);
          return;
        }
        // Whole chunks are held and let out a few bytes per tick: a body that arrives, slowly.
        const held: Buffer[] = [];
        let ended = false;
        answer.on('data', (chunk: Buffer) => held.push(chunk));
        answer.on('end', () => (ended = true));
        const drip = setInterval(() => {
          if (outgoing.destroyed) return clearInterval(drip);
          const next = held.shift();
          if (next === undefined) {
            if (ended) {
              clearInterval(drip);
              outgoing.end();
            }
            return;
          }
          outgoing.write(next.subarray(0, SLOW_CHUNK_BYTES));
          if (next.length > SLOW_CHUNK_BYTES) held.unshift(next.subarray(SLOW_CHUNK_BYTES));
        }, SLOW_CHUNK_EVERY_MS);
        outgoing.on('close', () => clearInterval(drip));
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  };

  const server = createServer((incoming, outgoing) => {
    const mode = current;
    count(`mode ${mode}`);
    switch (mode) {
      case 'storm': {
        const status = STORM_STATUSES[storms++ % STORM_STATUSES.length] as number;
        count(`status ${status}`);
        outgoing.writeHead(status, { 'content-type': 'application/json' });
        outgoing.end('{"errors":[{"code":"UNAVAILABLE","message":"fault proxy: storm"}]}');
        return;
      }
      case 'throttle':
        count('status 429');
        outgoing.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS) });
        outgoing.end('{"errors":[{"code":"TOOMANYREQUESTS","message":"fault proxy: throttled"}]}');
        return;
      case 'timeout':
        count('status hang');
        incoming.resume();
        return;
      default:
        forward(incoming, outgoing, mode === 'slow');
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode: () => current,
    setMode(mode) {
      current = mode;
    },
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
