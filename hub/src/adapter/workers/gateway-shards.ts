import * as v from 'valibot';
import { ConfigError } from '../../../../shared/config/config-error';
import { GATEWAY_SHARDS } from '../../config/hub-config';

/**
 * DD_EDGE_GATEWAY_SHARDS: how many edge gateway objects hold the agents' sockets (docs/workers.md
 * "Edge gateways"); 0 or unset: the hub object holds them itself. Read by the Worker and the hub
 * object, which must agree; a bad value names the variable.
 */
export function gatewayShards(bindings: Readonly<Record<string, unknown>>): number {
  const raw = bindings.DD_EDGE_GATEWAY_SHARDS;
  if (raw === undefined || raw === '') return 0;
  const parsed = v.safeParse(GATEWAY_SHARDS, String(raw));
  if (!parsed.success) throw new ConfigError('DD_EDGE_GATEWAY_SHARDS', parsed.issues[0].message);
  return parsed.output;
}

/** The gateway object of an agent: FNV-1a of its name, so its reconnects land where it was. */
export function gatewayNameFor(routingKey: string, shards: number): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < routingKey.length; index += 1) {
    hash ^= routingKey.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return gatewayName(hash % shards);
}

export const gatewayName = (shard: number) => `edge-gateway-${shard}`;
