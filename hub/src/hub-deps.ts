import type { Context } from 'hono';
import type { UpgradeWebSocket, WSContext } from 'hono/ws';
import type { Storage } from 'unstorage';
import type { ComposeFileEditor } from '../../shared/compose';
import type { DockerHost } from '../../shared/docker/docker-host';
import type { DockerEndpoint } from '../../shared/docker/watcher-config';
import type { FetchLike } from '../../shared/registry/registry-transport';
import type { HubConfig } from './config/hub-config';
import type { AuthorizedKey } from './edge/authorized-keys';
import type { EdgeTimings } from './edge/edge-session';
import type { UiEventStreamSettings } from './events/sse-route';
import type { LogRing } from './logging/log-ring';
import type { Logger } from './logging/logger';
import type { AnyNotificationProviderDefinition, NotificationProviderHooks } from './notifications/notification-provider';
import type { OutboxTiming } from './notifications/outbox';
import type { LoadedRegistryProviders } from './registries/load-registry-providers';
import type { ProviderConnection } from './registries/registry-provider';
import type { HookRunner } from './updates/hook-runner';
import type { UpdateServiceOptions } from './updates/update-context';

/** Everything the portable core needs from its runtime; the entry points build it. */
export interface HubDeps {
  config: HubConfig;
  storage: Storage;
  logger: Logger;
  logRing: LogRing;
  /** Product version from package.json. */
  version: string;
  runtime: 'node' | 'workers' | 'test';
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Present where the runtime can upgrade to WebSocket; WebSocket routes answer 501 otherwise. */
  upgradeWebSocket?: UpgradeWebSocket<unknown> | undefined;
  /**
   * Sets one socket's frame cap in the runtime's WebSocket parser, where it has one per socket
   * (Node: every socket starts at the edge protocol's pre-sign-in cap, and a signed-in agent's is
   * raised). Absent (Workers): frames arrive whole, and the edge session measures each itself.
   */
  setWebSocketFrameLimit?: ((ws: WSContext, maxBytes: number) => void) | undefined;
  /** Registry providers from DD_REGISTRY_*; the built-in public ones when absent. */
  registries?: LoadedRegistryProviders | undefined;
  /** The runtime's fetch for a registry connection (Node binds a CA file); the global fetch otherwise. */
  registryFetch?: ((connection: ProviderConnection) => FetchLike) | undefined;
  /**
   * The fetch that reaches OpenID Connect providers (discovery, token, JWKS, userinfo); the global
   * fetch when absent, which on Node trusts NODE_EXTRA_CA_CERTS besides the system CAs.
   */
  oidcFetch?: FetchLike | undefined;
  /** A Docker Engine client for a watcher's endpoint (Node: the edge agent's Docker module); no watchers without it. */
  dockerHostFor?: ((endpoint: DockerEndpoint) => DockerHost) | undefined;
  /** Deadline of an inventory refresh (spec 4.3: 30 s); shorter in tests. */
  inventoryDeadlineMs?: number | undefined;
  /** Runtime-specific Prometheus text appended to /metrics (process metrics on Node). */
  runtimeMetrics?: (() => Promise<string>) | undefined;
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
  /** UI event stream tuning (heartbeat, caps, replay ring); the spec's values when absent. */
  uiEvents?: UiEventStreamSettings | undefined;
  /**
   * Edge agents: the keys of DD_EDGE_AUTHORIZED_KEYS (the runtime reads and parses the file), and
   * the protocol's timings (heartbeat, silence, sign-in deadline, command deadline), shorter in tests.
   */
  edge?: { authorizedKeys?: AuthorizedKey[] | undefined; timings?: Partial<EdgeTimings> | undefined } | undefined;
  /**
   * Notification trigger types of this runtime besides the portable ones of
   * notifications/providers/index.ts (Node: smtp, mqtt, which need sockets); a type given here
   * replaces a built-in one of the same name.
   */
  notificationProviders?: ((hooks: NotificationProviderHooks) => AnyNotificationProviderDefinition[]) | undefined;
  /** The fetch notification triggers deliver with; the global fetch when absent. */
  notificationFetch?: typeof fetch | undefined;
  /** The outbox's retry schedule (attempts, backoff, jitter); shorter in tests. */
  notificationTiming?: Partial<Omit<OutboxTiming, 'timeoutMs'>> | undefined;
  /** Container updates: concurrency, health polling, and the journal hook crash tests pause at. */
  updates?: UpdateServiceOptions | undefined;
  /** Runs dd.hook.pre / dd.hook.post commands on the hub's host (Node); hooks are refused where absent. */
  hookRunner?: HookRunner | undefined;
  /** The id of the container the hub runs in, where it runs in one (Node reads it from /proc): never updated by the hub. */
  selfContainerId?: string | undefined;
  /** Brings compose files to the new image after an update (Node); compose files are left alone where absent (Workers). */
  composeFiles?: ComposeFileEditor | undefined;
}
