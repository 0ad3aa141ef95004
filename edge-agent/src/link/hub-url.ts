/** The path of the hub's edge endpoint (docs/edge-protocol.md). */
export const EDGE_PATH = '/api/v1/edge/ws';

/**
 * The WebSocket URL of a hub given as `wss://host:3000`, `https://host`, `ws://127.0.0.1:3000`, a
 * hub behind a path prefix (`https://proxy/dockwatch`), or the full endpoint URL. http(s) becomes
 * ws(s); the edge path is appended unless already there. Throws an Error saying what is wrong.
 */
export function edgeSocketUrl(hub: string): string {
  let url: URL;
  try {
    url = new URL(hub);
  } catch {
    throw new Error(`"${hub}" is not a URL (expected wss://host:port or https://host)`);
  }
  const schemes: Record<string, string> = { 'ws:': 'ws:', 'wss:': 'wss:', 'http:': 'ws:', 'https:': 'wss:' };
  const scheme = schemes[url.protocol];
  if (!scheme) throw new Error(`unsupported scheme ${url.protocol} (use wss://, ws://, https:// or http://)`);
  if (url.username || url.password) throw new Error('must not carry credentials: the agent signs in with its key');
  if (url.search || url.hash) throw new Error('must not have a query or fragment');
  const base = url.pathname.replace(/\/+$/, '');
  const path = base.endsWith(EDGE_PATH) ? base : `${base}${EDGE_PATH}`;
  return `${scheme}//${url.host}${path}`;
}
