import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';

/** A request the proxy holds back, and what became of it once let through. */
export interface HeldRequest {
  /** `METHOD /path?query`. */
  line: string;
  /** The client went away while it was held (a browser that cancelled the fetch). */
  abandoned(): boolean;
}

export interface HoldingProxy {
  /** `http://127.0.0.1:PORT`: open the page here; everything else reaches the target unchanged. */
  url: string;
  /** From now on, requests whose `METHOD /path?query` matches wait until release(). */
  hold(pattern: RegExp): void;
  held(): readonly HeldRequest[];
  /** Stops holding and forwards what was held; resolves once each is answered, or its client is gone. */
  release(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A reverse proxy in front of a real hub (test/support/latency-proxy.ts, with a hand on the tap):
 * HTTP, streams (SSE) and WebSocket upgrades pass through, and the requests a test names are held,
 * so an answer can arrive after something changed on the hub meanwhile (a container re-created).
 */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const targetUrl = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  let pattern: RegExp | undefined;
  const waiting: { held: HeldRequest; forward: () => Promise<void> }[] = [];
  const all: HeldRequest[] = [];

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      if (outgoing.destroyed || incoming.destroyed) return resolve();
      const upstream = request(
        {
          host: targetUrl.hostname,
          port: targetUrl.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
          agent,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
          answer.on('end', () => resolve());
          answer.on('error', () => resolve());
        },
      );
      upstream.on('error', () => {
        outgoing.destroy();
        resolve();
      });
      outgoing.on('close', () => {
        upstream.destroy();
        resolve();
      });
      incoming.pipe(upstream);
    });

  const server = createServer((incoming, outgoing) => {
    const line = `${incoming.method} ${incoming.url}`;
    if (!pattern?.test(line)) return void forward(incoming, outgoing);
    let gone = false;
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) gone = true;
    });
    const held: HeldRequest = { line, abandoned: () => gone };
    all.push(held);
    waiting.push({ held, forward: () => forward(incoming, outgoing) });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A WebSocket upgrade (the log stream): the request line and headers as sent, then both ways raw.
  server.on('upgrade', (incoming: IncomingMessage, socket: Socket, head: Buffer) => {
    const upstream = connect(Number(targetUrl.port), targetUrl.hostname, () => {
      const headers: string[] = [];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
        headers.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
      }
      upstream.write(`${incoming.method} ${incoming.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      socket.destroy();
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold(next) {
      pattern = next;
    },
    held: () => [...all],
    async release() {
      pattern = undefined;
      await Promise.all(waiting.splice(0).map((entry) => entry.forward()));
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
