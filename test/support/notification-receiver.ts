import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  text: string;
  /** The body parsed as JSON, when it was. */
  json: unknown;
  at: number;
}

/** How the receiver answers the next requests: a status and body, or no answer at all (hang). */
export type ReceiverBehaviour =
  | { status: number | ((request: ReceivedRequest) => number); body?: string | ((request: ReceivedRequest) => string) }
  | { hang: true };

/**
 * A real HTTP webhook receiver on 127.0.0.1 (an ephemeral port): it records every request and
 * answers as the test says. `waitFor(n)` resolves once n requests have arrived, without sleeping.
 */
export interface NotificationReceiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Sets the answer for every request from now on. */
  behave(behaviour: ReceiverBehaviour): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening (later requests are refused: "receiver down"); `start` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startNotificationReceiver(port = 0): Promise<NotificationReceiver> {
  const received: ReceivedRequest[] = [];
  let behaviour: ReceiverBehaviour = { status: 200, body: '{"ok":true}' };
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        text,
        json,
        at: Date.now(),
      };
      received.push(request);
      for (const wake of waiters) wake();
      if ('hang' in behaviour) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const body = typeof behaviour.body === 'function' ? behaviour.body(request) : (behaviour.body ?? '');
      const status = typeof behaviour.status === 'function' ? behaviour.status(request) : behaviour.status;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    });
  };

  let server: Server | undefined;
  const listen = (onPort: number) =>
    new Promise<number>((resolve, reject) => {
      const next = createServer(handle);
      next.once('error', reject);
      next.listen(onPort, '127.0.0.1', () => {
        server = next;
        resolve((next.address() as AddressInfo).port);
      });
    });
  const boundPort = await listen(port);
  const stopServer = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = undefined;
      if (!current) return resolve();
      for (const res of hanging) res.destroy();
      current.close(() => resolve());
      current.closeAllConnections();
    });

  return {
    url: `http://127.0.0.1:${boundPort}/hook`,
    port: boundPort,
    received,
    behave(next) {
      behaviour = next;
    },
    async waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return received.slice(0, count);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: ${received.length} of ${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
      return received.slice(0, count);
    },
    stop: stopServer,
    async start() {
      if (!server) await listen(boundPort);
    },
    close: stopServer,
  };
}
