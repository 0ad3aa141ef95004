import type { FetchLike } from '../../shared/registry/registry-transport';
import type { ConfigurationSource } from './config/config-service';
import type { HubConfig } from './config/hub-config';
import type { RuntimeRefusal } from './config/runtime-capabilities';
import type { AuthorizedKey } from './edge/authorized-keys';
import type { EdgeTimings } from './edge/edge-session';
import type { UiEventStreamSettings } from './events/sse-route';
import type { HubDeps } from './hub-deps';
import type { IconCacheLimits } from './icons/icon-cache';
import type {
  AnyNotificationProviderDefinition,
  NotificationProviderHooks,
} from './notifications/notification-provider';
import type { OutboxTiming } from './notifications/outbox';
import type { LoadedRegistryProviders } from './registries/load-registry-providers';
import type { ProviderConnection } from './registries/registry-provider';
import type { ScannerProcess } from './security/scanners/vulnerability-scanner';
import type { SbomSource } from './security/security-service';
import type { UiSource } from './ui/ui-bundle';
import type { UpdateServiceOptions } from './updates/update-context';

/**
 * What the hub is told besides its runtime: the parsed configuration, and the tuning each
 * capability takes (the values of docs/http-interface.md when absent; shorter in tests).
 */
export interface HubOptions {
  config: HubConfig;
  /** Variables this runtime cannot honour, left out of `config` (Workers: smtp, Docker sockets…); GET /api/v1/server lists them. */
  refusedVariables?: readonly RuntimeRefusal[] | undefined;
  /** Registry providers from DD_REGISTRY_*; no update checks without them. */
  registries?: LoadedRegistryProviders | undefined;
  /** The runtime's fetch for a registry connection (Node binds a CA file); the global fetch otherwise. */
  registryFetch?: ((connection: ProviderConnection) => FetchLike) | undefined;
  /** How the sign-in slow-down waits (a timer); tests pass one that moves their clock (docs/security.md). */
  signInWait?: ((ms: number) => Promise<void>) | undefined;
  /** Deadline of an inventory refresh (30 s). */
  inventoryDeadlineMs?: number | undefined;
  /** UI event stream tuning (heartbeat, caps, replay ring). */
  uiEvents?: UiEventStreamSettings | undefined;
  /** The keys of DD_EDGE_AUTHORIZED_KEYS (the runtime reads and parses the file), and the protocol's timings. */
  edge?: { authorizedKeys?: AuthorizedKey[] | undefined; timings?: Partial<EdgeTimings> | undefined } | undefined;
  /** Notification trigger types of this runtime besides the portable ones (Node: smtp, mqtt). */
  notificationProviders?: ((hooks: NotificationProviderHooks) => AnyNotificationProviderDefinition[]) | undefined;
  /** The outbox's retry schedule (attempts, backoff, jitter). */
  notificationTiming?: Partial<Omit<OutboxTiming, 'timeoutMs'>> | undefined;
  /** Container updates: concurrency, health polling, and the journal hook crash tests pause at. */
  updates?: UpdateServiceOptions | undefined;
  /**
   * The web UI served at `/` (scripts/build-ui.mjs builds it; the entry hands it over, so the core
   * reads no file), or why there is none (the page then says so). Absent: no UI routes at all.
   */
  ui?: UiSource | undefined;
  /** Bounds of the icon cache (500 icons, 16 MiB) and the fetch that reaches the icon sets (the global one). */
  icons?: { cacheLimits?: IconCacheLimits | undefined; fetch?: typeof fetch | undefined } | undefined;
  /** The environment and DD_CONFIG_FILE the configuration was read from, for /api/v1/config (none: an empty environment). */
  configuration?: ConfigurationSource | undefined;
  /**
   * Vulnerability scanning (docs/security-scanning.md): the SBOM source the scanner reads images
   * with (absent: the scan routes answer 400 "scanner not configured"), how the runtime reads
   * DD_SECURITY_OSV_FILE (absent on Workers), the fetch that downloads DD_SECURITY_OSV_URL and the
   * runner of a Trivy or Grype binary.
   */
  security?:
    | {
        sbom?: SbomSource | undefined;
        readFile?: ((path: string) => Promise<Uint8Array>) | undefined;
        fetch?: ((url: string) => Promise<Response>) | undefined;
        /** Runs DD_SECURITY_SCANNER=trivy|grype (Node only: a runtime without it refuses them at start). */
        scannerProcess?: ScannerProcess | undefined;
      }
    | undefined;
}

export type HubInput = HubDeps & HubOptions;
