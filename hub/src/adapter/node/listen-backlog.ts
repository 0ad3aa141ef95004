import type { Server } from 'node:http';

/**
 * The accept queue the hub asks the kernel for; Linux caps it at `net.core.somaxconn` (4096 since
 * 5.4). With Node's 511, a fleet of 10,000 agents dialling at once overflowed the queue while the
 * hub applied their snapshots: the kernel dropped handshakes, a thousand agents waited a minute in
 * limbo and were reset, and the fleet synced in 138 s instead of 85 (docs/benchmarks.md "Edge
 * agents: 3,000 and 10,000 agents").
 */
export const LISTEN_BACKLOG = 4096;

/** `server.listen(port, host, callback)`, as @hono/node-server calls it, asks for `backlog`. */
export function withListenBacklog(server: Server, backlog = LISTEN_BACKLOG): Server {
  const listen = server.listen.bind(server) as (...args: unknown[]) => Server;
  server.listen = ((port: unknown, hostname: unknown, callback: unknown) =>
    listen(port, hostname, backlog, callback)) as Server['listen'];
  return server;
}
