import { ConfigError } from '../../../../shared/config/config-error';
import type { GatewayHub } from '../../edge/gateway/edge-gateway';
import type { ClaimAnswer, GatewayBatchAnswer, KeyLookupAnswer } from '../../edge/gateway/gateway-messages';
import { GATEWAY_COMMAND_PATHS, GATEWAY_PATHS } from '../../edge/gateway/gateway-messages';
import type { EdgeGatewayPort } from '../../hub-deps';
import { type DurableObjectNamespaceLike, HUB_OBJECT_NAME, postToObject } from './durable-object-namespace';
import { gatewayName } from './gateway-shards';

/** A key's news told to every gateway waits this long for each, then goes on (a revoked key's own sessions were closed first). */
const BROADCAST_TIMEOUT_MS = 2_000;

/** The hub object's way to its gateways (HubDeps.edgeGateways). */
export function gatewayPort(gateways: DurableObjectNamespaceLike, shards: number): EdgeGatewayPort {
  const broadcast = async (path: string, body: unknown) => {
    const told = Array.from({ length: shards }, (_, shard) =>
      postToObject(gateways, gatewayName(shard), path, body, AbortSignal.timeout(BROADCAST_TIMEOUT_MS)),
    );
    await Promise.allSettled(told);
  };
  return {
    async send(gateway, session, frames) {
      const answer = (await postToObject(gateways, gateway, GATEWAY_COMMAND_PATHS.send, { session, frames })) as {
        delivered?: boolean;
      };
      return answer.delivered === true;
    },
    async close(gateway, session, code, reason) {
      await postToObject(gateways, gateway, GATEWAY_COMMAND_PATHS.close, { session, code, reason });
    },
    revoked: (keyId) => broadcast(GATEWAY_COMMAND_PATHS.revoked, { keyId }),
    registered: (keyId) => broadcast(GATEWAY_COMMAND_PATHS.registered, { keyId }),
  };
}

/**
 * The port of a deployment with DD_EDGE_GATEWAY_SHARDS gateways, or undefined without them; the
 * gateways' binding (EDGE_GATEWAY in wrangler.toml) must be there.
 */
export function gatewayPortOf(
  bindings: Readonly<Record<string, unknown>>,
  shards: number,
): EdgeGatewayPort | undefined {
  if (shards === 0) return undefined;
  return gatewayPort(gatewayNamespace(bindings), shards);
}

/** The gateways' namespace binding, which DD_EDGE_GATEWAY_SHARDS > 0 needs. */
export function gatewayNamespace(bindings: Readonly<Record<string, unknown>>): DurableObjectNamespaceLike {
  const namespace = bindings.EDGE_GATEWAY as DurableObjectNamespaceLike | undefined;
  if (typeof namespace?.idFromName !== 'function')
    throw new ConfigError(
      'DD_EDGE_GATEWAY_SHARDS',
      'edge gateways need the EDGE_GATEWAY Durable Object binding (class EdgeGatewayObject) in wrangler.toml',
    );
  return namespace;
}

/** A gateway's way to the hub object. */
export function hubPort(hub: DurableObjectNamespaceLike): GatewayHub {
  return {
    key: async (keyId) => (await postToObject(hub, HUB_OBJECT_NAME, GATEWAY_PATHS.key, { keyId })) as KeyLookupAnswer,
    claim: async (keyId, agentName) =>
      (await postToObject(hub, HUB_OBJECT_NAME, GATEWAY_PATHS.claim, { keyId, agentName })) as ClaimAnswer,
    batch: async (batch) =>
      (await postToObject(hub, HUB_OBJECT_NAME, GATEWAY_PATHS.batch, batch)) as GatewayBatchAnswer,
  };
}
