import type { Context } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import type { HubConfig } from '../config/hub-config';
import { HttpError } from './http-error';
import type { HubEnv } from './hub-env';
import { createRateLimiter, type RateLimiter } from './rate-limit';
import { isSameOrigin } from './same-origin';
import { limitIdentity, MAX_TRACKED_CLIENTS, REQUEST_LIMIT_WINDOW_MS, tooManyRequests } from './server-rate-limit';

/** The gate of every WebSocket route: the runtime's upgrader, the upgrade limit, and who may stream. */
export interface WebSocketUpgradeDeps {
  /** Undefined where the runtime cannot upgrade: the routes answer 501. */
  upgradeWebSocket: UpgradeWebSocket<unknown> | undefined;
  config: Pick<HubConfig, 'server' | 'anonymous'>;
  now: () => number;
  clientAddress: (c: Context) => string | undefined;
}

/**
 * What every WebSocket route checks before upgrading (http-interface §5.11, §8): the runtime can upgrade; the
 * caller is within DD_SERVER_RATELIMIT_WEBSOCKET (default 1,000) upgrades per 15 minutes, counted
 * per signed-in user, else per address; this is an upgrade at all (else 426); a browser's Origin
 * is this server's (else 403); and there is a session (else 401). The limit comes before the
 * other checks, so refused attempts count too: WebSocket routes are outside the server-wide
 * request limit, and this is their only one.
 */
export interface WebSocketGate {
  /** Absent where the runtime cannot upgrade. */
  readonly upgradeWebSocket: UpgradeWebSocket<unknown> | undefined;
  /** The runtime's upgrader for this request, or the HttpError that refuses it. */
  accept(c: Context<HubEnv>): UpgradeWebSocket<unknown>;
}

/** One gate per hub: every WebSocket route of the UI shares its upgrade limit. */
export function createWebSocketGate(deps: WebSocketUpgradeDeps): WebSocketGate {
  const limiter = createRateLimiter({
    limit: deps.config.server.webSocketUpgradeLimit,
    windowMs: REQUEST_LIMIT_WINDOW_MS,
    now: deps.now,
    maxKeys: MAX_TRACKED_CLIENTS,
  });
  return { upgradeWebSocket: deps.upgradeWebSocket, accept: (c) => acceptWebSocket(c, deps, limiter) };
}

function acceptWebSocket(
  c: Context<HubEnv>,
  deps: WebSocketUpgradeDeps,
  limiter: RateLimiter,
): UpgradeWebSocket<unknown> {
  const upgrade = deps.upgradeWebSocket;
  if (!upgrade) throw new HttpError(501, 'This runtime does not serve WebSocket streams');
  const limit = deps.config.server.webSocketUpgradeLimit;
  const decision = limiter.take(limitIdentity(c, deps));
  if (!decision.allowed)
    throw tooManyRequests(`At most ${limit} WebSocket upgrades per 15 minutes from one client`, decision, limit);
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new HttpError(426, 'This route is a WebSocket stream; connect with Upgrade: websocket');
  }
  if (!isSameOrigin(c, deps.config.server.trustProxy))
    throw new HttpError(403, 'The Origin does not match this server');
  // Streams are session-only (http-interface §5.11): without a session cookie the upgrade is refused.
  if (!deps.config.anonymous && c.get('principal').kind !== 'session')
    throw new HttpError(401, 'A signed-in session is required');
  return upgrade;
}
