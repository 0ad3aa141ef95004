import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';

export interface EngineProxy {
  /** A unix socket that forwards to the Engine: give it to the hub as its Docker socket. */
  socketPath: string;
  /** Engine API calls seen, keyed by kind (`list containers`, `inspect container`, ...). */
  counts: Map<string, number>;
  /** Date.now() of the first call of each kind since the last reset: when a cycle began, seen from outside. */
  firstAt: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

/** The Engine call a request path makes, without the API version prefix and the ids. */
export function engineCallKind(method: string, url: string): string {
  const path = (url.split('?')[0] ?? '').replace(/^\/v\d+(\.\d+)?/, '');
  if (path === '/containers/json') return 'list containers';
  if (/^\/containers\/[^/]+\/json$/.test(path)) return 'inspect container';
  if (/^\/images\/.+\/json$/.test(path)) return 'inspect image';
  if (path === '/events') return 'events';
  if (path === '/_ping') return 'ping';
  return `${method} ${path.replace(/[0-9a-f]{12,64}/g, '{id}')}`;
}

/**
 * A counting pass-through in front of a Docker Engine's unix socket. The hub talks to the real
 * daemon through it, unchanged (streams included); the proxy only tallies what it asked for, which
 * is the Engine-side cost of a watch cycle.
 */
export async function startEngineProxy(engineSocket: string, socketPath: string): Promise<EngineProxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const counts = new Map<string, number>();
  const firstAt = new Map<string, number>();
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const kind = engineCallKind(incoming.method ?? 'GET', incoming.url ?? '');
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    if (!firstAt.has(kind)) firstAt.set(kind, Date.now());
    const upstream = request(
      { socketPath: engineSocket, method: incoming.method, path: incoming.url, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    // The event stream stays open until the client goes; its upstream must go with it.
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    counts,
    firstAt,
    reset: () => {
      counts.clear();
      firstAt.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
