import { ConfigError } from '../../../shared/config/config-error';
import { EDGE_AGENT_NAME_HEADER } from '../../../shared/edge/protocol';
import { errorMessage } from '../../../shared/error-message';
import { withBufferedBody } from '../adapter/workers/buffer-request-body';
import { type DurableObjectNamespaceLike, HUB_OBJECT_NAME } from '../adapter/workers/durable-object-namespace';
import { EdgeGatewayObject } from '../adapter/workers/edge-gateway-object';
import { gatewayNamespace } from '../adapter/workers/gateway-ports';
import { gatewayNameFor, gatewayShards } from '../adapter/workers/gateway-shards';
import { HubDurableObject } from '../adapter/workers/hub-durable-object';
import { EDGE_SOCKET_PATH } from '../edge/gateway/gateway-endpoint';
import { GATEWAY_NAME_HEADER, GATEWAY_PATH_PREFIX } from '../edge/gateway/gateway-messages';
import { MAX_BODY_BYTES } from '../http/body-size';
import { errorBody } from '../http/http-error';
import { isRuntimeLimit, runtimeLimitResponse } from '../http/runtime-limit';

interface WorkerEnv extends Record<string, unknown> {
  HUB: DurableObjectNamespaceLike;
}

/**
 * An agent's upgrade goes to the gateway of its name's shard (docs/workers.md "Edge gateways"). The
 * name is a hint: the hello it signs is what counts, so a wrong one only costs locality. Without
 * it the address shards, then chance.
 */
function toGateway(request: Request, gateways: DurableObjectNamespaceLike, shards: number): Promise<Response> {
  const routingKey =
    request.headers.get(EDGE_AGENT_NAME_HEADER) ?? request.headers.get('cf-connecting-ip') ?? crypto.randomUUID();
  const name = gatewayNameFor(routingKey, shards);
  const headers = new Headers(request.headers);
  headers.set(GATEWAY_NAME_HEADER, name);
  return gateways.get(gateways.idFromName(name)).fetch(new Request(request, { headers }));
}

/**
 * The object threw rather than answered: the platform refused it (overloaded, reset, a limit of
 * the runtime) or it broke. Either way a JSON body, and a refusal is a 503 worth retrying, never
 * a 500 (issue 33 item 14).
 */
function objectFailed(error: unknown): Response {
  if (isRuntimeLimit(error)) return runtimeLimitResponse();
  console.error(`hub: the object failed: ${errorMessage(error)}`);
  return Response.json(errorBody(500), { status: 500 });
}

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const { pathname } = new URL(request.url);
    // The objects' own paths: reachable between the deployment's objects only.
    if (pathname.startsWith(GATEWAY_PATH_PREFIX)) return Response.json(errorBody(404, 'Not Found'), { status: 404 });
    if (pathname === EDGE_SOCKET_PATH) {
      try {
        const shards = gatewayShards(env);
        if (shards > 0) return toGateway(request, gatewayNamespace(env), shards).catch(objectFailed);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return Response.json(errorBody(500, `configuration error: ${error.message}`), { status: 500 });
      }
    }
    // Never the client's body stream itself: the hub may answer before reading it (see withBufferedBody).
    const forwarded = await withBufferedBody(request, MAX_BODY_BYTES);
    if (forwarded instanceof Response) return forwarded;
    return env.HUB.get(env.HUB.idFromName(HUB_OBJECT_NAME)).fetch(forwarded).catch(objectFailed);
  },
};

export { EdgeGatewayObject, HubDurableObject };
