import { ConfigError } from '../../../../shared/config/config-error';
import type { Logger } from '../../../../shared/logging/logger';
import type { GatewayHub } from '../../edge/gateway/edge-gateway';
import type { ClaimAnswer, GatewayBatchAnswer, KeyLookupAnswer } from '../../edge/gateway/gateway-messages';
import { GATEWAY_COMMAND_PATHS, GATEWAY_PATHS, MAX_KEY_NEWS } from '../../edge/gateway/gateway-messages';
import { createKeyBroadcast } from '../../edge/gateway/key-broadcast';
import type { EdgeGatewayPort } from '../../hub-deps';
import { type DurableObjectNamespaceLike, HUB_OBJECT_NAME, postToObject } from './durable-object-namespace';
import { gatewayName } from './gateway-shards';

/**
 * Key news waits this long for the gateways, per flush: a revoked key's own sessions were closed
 * first, and a gateway's cache of keys expires by itself (5 s unknown, 60 s known).
 */
const KEY_NEWS_DEADLINE_MS = 2_000;
/** Gateway requests in flight at once per flush. */
const KEY_NEWS_CONCURRENCY = 16;

/** The hub object's way to its gateways (HubDeps.edgeGateways). */
export function gatewayPort(gateways: DurableObjectNamespaceLike, shards: number, logger: Logger): EdgeGatewayPort {
  // One message per gateway per flush, whatever the number of keys (issue 33 item 14).
  const news = createKeyBroadcast({
    gateways: Array.from({ length: shards }, (_, shard) => gatewayName(shard)),
    tell: (gateway, body, signal) => postToObject(gateways, gateway, GATEWAY_COMMAND_PATHS.keys, body, signal),
    logger,
    deadlineMs: KEY_NEWS_DEADLINE_MS,
    concurrency: KEY_NEWS_CONCURRENCY,
    maxKeys: MAX_KEY_NEWS,
  });
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
    revoked: (keyId) => news.revoked(keyId),
    registered: (keyId, audience) => news.registered(keyId, audience),
  };
}

/**
 * The port of a deployment with DD_EDGE_GATEWAY_SHARDS gateways, or undefined without them; the
 * gateways' binding (EDGE_GATEWAY in wrangler.toml) must be there.
 */
export function gatewayPortOf(
  bindings: Readonly<Record<string, unknown>>,
  shards: number,
  logger: Logger,
): EdgeGatewayPort | undefined {
  if (shards === 0) return undefined;
  return gatewayPort(gatewayNamespace(bindings), shards, logger);
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
    key: async (keyId, gateway) =>
      (await postToObject(hub, HUB_OBJECT_NAME, GATEWAY_PATHS.key, { keyId, gateway })) as KeyLookupAnswer,
    claim: async (keyId, agentName) =>
      (await postToObject(hub, HUB_OBJECT_NAME, GATEWAY_PATHS.claim, { keyId, agentName })) as ClaimAnswer,
    batch: async (batch) =>
      (await postToObject(hub, HUB_OBJECT_NAME, GATEWAY_PATHS.batch, batch)) as GatewayBatchAnswer,
  };
}
