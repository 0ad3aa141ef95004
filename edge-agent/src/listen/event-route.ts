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
export function registerEventRoute(app: Hono, context: ListenContext): { closeAll(graceMs?: number): Promise<void> } {
  /** Each open stream: `finish` ends it once what is pending went out; `ended` resolves when it has. */
  const open = new Set<{ finish(): void; ended: Promise<void> }>();
  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      const pending: StateChange[] = [];
      let overflow = false;
      let finishing = false;
      let wake: (() => void) | undefined;
      let ended!: () => void;
      // Subscribed before the ack is built, so no change falls between the two.
      const unsubscribe = context.state.subscribe((change) => {
        if (pending.length >= MAX_PENDING_EVENTS) overflow = true;
        else pending.push(change);
        wake?.();
      });
      stream.onAbort(() => wake?.());
      const entry = {
        finish: () => {
          finishing = true;
          wake?.();
        },
        ended: new Promise<void>((resolve) => {
          ended = resolve;
        }),
      };
      open.add(entry);
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
          if (finishing) return;
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
        open.delete(entry);
        ended();
        context.logger.debug(`event stream closed (${open.size} open)`);
      }
    }),
  );
  return {
    /**
     * Ends every stream once the events already pending went out (the agent is stopping: the
     * settled updates must reach the hub), waiting at most `graceMs`; the listener's close cuts the rest.
     */
    async closeAll(graceMs = 1_000) {
      const streams = [...open];
      for (const stream of streams) stream.finish();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(streams.map((stream) => stream.ended)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
