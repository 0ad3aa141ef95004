import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

const ADDRESS = /^[0-9A-Fa-f.:]{2,45}$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([0-9A-Fa-f.:]+)\](?::\d{1,5})?$/;

/** One address as a stable bucket key: ports dropped (some proxies add them), IPv4-mapped IPv6 unwrapped. */
function normalizeAddress(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let address = raw.trim();
  address = IPV4_WITH_PORT.exec(address)?.[1] ?? BRACKETED_IPV6.exec(address)?.[1] ?? address;
  address = address.toLowerCase();
  if (address.startsWith('::ffff:') && address.includes('.')) address = address.slice('::ffff:'.length);
  return ADDRESS.test(address) ? address : undefined;
}

/**
 * The client behind `trustProxy` proxies (DD_SERVER_TRUSTPROXY, a hop count): each proxy appends
 * the address it saw to X-Forwarded-For, so the entry that many places from the right was written
 * by the outermost trusted proxy; entries further left are whatever the client claimed. With
 * fewer entries than hops the leftmost is used, as Express does. Without trusted proxies the
 * header is ignored, since any client can send it.
 */
export function resolveClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustProxy: number,
): string | undefined {
  const socket = normalizeAddress(socketAddress);
  if (trustProxy <= 0 || forwardedFor === undefined) return socket;
  const hops = forwardedFor
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (hops.length === 0) return socket;
  return normalizeAddress(hops[Math.max(0, hops.length - trustProxy)]) ?? socket;
}

/** HubDeps.clientAddress on Node: the socket's peer address from @hono/node-server, or the forwarded one. */
export function nodeClientAddress(trustProxy: number): (c: Context) => string | undefined {
  return (c) => {
    let socketAddress: string | undefined;
    try {
      socketAddress = getConnInfo(c).remote.address;
    } catch {
      // A request dispatched without node-server's bindings (app.request in a test) has no socket.
      socketAddress = undefined;
    }
    return resolveClientAddress(socketAddress, c.req.header('x-forwarded-for'), trustProxy);
  };
}

/**
 * HubDeps.dropConnection on Node: destroys the socket. node-server then cancels the response
 * stream quietly; erroring the stream instead would make it print the error to stderr.
 */
export function dropNodeConnection(c: Context): void {
  const bindings = c.env as { incoming?: { socket?: { destroy(): void } } } | undefined;
  bindings?.incoming?.socket?.destroy();
}
