import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import type { HubConfig } from '../../config/hub-config';
import { errorBody, HttpError } from '../../http/http-error';
import { createRateLimiter } from '../../http/rate-limit';
import { isRuntimeLimit, runtimeLimitResponse } from '../../http/runtime-limit';
import { MAX_TRACKED_CLIENTS, REQUEST_LIMIT_WINDOW_MS } from '../../http/server-rate-limit';
import type { HibernatableEdgeUpgrader } from '../../hub-deps';
import { acceptEdgeUpgrade, signInCapReached } from '../edge-endpoint';
import type { EdgeGateway } from './edge-gateway';
import { CloseCommandSchema, GATEWAY_COMMAND_PATHS, KeyNewsSchema, SendCommandSchema } from './gateway-messages';

/** The agents' WebSocket path, as the Worker forwards it to a gateway. */
export const EDGE_SOCKET_PATH = '/api/v1/edge/ws';

export interface GatewayEndpointDeps {
  gateway: EdgeGateway;
  /** The runtime's hibernatable upgrade; the sockets it opens carry their session's id. */
  hibernatable: HibernatableEdgeUpgrader;
  config: Pick<HubConfig, 'server'>;
  clientAddress: (c: Context) => string | undefined;
  now: () => number;
}

async function readCommand<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  const parsed = v.safeParse(schema, await c.req.json().catch(() => undefined));
  if (!parsed.success) throw new HttpError(400, 'Invalid gateway command');
  return parsed.output;
}

/**
 * What an edge gateway serves (docs/workers.md "Edge gateways"): the agents' upgrade, with the same
 * checks as the hub's own edge endpoint (per-address upgrade limit, Origin, subprotocol, the caps
 * on connections signing in), and the hub's commands. Only the Worker and the hub object can reach
 * a gateway, and the Worker forwards it nothing but the agents' upgrades.
 */
export function createGatewayApp(deps: GatewayEndpointDeps): Hono {
  const { gateway } = deps;
  const limiter = createRateLimiter({
    limit: deps.config.server.webSocketUpgradeLimit,
    windowMs: REQUEST_LIMIT_WINDOW_MS,
    now: deps.now,
    maxKeys: MAX_TRACKED_CLIENTS,
  });
  const app = new Hono();
  app.get(EDGE_SOCKET_PATH, (c) => {
    const { token, protocol } = acceptEdgeUpgrade(
      c,
      {
        upgradeWebSocket: undefined,
        hibernatable: deps.hibernatable,
        clientAddress: deps.clientAddress,
        config: deps.config,
      },
      limiter,
    );
    const address = deps.clientAddress(c);
    const slot = gateway.admit(address);
    if ('refused' in slot) throw signInCapReached(slot);
    return deps.hibernatable.upgrade(c, token, (socket) => gateway.sockets.open(socket, { protocol, address, slot }));
  });
  app.post(GATEWAY_COMMAND_PATHS.send, async (c) => {
    const { session, frames } = await readCommand(c, SendCommandSchema);
    return c.json({ delivered: gateway.send(session, frames) });
  });
  app.post(GATEWAY_COMMAND_PATHS.close, async (c) => {
    const { session, code, reason } = await readCommand(c, CloseCommandSchema);
    gateway.close(session, code, reason);
    return c.json({ ok: true });
  });
  app.post(GATEWAY_COMMAND_PATHS.keys, async (c) => {
    const news = await readCommand(c, KeyNewsSchema);
    for (const keyId of news.revoked) gateway.revoked(keyId);
    for (const keyId of news.registered) gateway.registered(keyId);
    return c.json({ ok: true });
  });
  app.get(GATEWAY_COMMAND_PATHS.sessions, (c) => c.json({ sessions: gateway.list() }));
  app.notFound((c) => c.json(errorBody(404), 404));
  app.onError((error, c) => {
    if (error instanceof HttpError)
      return c.json(errorBody(error.status, error.message, error.details), error.status as 400, error.headers);
    if (isRuntimeLimit(error)) return runtimeLimitResponse();
    return c.json(errorBody(500), 500);
  });
  return app;
}
