import type { Context } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import type { HubServices } from '../hub-services';
import { HttpError } from './http-error';
import type { HubEnv } from './hub-env';
import { createRateLimiter, type RateLimiter } from './rate-limit';
import { isSameOrigin } from './same-origin';
import { limitIdentity, MAX_TRACKED_CLIENTS, REQUEST_LIMIT_WINDOW_MS, tooManyRequests } from './server-rate-limit';

// One upgrade limiter per hub. This gate is a function every WebSocket route calls, so its state
// hangs off the hub's services; a WeakMap keeps it from outliving them.
const upgradeLimiters = new WeakMap<HubServices, RateLimiter>();

function upgradeLimiterOf(services: HubServices): RateLimiter {
  let limiter = upgradeLimiters.get(services);
  if (!limiter) {
    limiter = createRateLimiter({
      limit: services.config.server.webSocketUpgradeLimit,
      windowMs: REQUEST_LIMIT_WINDOW_MS,
      now: services.now,
      maxKeys: MAX_TRACKED_CLIENTS,
    });
    upgradeLimiters.set(services, limiter);
  }
  return limiter;
}

/**
 * What every WebSocket route checks before upgrading (spec 5.11, 8): the runtime can upgrade; the
 * caller is within DD_SERVER_RATELIMIT_WEBSOCKET (default 1,000) upgrades per 15 minutes, counted
 * per signed-in user, else per address; this is an upgrade at all (else 426); a browser's Origin
 * is this server's (else 403); and there is a session (else 401). The limit comes before the
 * other checks, so refused attempts count too: WebSocket routes are outside the server-wide
 * request limit, and this is their only one.
 */
export function acceptWebSocket(c: Context<HubEnv>, services: HubServices): UpgradeWebSocket<unknown> {
  const upgrade = services.deps.upgradeWebSocket;
  if (!upgrade) throw new HttpError(501, 'This runtime does not serve WebSocket streams');
  const limit = services.config.server.webSocketUpgradeLimit;
  const decision = upgradeLimiterOf(services).take(limitIdentity(c, services));
  if (!decision.allowed) throw tooManyRequests(`At most ${limit} WebSocket upgrades per 15 minutes from one client`, decision, limit);
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new HttpError(426, 'This route is a WebSocket stream; connect with Upgrade: websocket');
  }
  if (!isSameOrigin(c, services.config.server.trustProxy)) throw new HttpError(403, 'The Origin does not match this server');
  // Streams are session-only (spec 5.11): without a session cookie the upgrade is refused.
  if (!services.config.anonymous && c.get('principal').kind !== 'session') throw new HttpError(401, 'A signed-in session is required');
  return upgrade;
}
