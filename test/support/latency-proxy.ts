import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LatencyProxy {
  /** `127.0.0.1:PORT`: use it as the registry host in image references. */
  host: string;
  /** Requests seen, keyed `METHOD kind` (kind: manifests, tags, blobs, ping, other). */
  counts: Map<string, number>;
  reset(): void;
  total(): number;
  close(): Promise<void>;
}

function pathKind(path: string): string {
  if (/\/manifests\//.test(path)) return 'manifests';
  if (/\/tags\/list/.test(path)) return 'tags';
  if (/\/blobs\//.test(path)) return 'blobs';
  if (/^\/v2\/?$/.test(path)) return 'ping';
  return 'other';
}

/**
 * An HTTP proxy that holds every request `delayMs` before forwarding it: a registry on loopback
 * answers in a millisecond, a real one in tens. It also counts requests by method and path kind,
 * which is what the registry-request benchmark reports.
 */
export async function startLatencyProxy(target: string, delayMs: number): Promise<LatencyProxy> {
  const targetUrl = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const counts = new Map<string, number>();
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const key = `${incoming.method} ${pathKind(incoming.url ?? '')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    setTimeout(() => {
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
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    }, delayMs);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    reset: () => counts.clear(),
    total: () => [...counts.values()].reduce((sum, n) => sum + n, 0),
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
