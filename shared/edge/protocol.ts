import * as v from 'valibot';
import { ContainerSpecSchema } from '../docker/container-spec-schema';
import { ENGINE_WATCHER_TYPES } from '../docker/watcher-config';
import { LOG_LEVELS, LogEntrySchema } from '../schemas/log-entry';
import { UpdateOperationSchema } from '../update-engine/operation';
import {
  ContainerDetailsSchema,
  ImageDetailsSchema,
  LogLineSchema,
  LogOptionsSchema,
  StatsSchema,
} from './docker-schemas';

/**
 * The edge protocol, `edge/1.0`: every frame in both directions. docs/edge-protocol.md is the prose
 * form of this file; change both together. One JSON object per WebSocket text frame, `{type, ...}`.
 */
export const EDGE_PROTOCOL = 'edge/1.0';
/** Protocol versions this side understands, newest first (the `edge/1.x` rule is in docs/edge-protocol.md). */
export const EDGE_PROTOCOLS = [EDGE_PROTOCOL] as const;

/**
 * The WebSocket subprotocol token of a version. Sec-WebSocket-Protocol values must be RFC 7230
 * tokens and `/` is not a token character: ws (on either end) and browsers refuse `edge/1.0` in an
 * upgrade. So in the upgrade a version is written with `.` for `/` (`edge.1.0`); everywhere else
 * (challenge, hello, the signed bytes) it is written `edge/1.0`.
 */
export function edgeSubprotocol(protocol: string): string {
  return protocol.replace('/', '.');
}

/**
 * The agent names itself in this header of its upgrade. It is a routing hint only (a hub on Workers
 * sends the socket to the gateway of that name's shard): the signed hello decides who the agent is.
 */
export const EDGE_AGENT_NAME_HEADER = 'x-dd-agent-name';

/** The tokens to offer (agent) or accept (hub) in Sec-WebSocket-Protocol, newest first. */
export const EDGE_SUBPROTOCOLS: readonly string[] = EDGE_PROTOCOLS.map(edgeSubprotocol);

/** The version a subprotocol token stands for, when this side speaks it. */
export function edgeProtocolOf(subprotocol: string): (typeof EDGE_PROTOCOLS)[number] | undefined {
  return EDGE_PROTOCOLS.find((protocol) => edgeSubprotocol(protocol) === subprotocol);
}

/** Largest frame either side accepts; a larger one closes the socket with 1009. */
export const EDGE_MAX_FRAME_BYTES = 4 * 1024 * 1024;
/**
 * Largest frame the hub accepts before the welcome (1009 beyond): only a hello is allowed then.
 * A real hello is under 1 KiB (32 watchers with long endpoints: about 6 KiB); the largest one the
 * schema allows, every text field at its maximum in ASCII, is about 23 KiB. Whoever can reach the
 * port can send frames this large, so it stays small (docs/edge-protocol.md "Limits before sign-in").
 */
export const EDGE_SIGN_IN_MAX_FRAME_BYTES = 32 * 1024;
/** A snapshot is sent in parts of at most this many containers, so a large host stays under the frame cap. */
export const EDGE_SNAPSHOT_PART_SIZE = 200;
/**
 * `image.export` (edge/1.x addition): the raw bytes of one `chunk` frame at most. Base64 makes
 * 1 MiB about 1.33 MiB of text, so a chunk frame stays well under EDGE_MAX_FRAME_BYTES.
 */
export const EDGE_EXPORT_CHUNK_BYTES = 1024 * 1024;
/**
 * The most chunks a hub may have granted and not yet received for one export: what the hub may
 * have to buffer, and the agent never sends past it whatever credit frames say.
 */
export const EDGE_EXPORT_MAX_CREDIT = 16;
/** The base64 length of a full chunk. */
export const EDGE_EXPORT_CHUNK_BASE64 = Math.ceil(EDGE_EXPORT_CHUNK_BYTES / 3) * 4;
/** The agent must send a valid `hello` within this long after the upgrade. */
export const EDGE_SIGN_IN_DEADLINE_MS = 10_000;
export const EDGE_HEARTBEAT_MS = 15_000;
/** A peer from which nothing arrived for two beats (plus a little slack) is dropped. */
export const EDGE_SILENCE_LIMIT_MS = 2 * EDGE_HEARTBEAT_MS + 5_000;

/** Close codes: the 4xxx ones are this protocol's own (docs/edge-protocol.md lists what each asks of the agent). */
export const EDGE_CLOSE = {
  normal: 1000,
  goingAway: 1001,
  tooLarge: 1009,
  internalError: 1011,
  superseded: 4000,
  signInFailed: 4001,
  keyRevoked: 4002,
  nameTaken: 4003,
  invalidFrame: 4004,
  signInTimeout: 4005,
  heartbeatMissed: 4006,
  unsupportedVersion: 4008,
} as const;

// ---- pieces ----------------------------------------------------------------------------------

/** Agent names appear in URLs (`/api/v1/agents/{name}`) and in container ids' namespaces. */
export const AGENT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const AgentName = v.pipe(v.string(), v.regex(AGENT_NAME, 'agent names are 1-63 of [a-z0-9-], starting alphanumeric'));
const KeyId = v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/, 'a key id is 16 lower-case hex digits'));
const RequestId = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const WatcherName = v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]*$/), v.maxLength(63));
const ShortText = v.pipe(v.string(), v.maxLength(256));
const Base64Url = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/), v.maxLength(128));

/** What an agent says about itself (http-interface §2.3 fields; the hub derives `version` and `build` from `version`). */
export const AgentInfoSchema = v.object({
  /** The agent's full version as built, prerelease suffix included: `1.4.0-rc.2`. */
  version: ShortText,
  /** Older agents may send their build identity separately. */
  build: v.optional(ShortText),
  hostname: ShortText,
  os: ShortText,
  arch: ShortText,
  cpus: v.pipe(v.number(), v.integer(), v.minValue(0)),
  memoryGb: v.pipe(v.number(), v.minValue(0)),
  uptimeSeconds: v.pipe(v.number(), v.minValue(0)),
  logLevel: v.picklist(LOG_LEVELS),
  /** edge/1.x addition: the container the agent runs in, when it runs in one. The hub never updates it through the agent (it would stop the agent halfway). */
  containerId: v.exactOptional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/))),
});
export type AgentInfo = v.InferOutput<typeof AgentInfoSchema>;

/** One Docker watcher of the agent; the hub schedules its cycles and runs its registry checks. */
export const EdgeWatcherSchema = v.object({
  name: WatcherName,
  /** Masked: `unix:///var/run/docker.sock`, `tcp://host:2375`. */
  endpoint: ShortText,
  cron: ShortText,
  jitterSeconds: v.pipe(v.number(), v.integer(), v.minValue(0)),
  watchAll: v.boolean(),
  watchByDefault: v.boolean(),
  /** edge/1.x addition: the Engine it watches (absent from older agents: docker). */
  type: v.exactOptional(v.picklist(ENGINE_WATCHER_TYPES)),
});
export type EdgeWatcher = v.InferOutput<typeof EdgeWatcherSchema>;

/** `conflict` (edge/1.x addition) answers only `image.remove`: the image is in use, nothing was removed. */
const ErrorCode = v.picklist(['not-found', 'unsupported', 'invalid', 'busy', 'failed', 'conflict']);

/** Registry credentials the hub lends the agent for one pull (never written down, never logged). */
export const PullAuthSchema = v.object({
  username: ShortText,
  password: v.pipe(v.string(), v.maxLength(8192)),
  serverAddress: ShortText,
});

/** How the agent runs a `container.update` (also the body of a listen-mode agent's update route). */
export const UpdateOptionsSchema = v.object({
  healthTimeoutMs: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** The hub's credentials for the target's registry, when it holds some (the agent keeps them only for the pull). */
  auth: v.optional(PullAuthSchema),
  /**
   * edge/1.x addition: the configuration to create the container with (a rollback's backup);
   * the current container's when absent. An agent that predates it ignores it.
   */
  spec: v.optional(ContainerSpecSchema),
});

// ---- hub → agent -----------------------------------------------------------------------------

/** The commands a hub sends; each is answered by one `reply` with the same `id`. */
export const EdgeRequestSchema = v.variant('method', [
  /** A fresh, authoritative observation of one watcher; answered by `snapshot` parts, then the reply. */
  v.object({ method: v.literal('inventory'), watcher: WatcherName, operationId: v.optional(ShortText) }),
  v.object({
    method: v.picklist(['container.start', 'container.stop', 'container.restart', 'container.remove']),
    watcher: WatcherName,
    containerId: ShortText,
  }),
  v.object({ method: v.literal('container.stats'), watcher: WatcherName, containerId: ShortText }),
  /**
   * edge/1.x addition: runs the update engine next to the agent's Docker. `operation` is the hub's
   * queued record (the agent journals it); each journalled change goes out as an `operation`
   * frame, the reply's result is the settled operation. `cancel` rolls it back at its next phase.
   */
  v.object({
    method: v.literal('container.update'),
    watcher: WatcherName,
    operation: UpdateOperationSchema,
    options: UpdateOptionsSchema,
  }),
  /**
   * edge/1.x addition: removes an image the hub's prune found no kept backup needs. Never forced:
   * an image a container (any state) uses is refused with `conflict`; one already gone is not an error.
   */
  v.object({ method: v.literal('image.remove'), watcher: WatcherName, imageId: ShortText }),
  /**
   * edge/1.x addition: the images of the watcher's Docker host, for the hub's image list and prune
   * (docs/updates.md "Images"). The reply's result is ImageListResultSchema.
   */
  v.object({ method: v.literal('image.list'), watcher: WatcherName }),
  /**
   * edge/1.x addition: the image as `docker save` writes it, in `chunk` frames (seq 0, 1, 2, …);
   * the reply ends the stream. Flow control: `credit` is how many chunks the agent may send before
   * the hub grants more with `credit` frames (sent only once a chunk arrived, so an agent that
   * predates the method never sees one). `cancel` stops it.
   */
  v.object({
    method: v.literal('image.export'),
    watcher: WatcherName,
    imageId: ShortText,
    credit: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(EDGE_EXPORT_MAX_CREDIT)),
  }),
  /**
   * edge/1.x addition: pulls an image on the watcher's host (the scanner reads an update candidate
   * where the update would pull it). `auth` as for `container.update`. The reply's result is the
   * pulled image (ImageDetailsSchema).
   */
  v.object({
    method: v.literal('image.pull'),
    watcher: WatcherName,
    reference: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
    auth: v.optional(PullAuthSchema),
  }),
  /** Log lines arrive as `stream` frames; the reply ends the stream. `cancel` stops it early. */
  v.object({
    method: v.literal('container.logs'),
    watcher: WatcherName,
    containerId: ShortText,
    options: LogOptionsSchema,
  }),
  v.object({
    method: v.literal('log.entries'),
    level: v.optional(v.picklist(LOG_LEVELS)),
    component: v.optional(ShortText),
    tail: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000))),
    since: v.optional(v.number()),
  }),
]);
export type EdgeRequest = v.InferOutput<typeof EdgeRequestSchema>;
export type EdgeMethod = EdgeRequest['method'];

export const HubFrameSchema = v.variant('type', [
  v.object({
    type: v.literal('challenge'),
    protocol: v.literal(EDGE_PROTOCOL),
    challenge: Base64Url,
    hubVersion: ShortText,
  }),
  v.object({
    type: v.literal('welcome'),
    agentName: AgentName,
    keyId: KeyId,
    heartbeatMs: v.number(),
    hubVersion: ShortText,
  }),
  /** Sent just before the hub closes with the same code, so an agent's log says why. */
  v.object({ type: v.literal('error'), code: v.number(), message: ShortText }),
  v.object({ type: v.literal('request'), id: RequestId, request: EdgeRequestSchema }),
  v.object({ type: v.literal('cancel'), id: RequestId }),
  /** edge/1.x addition: the agent may send `chunks` more `chunk` frames of this `image.export`. */
  v.object({
    type: v.literal('credit'),
    id: RequestId,
    chunks: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(EDGE_EXPORT_MAX_CREDIT)),
  }),
  v.object({ type: v.literal('ping') }),
  v.object({ type: v.literal('pong') }),
]);
export type HubFrame = v.InferOutput<typeof HubFrameSchema>;

// ---- agent → hub -----------------------------------------------------------------------------

/** Results of the requests that answer with data (the others reply `{type: "reply", id, ok: true}` without a result). */
export const InventoryResultSchema = v.object({ syncId: ShortText, containers: v.number() });
export const StatsResultSchema = StatsSchema;
export const LogEntriesResultSchema = v.object({ entries: v.array(LogEntrySchema) });

/** `image.list` answers at most this many images (the Engine's order), so the reply stays well under the frame cap. */
export const EDGE_IMAGE_LIST_MAX = 5_000;
/** One image as the agent's Docker lists it (shared/docker/docker-host.ts DockerImageSummary). */
export const ImageSummarySchema = v.object({
  id: v.pipe(v.string(), v.maxLength(256)),
  // No count cap of their own: the frame cap bounds them, and the agent cuts the list to fit it.
  repoTags: v.array(v.pipe(v.string(), v.maxLength(1024))),
  repoDigests: v.array(v.pipe(v.string(), v.maxLength(1024))),
  createdAt: v.number(),
  sizeBytes: v.number(),
  containers: v.number(),
});
/** `truncated`: the host has more images than EDGE_IMAGE_LIST_MAX (or than fit half a frame); the rest were left out. */
export const ImageListResultSchema = v.object({
  images: v.pipe(v.array(ImageSummarySchema), v.maxLength(EDGE_IMAGE_LIST_MAX)),
  truncated: v.boolean(),
});
export type ImageListResult = v.InferOutput<typeof ImageListResultSchema>;

export const AgentFrameSchema = v.variant('type', [
  v.object({
    type: v.literal('hello'),
    protocol: v.literal(EDGE_PROTOCOL),
    keyId: KeyId,
    agentName: AgentName,
    /** Ed25519 signature (base64url) over signInMessage(challenge, protocol, keyId, agentName). */
    signature: Base64Url,
    agent: AgentInfoSchema,
    watchers: v.pipe(v.array(EdgeWatcherSchema), v.maxLength(32)),
  }),
  /**
   * One part of a watcher's full inventory. Parts of one sync share `syncId`; the hub applies the
   * whole when the part with `last: true` arrives. `operationId` echoes an inventory request's.
   */
  v.object({
    type: v.literal('snapshot'),
    watcher: WatcherName,
    syncId: ShortText,
    operationId: v.optional(ShortText),
    part: v.pipe(v.number(), v.integer(), v.minValue(0)),
    last: v.boolean(),
    containers: v.pipe(v.array(ContainerDetailsSchema), v.maxLength(EDGE_SNAPSHOT_PART_SIZE)),
    // Each image once per part; a part's images serve its containers, so never more of them.
    images: v.pipe(v.array(ImageDetailsSchema), v.maxLength(EDGE_SNAPSHOT_PART_SIZE)),
  }),
  /** A container appeared or changed (a Docker event, re-inspected by the agent). */
  v.object({
    type: v.literal('container.changed'),
    watcher: WatcherName,
    container: ContainerDetailsSchema,
    image: v.optional(ImageDetailsSchema),
  }),
  v.object({ type: v.literal('container.removed'), watcher: WatcherName, containerId: ShortText }),
  /** Sent when something of AgentInfo changed (the hub then emits dd:agent-stats-changed). */
  v.object({ type: v.literal('info'), agent: AgentInfoSchema }),
  /**
   * edge/1.x addition: an update operation the agent runs changed (every journal write), and on
   * each (re)connect the agent's unfinished and recently settled ones, so the hub's record converges.
   */
  v.object({ type: v.literal('operation'), watcher: WatcherName, operation: UpdateOperationSchema }),
  v.object({ type: v.literal('stream'), id: RequestId, lines: v.pipe(v.array(LogLineSchema), v.maxLength(1000)) }),
  /**
   * edge/1.x addition: the next bytes of an `image.export`, in order from seq 0, base64 (standard
   * alphabet, padded), at most EDGE_EXPORT_CHUNK_BYTES of them, never more than the hub's credit.
   */
  v.object({
    type: v.literal('chunk'),
    id: RequestId,
    seq: v.pipe(v.number(), v.integer(), v.minValue(0)),
    data: v.pipe(
      v.string(),
      v.minLength(4),
      v.maxLength(EDGE_EXPORT_CHUNK_BASE64),
      v.check((data) => data.length % 4 === 0, 'chunk data is padded base64'),
      // The alphabet is checked where the hub decodes it (shared/edge/chunk-base64.ts: 4004 for
      // anything else): a regex over a megabyte of text cost more than the decoding itself.
    ),
  }),
  v.object({ type: v.literal('reply'), id: RequestId, ok: v.literal(true), result: v.optional(v.unknown()) }),
  v.object({
    type: v.literal('reply'),
    id: RequestId,
    ok: v.literal(false),
    error: v.object({ code: ErrorCode, message: ShortText }),
  }),
  v.object({ type: v.literal('ping') }),
  v.object({ type: v.literal('pong') }),
]);
export type AgentFrame = v.InferOutput<typeof AgentFrameSchema>;
