import type { Context } from 'hono';
import type { UpgradeWebSocket, WSContext } from 'hono/ws';
import type { Storage } from 'unstorage';
import type { ComposeFileEditor } from '../../shared/compose';
import type { DockerHost } from '../../shared/docker/docker-host';
import type { SwarmEngine } from '../../shared/docker/swarm-engine';
import type { DockerEndpoint } from '../../shared/docker/watcher-config';
import type { Ed25519Verify } from '../../shared/edge/sign-in';
import type { ResponseCompression } from '../../shared/http/response-compression';
import type { LogRing } from '../../shared/logging/log-ring';
import type { Logger } from '../../shared/logging/logger';
import type { ExpositionFormat } from '../../shared/metrics/exposition-format';
import type { FetchLike } from '../../shared/registry/registry-transport';
import type { SourceFilesFor } from '../../shared/sources/source-files';
import type { HookRunner } from '../../shared/update/hooks';

/**
 * An edge socket whose owner may hibernate: the runtime keeps the connection, the hub keeps the
 * session's record with it (Workers: `serializeAttachment`).
 */
export interface HibernatableEdgeSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Keeps the session's record (small: at most 2,048 bytes on Workers) with the socket. */
  saveRecord(record: object): void;
  /** What saveRecord stored, unvalidated (it is read back from the runtime). */
  loadRecord(): unknown;
  /** When the runtime last answered the agent's ping by itself (ms since the epoch), if ever. */
  autoAnsweredAt(): number | undefined;
}

/**
 * The runtime's edge gateways, as the hub reaches them (Workers with DD_EDGE_GATEWAY_SHARDS): each
 * holds agents' sockets, one session per socket, named by the gateway and the session's id. A
 * send to a session the gateway no longer holds resolves false.
 */
export interface EdgeGatewayPort {
  send(gateway: string, session: string, frames: readonly unknown[]): Promise<boolean>;
  close(gateway: string, session: string, code: number, reason: string): Promise<void>;
  /** A key was revoked: every gateway closes its sessions (4002) and forgets the key. */
  revoked(keyId: string): Promise<void>;
  /**
   * A key was registered: the gateways named (`'all'`: every one) forget that they did not know it
   * (an agent may be retrying now); an empty list tells none.
   */
  registered(keyId: string, gateways: readonly string[] | 'all'): Promise<void>;
}

/** The runtime's upgrade to a hibernatable socket: it accepts the socket, then hands it to `open`, and returns the 101. */
export interface HibernatableEdgeUpgrader {
  upgrade(c: Context, subprotocolToken: string, open: (socket: HibernatableEdgeSocket) => void): Response;
}

/**
 * The runtime's one wake-up for the hub's durable schedules (hub/src/schedule/scheduler.ts): `set`
 * arms a single wake in `delayMs` (replacing the one armed before; undefined disarms), at which the
 * runtime calls the `fire` it was built with and awaits it. Relative, so a scheduler on an injected
 * clock arms the runtime's real one.
 */
export interface RuntimeWakeUp {
  set(delayMs: number | undefined): Promise<void>;
}

/**
 * The runtime boundary: what the portable core needs from the runtime it runs on (Node, workerd,
 * a test), and nothing else. The entries build it. It names no feature of the hub, so a runtime
 * never depends on how the hub is put together (docs/architecture.md "The dependency rule").
 */
export interface HubDeps {
  storage: Storage;
  logger: Logger;
  logRing: LogRing;
  /** Product version from package.json. */
  version: string;
  runtime: 'node' | 'workers' | 'test';
  /**
   * The storage as GET /api/v1/server names it, where the runtime decides it rather than
   * DD_STORE_DRIVER (Workers: durable-object); DD_STORE_DRIVER's value when absent.
   */
  storageDriver?: string | undefined;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /**
   * The wake-up of the durable schedules (watch cycles, outbox retries, digests). Workers: the
   * Durable Object alarm, which re-creates an evicted object. A timer of the process when absent
   * (Node, tests): the schedules resume from storage when the process starts again.
   */
  wakeUp?: ((fire: () => Promise<void>) => RuntimeWakeUp) | undefined;
  /** Present where the runtime can upgrade to WebSocket; WebSocket routes answer 501 otherwise. */
  upgradeWebSocket?: UpgradeWebSocket<unknown> | undefined;
  /**
   * Where the runtime can hibernate edge sockets (Workers: the Durable Object's acceptWebSocket):
   * the edge endpoint upgrades through it, and the runtime routes the sockets' events to
   * `Hub.parts.edge.sockets` (open, message, closed, resume). Absent (Node): upgradeWebSocket.
   */
  edgeSockets?: HibernatableEdgeUpgrader | undefined;
  /**
   * Where agents' sockets terminate in edge gateways in front of the hub (Workers with
   * DD_EDGE_GATEWAY_SHARDS; docs/workers.md "Edge gateways"): how the hub reaches them. The runtime
   * routes the gateways' requests to `Hub.parts.edge.gateways`.
   */
  edgeGateways?: EdgeGatewayPort | undefined;
  /**
   * Sets one socket's frame cap in the runtime's WebSocket parser, where it has one per socket
   * (Node: every socket starts at the edge protocol's pre-sign-in cap, and a signed-in agent's is
   * raised). Absent (Workers): frames arrive whole, and the edge session measures each itself.
   */
  setWebSocketFrameLimit?: ((ws: WSContext, maxBytes: number) => void) | undefined;
  /**
   * A native, synchronous Ed25519 verification for edge sign-ins (Node: node:crypto, about 25×
   * faster than @noble/ed25519 in JS); noble where absent.
   */
  verifyEd25519?: Ed25519Verify | undefined;
  /**
   * Runs work on the loop's next turn, after pending I/O (Node: setImmediate): edge frames are then
   * handled in slices (hub/src/edge/frame-pacer.ts) and due jobs started one a turn
   * (hub/src/schedule/scheduler.ts), so a fleet dialling at once does not hold the loop.
   */
  nextTurn?: ((work: () => void) => void) | undefined;
  /** Stops and restarts reading one WebSocket (Node: ws's pause/resume), for edge sessions behind on their frames. */
  pauseWebSocketReading?: ((ws: WSContext, paused: boolean) => void) | undefined;
  /**
   * The fetch that reaches OpenID Connect providers (discovery, token, JWKS, userinfo); the global
   * fetch when absent, which on Node trusts NODE_EXTRA_CA_CERTS besides the system CAs.
   */
  oidcFetch?: FetchLike | undefined;
  /** The fetch notification triggers deliver with; the global fetch when absent. */
  notificationFetch?: typeof fetch | undefined;
  /** A Docker Engine client for a watcher's endpoint (Node: the edge agent's Docker module); no watchers without it. */
  dockerHostFor?: ((endpoint: DockerEndpoint) => DockerHost) | undefined;
  /** A Podman service's Docker-compatible socket for a podman watcher (docs/sources.md; Node: the edge agent's Docker module); no podman watchers without it. */
  podmanHostFor?: ((endpoint: DockerEndpoint) => DockerHost) | undefined;
  /** A Swarm manager's Engine API for a swarm watcher (docs/sources.md; Node: the edge agent's Docker module); no swarm watchers without it. */
  swarmEngineFor?: ((endpoint: DockerEndpoint) => SwarmEngine) | undefined;
  /** The files of a file source (docs/sources.md; Node: node-source-files.ts); no file sources without it. */
  sourceFilesFor?: SourceFilesFor | undefined;
  /**
   * Runtime-specific metric families appended to /metrics in the negotiated format, without
   * OpenMetrics's `# EOF` (the route ends the exposition): process metrics on Node.
   */
  runtimeMetrics?: ((format: ExpositionFormat) => Promise<string>) | undefined;
  /**
   * The caller's address, for per-address limits; the runtime knows the socket (Node honours
   * DD_SERVER_TRUSTPROXY). Absent or undefined: every caller shares one bucket.
   */
  clientAddress?: ((c: Context) => string | undefined) | undefined;
  /**
   * Drops the request's connection at once (Node: destroys the socket), for a stream that must cut
   * off a client without the runtime reporting an error; streams error themselves where absent.
   */
  dropConnection?: ((c: Context) => void) | undefined;
  /** Runs dd.hook.pre / dd.hook.post commands on the hub's host (Node); hooks are refused where absent. */
  hookRunner?: HookRunner | undefined;
  /** The id of the container the hub runs in, where it runs in one (Node reads it from /proc): never updated by the hub. */
  selfContainerId?: string | undefined;
  /**
   * The command that runs the self-update helper in the hub's image (Node: this node and bundle with
   * --self-update-helper); absent (Workers, or outside a container) the hub's container is not updated by it.
   */
  selfUpdateHelper?: readonly string[] | undefined;
  /** Brings compose files to the new image after an update (Node); compose files are left alone where absent (Workers). */
  composeFiles?: ComposeFileEditor | undefined;
  /**
   * How JSON answers are compressed (Node: brotli and gzip from zlib); CompressionStream's gzip where
   * absent. Workers passes `platformCompression`: the platform compresses on the way out.
   */
  responseCompression?: ResponseCompression | undefined;
}
