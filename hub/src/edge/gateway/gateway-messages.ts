import * as v from 'valibot';
import { AgentInfoSchema, EdgeWatcherSchema } from '../../../../shared/edge/protocol';

/**
 * What edge gateways and the hub say to each other (docs/workers.md "Edge gateways"). Both ends are
 * this program, over the runtime's object-to-object requests, never reachable from outside: the
 * Worker refuses GATEWAY_PATH_PREFIX. The hub still validates what it reads, since a gateway of an
 * older deployment may be talking to a newer hub for a moment during a deploy.
 */
export const GATEWAY_PATH_PREFIX = '/__edge-gateway/';

/** Gateway → hub. */
export const GATEWAY_PATHS = {
  /** A key's public half, for sign-ins the gateway verifies itself. */
  key: `${GATEWAY_PATH_PREFIX}key`,
  /** Binds an agent's name to its key (the hub's registry), after the gateway verified the signature. */
  claim: `${GATEWAY_PATH_PREFIX}claim`,
  /** Attaches, inventory frames, replies and detaches of a gateway's sessions, in order. */
  batch: `${GATEWAY_PATH_PREFIX}batch`,
} as const;

/** Hub → gateway. */
export const GATEWAY_COMMAND_PATHS = {
  /** Frames for one session's agent. */
  send: `${GATEWAY_PATH_PREFIX}send`,
  /** Closes one session. */
  close: `${GATEWAY_PATH_PREFIX}close`,
  /**
   * Keys registered (the gateway forgets that it did not know them) and revoked (their sessions
   * close with 4002, the gateway forgets them): every key that changed since the hub's last
   * message, in one (KeyNewsSchema).
   */
  keys: `${GATEWAY_PATH_PREFIX}keys`,
  /** The gateway's live sessions (tests, benchmarks). */
  sessions: `${GATEWAY_PATH_PREFIX}sessions`,
} as const;

/** The Worker tells a gateway its name (edge-gateway-<shard>) with the upgrade it forwards. */
export const GATEWAY_NAME_HEADER = 'x-dd-edge-gateway';

const Name = v.pipe(v.string(), v.minLength(1), v.maxLength(128));
const SessionId = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const KeyId = v.pipe(v.string(), v.minLength(1), v.maxLength(32));

export const KeyLookupSchema = v.object({
  keyId: KeyId,
  /** The gateway asking: told when an unknown key is registered (absent from an older gateway: every one is). */
  gateway: v.optional(Name),
});
/**
 * How long a gateway keeps the hub's answer that a key is unknown (a key may be registered any
 * moment); the hub follows who asked that long, to tell them when it is registered.
 */
export const UNKNOWN_KEY_TTL_MS = 5_000;

export interface KeyLookupAnswer {
  /** base64url of the 32-byte public key, or null for a key the hub does not have. */
  publicKey: string | null;
  revoked: boolean;
}

export const ClaimSchema = v.object({ keyId: KeyId, agentName: Name });
export type ClaimAnswer = { ok: true } | { ok: false; code: number; message: string };

/**
 * One item of a batch. The frames were read and checked by the gateway's session (the same
 * reader as on a socket of the hub), so the hub reads them again with the protocol's schemas only
 * where it applies them.
 */
export const GatewayItemSchema = v.variant('type', [
  v.object({
    type: v.literal('attach'),
    session: SessionId,
    agentName: Name,
    keyId: KeyId,
    address: v.optional(v.pipe(v.string(), v.maxLength(64))),
    /** The hello's agent description and watchers, as the gateway's session accepted them. */
    agent: AgentInfoSchema,
    watchers: v.pipe(v.array(EdgeWatcherSchema), v.maxLength(32)),
  }),
  v.object({ type: v.literal('frame'), session: SessionId, frame: v.unknown() }),
  v.object({ type: v.literal('detach'), session: SessionId, code: v.number() }),
]);
export type GatewayItem = v.InferOutput<typeof GatewayItemSchema>;

export const GatewayBatchSchema = v.object({
  gateway: Name,
  items: v.array(GatewayItemSchema),
  /**
   * Every session the gateway holds and its latest sign of life, sent at most once a minute: the
   * hub refreshes its links' lastSeen and drops links the gateway no longer has.
   */
  census: v.optional(v.record(SessionId, v.number())),
});
export type GatewayBatch = v.InferOutput<typeof GatewayBatchSchema>;

/** The hub's answer to a batch: sessions to close (a frame the hub refused, an attach it could not take). */
export interface GatewayBatchAnswer {
  closes: { session: string; code: number; reason: string }[];
}

export const SendCommandSchema = v.object({ session: SessionId, frames: v.array(v.unknown()) });
export const CloseCommandSchema = v.object({
  session: SessionId,
  code: v.number(),
  reason: v.pipe(v.string(), v.maxLength(123)),
});
/** Key ids in one key-news message at most: more wait for the hub's next one. */
export const MAX_KEY_NEWS = 1024;
/** The keys command: what changed since the hub's last one, however many keys. */
export const KeyNewsSchema = v.object({
  registered: v.pipe(v.array(KeyId), v.maxLength(MAX_KEY_NEWS)),
  revoked: v.pipe(v.array(KeyId), v.maxLength(MAX_KEY_NEWS)),
});
export type KeyNews = v.InferOutput<typeof KeyNewsSchema>;
