import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ListenContext } from './listen-context';
import type { StateChange } from './listen-state';

/**
 * Events waiting for a slow reader beyond this many end its stream: the hub reconnects and takes
 * a full inventory, which is cheaper than holding an unbounded backlog in the agent.
 */
export const MAX_PENDING_EVENTS = 10_000;

/**
 * GET /api/events (http-interface §6.2): `data: {type, data}` messages, beginning at once with dd:ack, then
 * every change of the state with its revision as the SSE `id`. An SSE comment every keepaliveMs
 * lets the hub tell a quiet agent from a dead connection.
 */
export function registerEventRoute(app: Hono, context: ListenContext): { closeAll(): void } {
  const open = new Set<() => void>();
  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      const pending: StateChange[] = [];
      let overflow = false;
      let wake: (() => void) | undefined;
      // Subscribed before the ack is built, so no change falls between the two.
      const unsubscribe = context.state.subscribe((change) => {
        if (pending.length >= MAX_PENDING_EVENTS) overflow = true;
        else pending.push(change);
        wake?.();
      });
      stream.onAbort(() => wake?.());
      const end = () => stream.abort();
      open.add(end);
      context.logger.debug(`event stream opened (${open.size} open)`);
      try {
        await stream.writeSSE({ data: JSON.stringify({ type: 'dd:ack', data: context.ack() }) });
        while (!stream.aborted && !stream.closed) {
          if (overflow) {
            context.logger.warn(
              `an event stream fell ${MAX_PENDING_EVENTS} events behind and was closed; its reader resyncs`,
            );
            return;
          }
          const change = pending.shift();
          if (change) {
            await stream.writeSSE({ id: String(change.revision), data: JSON.stringify(change.event) });
            continue;
          }
          let timer: ReturnType<typeof setTimeout> | undefined;
          const woken = await new Promise<boolean>((resolve) => {
            wake = () => resolve(true);
            timer = setTimeout(() => resolve(false), context.keepaliveMs);
          });
          clearTimeout(timer);
          wake = undefined;
          if (!woken && !stream.aborted) await stream.write(': keepalive\n\n');
        }
      } finally {
        unsubscribe();
        open.delete(end);
        context.logger.debug(`event stream closed (${open.size} open)`);
      }
    }),
  );
  return {
    closeAll() {
      for (const end of [...open]) end();
    },
  };
}
