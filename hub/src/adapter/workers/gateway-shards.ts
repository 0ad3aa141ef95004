import { ConfigError } from '../../../../shared/config/config-error';

/** Past this, one more gateway buys nothing: each already holds a small share of any fleet measured. */
const MAX_SHARDS = 1024;

/**
 * DD_EDGE_GATEWAY_SHARDS: how many edge gateway objects hold the agents' sockets (docs/workers.md
 * "Edge gateways"); 0 or unset: the hub object holds them itself. Read by the Worker and the hub
 * object, which must agree; a bad value names the variable.
 */
export function gatewayShards(bindings: Readonly<Record<string, unknown>>): number {
  const raw = bindings.DD_EDGE_GATEWAY_SHARDS;
  if (raw === undefined || raw === '') return 0;
  const text = String(raw).trim();
  const count = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(count) || count > MAX_SHARDS)
    throw new ConfigError('DD_EDGE_GATEWAY_SHARDS', `must be an integer from 0 to ${MAX_SHARDS}`);
  return count;
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
