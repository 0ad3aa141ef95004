import { type Context, Hono } from 'hono';
import type { UpgradeWebSocket, WSEvents } from 'hono/ws';
import { describe, expect, it } from 'vitest';
import { releaseUpgradeContext, type UpgradeView } from './upgrade-context-release';

/** An upgrader that records what it was handed, as node-server's keeps it for the socket's life. */
function recordingUpgrader() {
  const handed: unknown[][] = [];
  const upgrade = ((...args: unknown[]) => {
    handed.push(args);
    return Promise.resolve(new Response(null));
  }) as unknown as UpgradeWebSocket<unknown>;
  return { upgrade, handed };
}

describe('releaseUpgradeContext', () => {
  it("hands node-server a view of the upgrade, not its Context (issue 30 item 3: each socket kept its upgrade's whole Context)", async () => {
    const { upgrade, handed } = recordingUpgrader();
    const released = releaseUpgradeContext(upgrade);
    const env = { incoming: 'the IncomingMessage' };
    const events: WSEvents = {};
    let context: Context | undefined;
    const app = new Hono();
    app.get('/ws', (c) => {
      context = c;
      return released(c, events, { protocol: 'edge.1.0' });
    });
    await app.request('/ws?x=1', { headers: { Upgrade: 'WebSocket', Origin: 'http://a' } }, env);

    const [view, passedEvents, options] = handed[0] as [UpgradeView, WSEvents, unknown];
    expect(view).not.toBe(context);
    expect(Object.values(view)).not.toContain(context);
    expect(view.env).toBe(env);
    expect(view.req.url).toBe('http://localhost/ws?x=1');
    expect(view.req.header('upgrade')).toBe('WebSocket');
    expect(view.req.header('Upgrade')).toBe('WebSocket');
    expect(passedEvents).toBe(events);
    expect(options).toEqual({ protocol: 'edge.1.0' });
  });

  it('passes the middleware form through as it is', () => {
    const { upgrade, handed } = recordingUpgrader();
    const createEvents = () => ({});
    releaseUpgradeContext(upgrade)(createEvents, { protocol: 'p' });
    expect(handed[0]).toEqual([createEvents, { protocol: 'p' }]);
  });
});
