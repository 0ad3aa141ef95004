import type { GatewayHub } from '../../edge/gateway/edge-gateway';
import type { ClaimAnswer, GatewayBatchAnswer, KeyLookupAnswer } from '../../edge/gateway/gateway-messages';
import { GATEWAY_COMMAND_PATHS, GATEWAY_PATHS } from '../../edge/gateway/gateway-messages';
import type { EdgeGatewayPort } from '../../hub-deps';
import { type DurableObjectNamespaceLike, HUB_OBJECT_NAME, postToObject } from './durable-object-namespace';
import { gatewayName } from './gateway-shards';

/** A revocation told to every gateway waits this long for each, then goes on (the key's own sessions were closed first). */
const BROADCAST_TIMEOUT_MS = 2_000;

/** The hub object's way to its gateways (HubDeps.edgeGateways). */
export function gatewayPort(gateways: DurableObjectNamespaceLike, shards: number): EdgeGatewayPort {
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
    async revoked(keyId) {
      const told = Array.from({ length: shards }, (_, shard) =>
        postToObject(
          gateways,
          gatewayName(shard),
          GATEWAY_COMMAND_PATHS.revoked,
          { keyId },
          AbortSignal.timeout(BROADCAST_TIMEOUT_MS),
        ),
      );
      await Promise.allSettled(told);
    },
  };
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
