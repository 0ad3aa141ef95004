import type { Context } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import { EDGE_SUBPROTOCOLS, edgeProtocolOf } from '../../../shared/edge/protocol';
import type { HubConfig } from '../config/hub-config';
import { HttpError } from '../http/http-error';
import { createRateLimiter, type RateLimiter } from '../http/rate-limit';
import type { RouteGroup } from '../http/route-group';
import { isSameOrigin } from '../http/same-origin';
import { MAX_TRACKED_CLIENTS, REQUEST_LIMIT_WINDOW_MS, tooManyRequests } from '../http/server-rate-limit';
import type { HibernatableEdgeUpgrader } from '../hub-deps';
import type { EdgeSessions } from './edge-sessions';
import type { SlotRefusal } from './sign-in-slots';

export const EDGE_WS_PATH = '/edge/ws';
const SIGN_IN_CAP_RETRY_AFTER_SECONDS = 1;

/** The subprotocols a client offers (Sec-WebSocket-Protocol is a comma-separated token list). */
export function offeredProtocols(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}

/**
 * The subprotocol token the hub answers with (`edge.1.0` for edge/1.0): the newest it speaks
 * among those offered, or undefined. The Node adapter asks the same function through ws's
 * handleProtocols, so the 101 answer and the session agree.
 */
export function selectEdgeSubprotocol(offered: Iterable<string>): string | undefined {
  const set = new Set(offered);
  return EDGE_SUBPROTOCOLS.find((token) => set.has(token));
}

/** The agents' WebSocket endpoint: the runtime's upgrader, the upgrade limit, and the sessions it hands sockets to. */
export interface EdgeEndpointDeps {
  /** Absent where the runtime cannot upgrade: the endpoint answers 501. */
  upgradeWebSocket: UpgradeWebSocket<unknown> | undefined;
  /** Where the runtime hibernates edge sockets (Workers), the upgrade goes through it instead. */
  hibernatable?: HibernatableEdgeUpgrader | undefined;
  clientAddress: (c: Context) => string | undefined;
  config: Pick<HubConfig, 'server'>;
  now: () => number;
  edge: EdgeSessions;
}

/**
 * What the edge upgrade checks (docs/edge-protocol.md "Connecting"). Like acceptWebSocket of the
 * UI streams but without a session: agents sign in inside the socket. The per-address upgrade
 * limit (DD_SERVER_RATELIMIT_WEBSOCKET per 15 minutes) comes first, so refused attempts count.
 */
export function acceptEdgeUpgrade(
  c: Context,
  deps: Pick<EdgeEndpointDeps, 'upgradeWebSocket' | 'hibernatable' | 'clientAddress' | 'config'>,
  limiter: RateLimiter,
): { token: string; protocol: string } {
  if (!deps.upgradeWebSocket && !deps.hibernatable)
    throw new HttpError(501, 'This runtime does not serve WebSocket streams');
  const address = deps.clientAddress(c);
  const limit = deps.config.server.webSocketUpgradeLimit;
  const decision = limiter.take(address === undefined ? 'unknown' : `ip:${address}`);
  if (!decision.allowed)
    throw tooManyRequests(`At most ${limit} WebSocket upgrades per 15 minutes from one address`, decision, limit);
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new HttpError(
      426,
      'The edge endpoint is a WebSocket; connect with Upgrade: websocket and an edge subprotocol',
      {
        supported: [...EDGE_SUBPROTOCOLS],
      },
    );
  }
  if (!isSameOrigin(c, deps.config.server.trustProxy))
    throw new HttpError(403, 'The Origin does not match this server');
  const token = selectEdgeSubprotocol(offeredProtocols(c.req.header('sec-websocket-protocol')));
  const protocol = token === undefined ? undefined : edgeProtocolOf(token);
  if (token === undefined || protocol === undefined) {
    throw new HttpError(426, 'Offer a supported edge subprotocol in Sec-WebSocket-Protocol', {
      supported: [...EDGE_SUBPROTOCOLS],
    });
  }
  return { token, protocol };
}

/**
 * The 429 of the caps on connections not yet signed in. Places free up within the sign-in
 * deadline (10 s), most within milliseconds as agents sign in, so the caller may retry soon.
 */
export function signInCapReached(refusal: SlotRefusal): HttpError {
  const message =
    refusal.refused === 'address'
      ? `At most ${refusal.limit} edge connections from one address may be signing in at once`
      : `At most ${refusal.limit} edge connections may be signing in at once`;
  return new HttpError(
    429,
    message,
    { limit: refusal.limit, scope: refusal.refused, retryAfterSeconds: SIGN_IN_CAP_RETRY_AFTER_SECONDS },
    { 'Retry-After': String(SIGN_IN_CAP_RETRY_AFTER_SECONDS) },
  );
}

/** GET /api/v1/edge/ws: the agents' WebSocket (registered only with DD_EXPERIMENTAL_EDGE on). */
export function registerEdgeEndpoint(api: RouteGroup, deps: EdgeEndpointDeps): void {
  const { edge } = deps;
  const limiter = createRateLimiter({
    limit: deps.config.server.webSocketUpgradeLimit,
    windowMs: REQUEST_LIMIT_WINDOW_MS,
    now: deps.now,
    maxKeys: MAX_TRACKED_CLIENTS,
  });
  api.add(
    {
      method: 'get',
      path: EDGE_WS_PATH,
      access: 'public',
      tag: 'edge',
      websocket: true,
      summary:
        'WebSocket of edge agents (subprotocol edge.1.0, protocol edge/1.0); agents sign in inside the socket (docs/edge-protocol.md)',
      statuses: {
        403: 'Origin does not match the server',
        426: 'Not a WebSocket upgrade, or no supported edge subprotocol offered',
        429: 'Too many upgrades from this address, or too many connections not yet signed in (from it, or in all)',
        503: 'The hub is still starting',
      },
    },
    (c) => {
      const { token, protocol } = acceptEdgeUpgrade(c, deps, limiter);
      // The listener opens before stored state is loaded; an agent then retries with its backoff.
      if (!edge.ready) throw new HttpError(503, 'The hub is starting', undefined, { 'Retry-After': '1' });
      const address = deps.clientAddress(c);
      // Last of the checks, so a refused upgrade never holds a place.
      const slot = edge.admit(address);
      if ('refused' in slot) throw signInCapReached(slot);
      const connection = { protocol, address, slot };
      if (deps.hibernatable)
        return deps.hibernatable.upgrade(c, token, (socket) => edge.sockets.open(socket, connection));
      const upgrade = deps.upgradeWebSocket as NonNullable<typeof deps.upgradeWebSocket>;
      // The token is for runtimes whose helper writes the 101 itself (Workers); on Node, ws's handleProtocols picks it.
      return upgrade(c, edge.connect(connection), { protocol: token });
    },
  );
}
