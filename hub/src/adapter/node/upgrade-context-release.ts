import type { Context } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';

/**
 * What @hono/node-server's upgradeWebSocket reads of the request's Context: the `upgrade` header
 * (the first check it makes), the env node-server built for the upgrade (the same object: it
 * marks it, and its `upgrade` listener reads the mark back), and the URL (for the socket's
 * WSContext). Nothing else, so nothing else is handed to it.
 */
export interface UpgradeView {
  env: unknown;
  req: { url: string; header(name: string): string | undefined };
}

/** The request side of an UpgradeView: a class, so an open socket holds no closure of its own for it. */
class UpgradeRequestView {
  constructor(
    readonly url: string,
    private readonly upgrade: string | undefined,
  ) {}

  header(name: string): string | undefined {
    return name.toLowerCase() === 'upgrade' ? this.upgrade : undefined;
  }
}

/** The parts of `c` that upgradeWebSocket reads, copied out of it; no reference to `c` itself. */
export function upgradeViewOf(c: Context): UpgradeView {
  return { env: c.env, req: new UpgradeRequestView(c.req.url, c.req.header('upgrade')) };
}

/**
 * node-server's upgradeWebSocket keeps its first argument in the closure that handles the
 * socket's messages, so each open socket held its upgrade's whole Context: the hono Context, the
 * Request and Response, their headers, ~10 KB an edge agent (issue 30 item 3: 100 MB for 10,000
 * agents). Handed an UpgradeView instead, a socket keeps only that view and node-server's env.
 * Only the `(c, events, options)` form the hub's routes use is wrapped; the middleware form
 * (`(createEvents) => handler`) passes through as it is.
 */
export function releaseUpgradeContext(upgradeWebSocket: UpgradeWebSocket<unknown>): UpgradeWebSocket<unknown> {
  const upgrade = upgradeWebSocket as unknown as (...args: unknown[]) => unknown;
  return ((...args: unknown[]) => {
    const [first, ...rest] = args;
    if (typeof first === 'object' && first !== null && 'req' in first)
      return upgrade(upgradeViewOf(first as Context), ...rest);
    return upgrade(...args);
  }) as UpgradeWebSocket<unknown>;
}
