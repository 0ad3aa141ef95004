import type { Context } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import type { HubServices } from '../hub-services';
import { HttpError } from './http-error';
import type { HubEnv } from './hub-env';
import { isSameOrigin } from './same-origin';

/**
 * What every WebSocket route checks before upgrading (spec 5.11): the runtime can upgrade, this is
 * an upgrade at all (else 426), and a browser's Origin is this server's (else 403). One place, so
 * the session and upgrade-rate checks of authentication land on every stream at once.
 */
export function acceptWebSocket(c: Context<HubEnv>, services: HubServices): UpgradeWebSocket<unknown> {
  const upgrade = services.deps.upgradeWebSocket;
  if (!upgrade) throw new HttpError(501, 'This runtime does not serve WebSocket streams');
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new HttpError(426, 'This route is a WebSocket stream; connect with Upgrade: websocket');
  }
  if (!isSameOrigin(c, services.config.server.trustProxy)) throw new HttpError(403, 'The Origin does not match this server');
  // Streams are session-only (spec 5.11): without a session cookie the upgrade is refused.
  if (!services.config.anonymous && c.get('principal').kind !== 'session') throw new HttpError(401, 'A signed-in session is required');
  return upgrade;
}
