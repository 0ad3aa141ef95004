import * as v from 'valibot';
import type { DockerContainerDetails, DockerImageDetails } from '../docker/docker-host';
import { ENGINE_WATCHER_TYPES } from '../docker/watcher-config';
import { ContainerDetailsSchema, ImageDetailsSchema } from '../edge/docker-schemas';
import { PullAuthSchema, UpdateOptionsSchema } from '../edge/protocol';
import type { Container } from '../schemas/container';
import { LOG_LEVELS } from '../schemas/log-entry';
import { UpdateOperationSchema } from '../update-engine/operation';

/**
 * The agent internal interface of http-interface §4.5 as a listen-mode agent serves it and the hub reads it
 * (docs/listen-mode.md is the prose form). The agent answers with these shapes; the hub validates
 * every answer and event with them, ignoring fields it does not know.
 */

/** Every route but GET /health needs the shared secret in this header (http-interface §5.7). */
export const AGENT_SECRET_HEADER = 'X-Dd-Agent-Secret';
/**
 * The revision of the agent's state that an answer reflects (every change of the state bumps it,
 * and each event carries its revision as the SSE `id`). The hub drops an event that is not newer
 * than an answer it already applied, as the stream and the answers travel on separate connections.
 */
export const AGENT_REVISION_HEADER = 'X-Dd-Agent-Revision';
/** The agent sends an SSE comment this often, so a silent (half-open) connection is noticed. */
export const AGENT_KEEPALIVE_MS = 15_000;

const WatcherName = v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]*$/), v.maxLength(63));
const Id = v.pipe(v.string(), v.minLength(1), v.maxLength(128));

/** http-interface §4.5: the inventory route's operationId is a controller-generated UUIDv4. */
export const OPERATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const OperationIdSchema = v.pipe(v.string(), v.regex(OPERATION_ID, 'must be a UUIDv4'));

/** Docker's own view of the container and its image: raw runtime values, env unredacted (http-interface §6.2). */
export const DockerViewsSchema = v.object({
  container: ContainerDetailsSchema,
  image: v.exactOptional(ImageDetailsSchema),
});
export interface DockerViews {
  container: DockerContainerDetails;
  image?: DockerImageDetails;
}

/**
 * A container object of the agent: the http-interface §2.4 record as far as the agent knows it (no registry
 * fields: registry checks run in the hub), with the Docker views it was built from under `docker`.
 * The hub reads `id`, `watcher` and `docker` and builds its own record from the views.
 */
export type AgentContainer = Container & { docker: DockerViews };
export const AgentContainerSchema = v.looseObject({ id: Id, watcher: WatcherName, docker: DockerViewsSchema });
export type ParsedAgentContainer = v.InferOutput<typeof AgentContainerSchema>;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** `dd:ack`: the agent list fields of http-interface §2.3 (the hub adds name, host, port and connected). */
export const AgentAckSchema = v.object({
  version: v.pipe(v.string(), v.maxLength(256)),
  /** Older agents report only `version` (with its prerelease suffix): the hub derives both then. */
  build: v.optional(v.pipe(v.string(), v.maxLength(256))),
  os: v.string(),
  arch: v.string(),
  cpus: count,
  memoryGb: v.pipe(v.number(), v.minValue(0)),
  uptimeSeconds: v.pipe(v.number(), v.minValue(0)),
  lastSeen: v.string(),
  logLevel: v.picklist(LOG_LEVELS),
  pollInterval: v.string(),
  containers: v.object({ total: count, running: count, stopped: count }),
  images: count,
});
export type AgentAck = v.InferOutput<typeof AgentAckSchema>;

const Operation = { operationId: OperationIdSchema, watcher: WatcherName };

/** One message of GET /api/events: `data: {type, data}` (http-interface §6.2). Other types are ignored by the hub. */
export const AgentEventSchema = v.variant('type', [
  v.object({ type: v.literal('dd:ack'), data: AgentAckSchema }),
  v.object({ type: v.picklist(['dd:container-added', 'dd:container-updated']), data: AgentContainerSchema }),
  /** `watcher` is this agent's addition: which watcher's inventory the container left. */
  v.object({ type: v.literal('dd:container-removed'), data: v.object({ id: Id, watcher: v.optional(WatcherName) }) }),
  v.object({
    type: v.picklist(['dd:inventory-added', 'dd:inventory-updated']),
    data: v.object({ ...Operation, container: AgentContainerSchema }),
  }),
  v.object({ type: v.literal('dd:inventory-removed'), data: v.object({ ...Operation, id: Id }) }),
  /**
   * This agent's addition: an update operation it runs changed (every journal write, as the edge
   * protocol's `operation` frame); `data.watcher` names the watcher.
   */
  v.object({ type: v.literal('dd:operation'), data: UpdateOperationSchema }),
]);
export type AgentEvent = v.InferOutput<typeof AgentEventSchema>;
/** The types above: an event of another type (a newer agent's) is skipped, not an error. */
export const AGENT_EVENT_TYPES: ReadonlySet<string> = new Set([
  'dd:ack',
  'dd:container-added',
  'dd:container-updated',
  'dd:container-removed',
  'dd:inventory-added',
  'dd:inventory-updated',
  'dd:inventory-removed',
  'dd:operation',
]);

/** GET /api/watchers items: http-interface §2.2, as the hub lists its own. */
export const AgentWatcherSchema = v.object({
  id: v.string(),
  /** Its Engine: `docker`, or `podman` (a Podman service's Docker-compatible socket, docs/sources.md). */
  type: v.picklist(ENGINE_WATCHER_TYPES),
  name: WatcherName,
  configuration: v.object({
    endpoint: v.pipe(v.string(), v.maxLength(256)),
    cron: v.pipe(v.string(), v.maxLength(256)),
    jitter: count,
    watchbydefault: v.boolean(),
    watchall: v.boolean(),
  }),
  metadata: v.object({
    lastRunAt: v.optional(v.string()),
    nextRunAt: v.optional(v.string()),
    inventoryRefreshSupported: v.boolean(),
  }),
});
export type AgentWatcher = v.InferOutput<typeof AgentWatcherSchema>;

/** POST /api/watchers/{type}/{name}/inventory: the http-interface §4.3 result, with the agent's container objects. */
export const AgentInventoryResultSchema = v.object({
  context: v.object({ operationId: OperationIdSchema, source: v.object({ type: v.string(), name: WatcherName }) }),
  containers: v.array(AgentContainerSchema),
  removedIds: v.array(v.string()),
  errors: v.array(v.object({ phase: v.string(), id: v.optional(v.string()), message: v.string() })),
  authoritative: v.boolean(),
});
export type AgentInventoryResult = v.InferOutput<typeof AgentInventoryResultSchema>;

/**
 * The answer to a container action (start, stop, restart: this agent's additions to http-interface §4.5): the
 * container re-inspected after it, whether or not it is still in the inventory (a stopped
 * container leaves it without WATCHALL); null when Docker no longer has it.
 */
export const AgentActionResultSchema = v.object({
  id: Id,
  watcher: WatcherName,
  container: v.nullable(AgentContainerSchema),
  /** Whether the container is in the watcher's inventory now. */
  listed: v.boolean(),
});
export type AgentActionResult = v.InferOutput<typeof AgentActionResultSchema>;

/**
 * POST /api/containers/{id}/update (this agent's addition): the edge protocol's `container.update`
 * as a body. The agent journals `operation` and runs the update engine; the answer is the settled operation.
 */
export const AgentUpdateRequestSchema = v.object({ operation: UpdateOperationSchema, options: UpdateOptionsSchema });
export type AgentUpdateRequest = v.InferOutput<typeof AgentUpdateRequestSchema>;

/**
 * GET /api/operations: the unfinished and recently settled update operations (what an edge agent
 * reports at each sign-in).
 */
export const AgentOperationsSchema = v.array(UpdateOperationSchema);

/** The longest pull a listen-mode agent runs (under the hub's own 10-minute wait, so its answer arrives first). */
export const AGENT_PULL_MAX_TIMEOUT_MS = 9 * 60_000;

/**
 * POST /api/images/pull (this agent's addition): the edge protocol's `image.pull` as a body. `auth`
 * is the hub's credentials for the reference's registry (used for this pull only); `timeoutMs`
 * shortens the agent's bound. The answer is the pulled image (ImageDetailsSchema).
 */
export const AgentImagePullRequestSchema = v.object({
  reference: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  auth: v.optional(PullAuthSchema),
  timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(AGENT_PULL_MAX_TIMEOUT_MS))),
});
export type AgentImagePullRequest = v.InferOutput<typeof AgentImagePullRequestSchema>;
