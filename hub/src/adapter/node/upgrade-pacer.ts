import type { IncomingMessage } from 'node:http';

/** One turn's upgrades at most this long: as long as the edge sessions' frame slices (edge-sessions.ts). */
export const UPGRADE_SLICE_MS = 10;

export interface UpgradePacerOptions {
  budgetMs: number;
  now: () => number;
  /** Runs `work` on the loop's next turn, after pending I/O (Node: setImmediate). */
  nextTurn: (work: () => void) => void;
}

export interface UpgradePacer {
  /** Resolves when this upgrade may go on. */
  admit(): Promise<void>;
  /** Upgrades waiting for a turn. */
  readonly waiting: number;
}

/**
 * Admits WebSocket upgrades into the hub at most `budgetMs` of work per turn of the event loop;
 * the rest wait, in arrival order, for the next turns.
 *
 * Why (issue 18): when ten thousand agents dial at once, their upgrade requests are ready together
 * and Node reads them all in one poll phase. Each went on through the hub's middleware, the route,
 * the handshake (SHA-1, the 101) and the session's start (its challenge) at once, which held the
 * loop for about two seconds: no timer, heartbeat or frame ran meanwhile. Admitted here, that work
 * runs a slice a turn and the loop keeps turning; only the HTTP parsing of the burst stays in it.
 *
 * A slice is measured in wall time from the first admission of a turn, including what the admitted
 * upgrades did since (their promise continuations run before the next admission). A turn's end is
 * marked by `nextTurn` (setImmediate: after the poll phase). An upgrade that arrives when nothing
 * waits and the turn's budget is not spent goes through at once: a lone dial is not delayed.
 */
export function createUpgradePacer(options: UpgradePacerOptions): UpgradePacer {
  const { budgetMs, now, nextTurn } = options;
  const queue: (() => void)[] = [];
  let head = 0;
  /** When this turn's first upgrade was admitted; undefined once a turn ended with none waiting. */
  let turnStartedAt: number | undefined;
  let turnEndScheduled = false;

  const waiting = () => queue.length - head;
  const spent = () => turnStartedAt !== undefined && now() - turnStartedAt >= budgetMs;

  const endTurnLater = () => {
    if (turnEndScheduled) return;
    turnEndScheduled = true;
    nextTurn(() => {
      turnEndScheduled = false;
      turnStartedAt = undefined;
      if (waiting() > 0) release();
    });
  };

  const startTurn = () => {
    if (turnStartedAt === undefined) turnStartedAt = now();
    endTurnLater();
  };

  // One admission, then the next after the admitted upgrade's first continuation (a microtask
  // queued behind it), so the budget check sees the work the previous one did.
  const release = () => {
    if (waiting() === 0) return;
    startTurn();
    if (spent()) return;
    const resolve = queue[head] as () => void;
    queue[head++] = noop;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    resolve();
    queueMicrotask(release);
  };

  return {
    admit() {
      if (waiting() === 0 && !spent()) {
        startTurn();
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        queue.push(resolve);
        endTurnLater();
      });
    },
    get waiting() {
      return waiting();
    },
  };
}

const noop = () => undefined;

type NodeFetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/** `fetch` with each WebSocket upgrade admitted by `pacer` first; other requests go straight through. */
export function pacedUpgrades(pacer: UpgradePacer, fetch: NodeFetch): NodeFetch {
  return async (request, env) => {
    const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (incoming?.headers.upgrade?.toLowerCase() !== 'websocket') return fetch(request, env);
    await pacer.admit();
    // The client gave up while it waited (an agent's sign-in timeout): nothing to upgrade, and
    // @hono/node-server ignores the answer for a closed socket.
    if (incoming.socket.destroyed) return new Response(null, { status: 400 });
    return fetch(request, env);
  };
}
