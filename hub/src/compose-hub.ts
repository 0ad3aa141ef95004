import type { Context } from 'hono';
import { ConfigError } from '../../shared/config/config-error';
import type { FetchLike } from '../../shared/registry/registry-transport';
import { containerIdentity } from '../../shared/update/update-clock';
import type { ShutdownLimits, UpdateOperation } from '../../shared/update-engine';
import { AgentDirectory } from './agents/agent-directory';
import { type AgentEvents, createAgentEvents } from './agents/agent-events';
import { createAgentRegistry } from './agents/agent-registry';
import { createInventoryExpectations, type InventoryExpectations } from './agents/inventory-expectations';
import { createPartyOf } from './approvals/approval-actors';
import { type ApprovalService, createApprovalService } from './approvals/approval-service';
import { createApiKeyAuthenticator } from './auth/api-key-auth';
import { createBasicCredentialAuthenticator } from './auth/basic-credential-auth';
import { createLoginVerifier } from './auth/login-service';
import { createOidcLogin } from './auth/oidc-login';
import { createSessionStore } from './auth/session-store';
import { createSignInLimits } from './auth/sign-in-limits';
import { FleetLookups } from './checks/fleet-lookups';
import { composeHttp, type HubApp, type HubRoutes } from './compose-http';
import { type ConfigurationSource, createConfigService } from './config/config-service';
import type { HubConfig } from './config/hub-config';
import { hubReconfiguration } from './config/hub-reconfiguration';
import type { RuntimeRefusal } from './config/runtime-capabilities';
import type { AuthorizedKey } from './edge/authorized-keys';
import type { EdgeTimings } from './edge/edge-session';
import { DEFAULT_EDGE_TIMINGS, EdgeSessions } from './edge/edge-sessions';
import { type ConnectedClients, createConnectedClients } from './events/connected-clients';
import { createEventBus, type EventBus, type Publish } from './events/event-bus';
import type { UiEventStreamSettings } from './events/sse-route';
import { RouteTable } from './http/route-table';
import { createWebSocketGate } from './http/websocket-upgrade';
import type { HubDeps } from './hub-deps';
import { createIconCache, type IconCacheLimits } from './icons/icon-cache';
import { createIconService } from './icons/icon-service';
import { type ListenAgents, startListenAgents } from './listen/listen-agents';
import { createHubMetrics, type HubMetrics } from './metrics/hub-metrics';
import { createNotifications } from './notifications/create-notifications';
import type {
  AnyNotificationProviderDefinition,
  NotificationProviderHooks,
} from './notifications/notification-provider';
import type { NotificationService } from './notifications/notification-service';
import type { OutboxTiming } from './notifications/outbox';
import { autoUpdatePolicyOf, groupApprovalPolicy } from './policies/effective-group-policy';
import { createGroupPolicyStore, type GroupPolicyStore } from './policies/group-policy-store';
import { createReadiness, STORE_GATE } from './readiness';
import type { LoadedRegistryProviders } from './registries/load-registry-providers';
import type { ProviderConnection } from './registries/registry-provider';
import { RegistryService } from './registries/registry-service';
import { createReleaseNotesService } from './release-notes/release-notes-service';
import { templateReleaseNotes } from './release-notes/template-release-notes';
import { createRolloutService, type RolloutService } from './rollouts/rollout-service';
import { createScheduler } from './schedule/scheduler';
import { timerWakeUp } from './schedule/timer-wake-up';
import { containerSbomSource } from './security/container-sbom-source';
import { createSbomService, type SbomService } from './security/sbom-service';
import { EXTERNAL_DIALECTS } from './security/scanners/external-dialects';
import { createExternalScanner, type ExternalScanner } from './security/scanners/external-scanner';
import type { ScannerProcess } from './security/scanners/vulnerability-scanner';
import { createSecurityService, type SbomSource, type SecurityService } from './security/security-service';
import { templateSecurity } from './security/template-security';
import { createApiKeyStore } from './store/api-key-store';
import { type AuditStore, createAuditStore } from './store/audit-store';
import { type ContainerStore, createContainerStore } from './store/container-store';
import { inventoryWriter } from './store/inventory-writer';
import { createLabelOverrideStore, type LabelOverrideStore } from './store/label-override-store';
import { createNotificationRuleStore } from './store/notification-rule-store';
import { createPreferencesStore } from './store/preferences-store';
import { createScheduleStore } from './store/schedule-store';
import { createSettingsStore } from './store/settings-store';
import type { UiSource } from './ui/ui-bundle';
import { type AutoUpdater, createAutoUpdater } from './updates/auto-update';
import { createDependencyGroupUpdates, type DependencyGroupUpdates } from './updates/dependency-group-updates';
import { pullAuthFor } from './updates/pull-auth';
import { createSelfUpdates } from './updates/self-update/self-update-service';
import type { UpdateServiceOptions } from './updates/update-context';
import { createUpdateService, type UpdateService } from './updates/update-service';
import { TagPolicyCache } from './watchers/container-check';
import { createFleet, type Fleet } from './watchers/fleet';
import { createMaturityLifts } from './watchers/maturity-lifts';
import { createWatcherFactory } from './watchers/watcher-factory';

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

/**
 * DD_SECURITY_SCANNER=trivy|grype: the tool runs as a process, which only the Node entry hands in;
 * elsewhere (Workers: no processes, no PATH) start-up is refused naming the variable.
 */
function externalScannerOf(
  name: HubConfig['security']['scanner'],
  input: HubInput,
  internetless: () => boolean,
): ExternalScanner | undefined {
  if (name !== 'trivy' && name !== 'grype') return undefined;
  const process = input.security?.scannerProcess;
  if (!process)
    throw new ConfigError(
      'DD_SECURITY_SCANNER',
      `${name} runs as a process on the hub's host, which the ${input.runtime} runtime cannot start; use osv (docs/security-scanning.md)`,
    );
  return createExternalScanner({
    dialect: EXTERNAL_DIALECTS[name],
    process,
    internetless,
    now: input.now ?? Date.now,
    toolVersion: input.version,
  });
}

/** The hub's long-lived parts, for its runtime entry, tests and benchmarks: no module receives this. */
export interface HubParts {
  config: HubConfig;
  storage: HubDeps['storage'];
  logger: HubDeps['logger'];
  logRing: HubDeps['logRing'];
  bootId: string;
  metrics: HubMetrics;
  audit: AuditStore;
  containers: ContainerStore;
  labelOverrides: LabelOverrideStore;
  fleet: Fleet;
  agents: AgentDirectory;
  expectations: InventoryExpectations;
  /** Undefined with DD_EXPERIMENTAL_EDGE=false: nothing of the edge transport runs. */
  edge: EdgeSessions | undefined;
  agentEvents: AgentEvents;
  events: EventBus;
  publish: Publish;
  connectedClients: ConnectedClients;
  notifications: NotificationService;
  updates: UpdateService;
  approvals: ApprovalService;
  groupPolicies: GroupPolicyStore;
  rollouts: RolloutService;
  autoUpdates: AutoUpdater;
  dependencyGroups: DependencyGroupUpdates;
  security: SecurityService;
  routes: HubRoutes;
  apiKeys: ReturnType<typeof createApiKeyStore>;
  notificationRules: ReturnType<typeof createNotificationRuleStore>;
  /** SBOMs of the containers' images (docs/security.md). */
  sbom: SbomService;
}

/**
 * A function bound after its caller is built: the back-edges of the hub's graph (Home Assistant's
 * Install button, inside notifications, queues an update; updates notify; approvals gate updates
 * and run them).
 */
function lateBinding<A extends unknown[], R>(
  name: string,
): { call: (...args: A) => R; bind: (target: (...args: A) => R) => void } {
  let target: ((...args: A) => R) | undefined;
  return {
    call: (...args) => {
      if (!target) throw new Error(`${name} was called before the hub was composed`);
      return target(...args);
    },
    bind: (next) => {
      target = next;
    },
  };
}

/** A composed hub: its HTTP app, its parts (for the entry, tests and benchmarks), its lifecycle. */
export interface Hub {
  app: HubApp;
  parts: HubParts;
  /** Loads stored state; /health reports 503 until it has finished. */
  start(): Promise<void>;
  /**
   * The first step of a shutdown (docs/operations.md "Shutdown"): /health answers 503, UI event
   * streams end, the update queue takes no job, and running updates get `limits` to settle.
   */
  drain(limits?: ShutdownLimits): Promise<void>;
  /** Drains (at once, unless drain() came first), then ends every capability in reverse order. */
  stop(): Promise<void>;
}

/**
 * The composition root: every capability of the hub, built here in dependency order from the
 * runtime's parts and the configuration, each handed exactly what its options type names. It
 * performs no I/O; start() loads stored state and starts the schedules, stop() ends them.
 */
export function composeHub(input: HubInput): Hub {
  const { config, storage, logger } = input;
  const now = input.now ?? Date.now;
  const clientAddress = (c: Context) => input.clientAddress?.(c);
  const bootId = crypto.randomUUID().slice(0, 8);
  const startedAt = now();
  const storeLogger = logger.child('store');

  // Observability and stores: they depend on nothing but the runtime.
  const metrics = createHubMetrics();
  const readiness = createReadiness();
  const audit = countedAudit(createAuditStore(storage, config.audit, now, storeLogger.child('audit')), metrics);
  const settings = createSettingsStore(storage, storeLogger);
  const apiKeys = createApiKeyStore(storage, now, storeLogger.child('api-keys'));
  const notificationRules = createNotificationRuleStore(storage, storeLogger);
  const containers = createContainerStore(storage, storeLogger.child('containers'));
  const labelOverrides = createLabelOverrideStore(storage, storeLogger.child('label-overrides'));
  const preferences = createPreferencesStore(storage, storeLogger);
  const sessions = createSessionStore(storage, now);
  const loginVerifier = createLoginVerifier(config.auth.basic, storage, now);
  const icons = createIconService({
    cache: createIconCache(storage, storeLogger.child('icons'), input.icons?.cacheLimits),
    bases: config.icons.bases,
    timeoutMs: config.icons.timeoutMs,
    internetless: () => settings.get().internetlessMode,
    fetch: input.icons?.fetch ?? ((request, init) => fetch(request, init)),
    now,
    logger: logger.child('icons'),
  });
  const sbom = createSbomService({ storage, logger: logger.child('sbom'), now });
  // One brute-force budget for every way a password is tried: the sign-in route and HTTP Basic.
  const signInLimits = createSignInLimits({ now, wait: input.signInWait });
  // The durable schedules: the runtime's one wake-up (a timer, or the Durable Object alarm).
  const scheduler = createScheduler({
    store: createScheduleStore(storage, storeLogger.child('schedule')),
    logger: logger.child('schedule'),
    now,
    random: Math.random,
    wakeUp: input.wakeUp ?? timerWakeUp,
    nextTurn: input.nextTurn,
  });

  // The UI event stream: capabilities publish, every open stream receives.
  const events = createEventBus({
    now,
    bootId,
    ...(input.uiEvents?.replayWindowMs !== undefined && { replayWindowMs: input.uiEvents.replayWindowMs }),
    ...(input.uiEvents?.maxBuffered !== undefined && { maxBuffered: input.uiEvents.maxBuffered }),
    onListenerError: (error, event) =>
      logger.child('events').warn('a UI event listener failed', { type: event.type, error: String(error) }),
  });
  const publish: Publish = (type, data) => {
    events.publish(type, data);
  };
  const connectedClients = createConnectedClients();
  // The hub's own container, where it runs in one and its runtime can start the helper (docs/updates.md "Self-update").
  const selfUpdates =
    input.selfUpdateHelper &&
    createSelfUpdates({
      storage,
      logger,
      now,
      publish,
      clients: connectedClients,
      audit,
      helperCommand: input.selfUpdateHelper,
      selfContainerId: input.selfContainerId,
      ackTimeoutMs: input.updates?.selfUpdateAckTimeoutMs,
    });

  // Registry access for update checks, shared by the whole fleet.
  const registryService =
    input.registries &&
    new RegistryService({
      providers: input.registries.configured,
      builtIn: input.registries.builtIn,
      fallback: input.registries.fallback,
      ...(input.registryFetch && { fetchFor: input.registryFetch }),
      onRequest: (event) => {
        metrics.registryRequests.inc({ host: event.host, status: String(event.status) });
        metrics.registryDuration.observe({ host: event.host }, event.durationMs / 1000);
      },
      timeoutMs: config.registry.timeoutMs,
      now,
    });
  const registries = input.registries &&
    registryService && {
      providers: input.registries,
      service: registryService,
      lookups: new FleetLookups(registryService, now, () => settings.get().internetlessMode),
    };

  // Approvals gate the updates, and an approval runs its update through them (another back-edge).
  const runApproved = lateBinding<[containerId: string], Promise<UpdateOperation>>('an approved update');
  const groupPolicies = createGroupPolicyStore(storage, storeLogger.child('group-policies'));
  const approvals = createApprovalService({
    groupPolicy: groupApprovalPolicy(groupPolicies),
    storage,
    logger,
    now,
    audit,
    containers,
    settings,
    publish,
    requestUpdate: runApproved.call,
    separateDuties: config.approvals.separate ? { partyOf: createPartyOf(apiKeys) } : undefined,
  });

  // Release notes, before the notifications: templates show the cached notes of an update's target.
  const releaseNotes = createReleaseNotesService({
    config: config.releaseNotes,
    registries: registries?.providers,
    internetless: () => settings.get().internetlessMode,
    fetch: (request, init) => fetch(request, init),
    now,
    logger: logger.child('release-notes'),
  });

  // Notifications. Their Install command reaches the updates built below (a back-edge).
  const installUpdate = lateBinding<[containerId: string], Promise<void>>('the Home Assistant Install command');
  const notifications = createNotifications({
    storage,
    config,
    runtimeProviders: input.notificationProviders,
    fetch: input.notificationFetch,
    timing: input.notificationTiming,
    audit,
    rules: notificationRules,
    containers,
    logger,
    now,
    onDeliveryAttempt: (trigger, result) => metrics.triggerDeliveries.inc({ trigger, result }),
    onInstall: installUpdate.call,
    schedule: scheduler,
    approvalOf: (container) => approvals.openFor(container),
    // The scanner is built after the notifications (it notifies through them): read at send time.
    securityOf: (container) => templateSecurity(security.scans.get(container.id)),
    releaseNotesOf: (container) => templateReleaseNotes(releaseNotes.cachedRelease(container)),
  });
  metrics.bindSources({
    containers: () => containers.all(),
    outboxStatuses: () => notifications.outbox.list().map((entry) => entry.status),
    updateFirstSeenAt: (container) => containers.identityState(containerIdentity(container)).clock?.firstSeenAt,
  });

  // The fleet and what agents tell about themselves, before the updates that read them.
  const fleet = createFleet();
  // A maturity-cleared when a gate lifts, not at the next cycle: the held containers are checked again then.
  const maturityLifts = createMaturityLifts({
    containers,
    fleet,
    schedule: scheduler,
    logger: logger.child('watchers'),
    now,
  });
  const agentRegistry = createAgentRegistry(storage, storeLogger.child('edge'));
  const expectations = createInventoryExpectations();
  const agentEvents = createAgentEvents((error, event) =>
    logger.child('edge').warn('an agent event listener failed', { event: event.event, error: String(error) }),
  );

  // Vulnerability scanning: its database, the scans, and the gate the updates pass.
  const external = externalScannerOf(config.security.scanner, input, () => settings.get().internetlessMode);
  const security = createSecurityService({
    config: config.security,
    storage,
    logger,
    now,
    audit,
    publish,
    notifications,
    containers,
    // The built-in generator reads the running image and the pulled candidate through their host.
    sbom:
      input.security?.sbom ??
      containerSbomSource({
        hosts: { fleet, agents: { isConnected: (name) => agents.isConnected(name) } },
        sbom,
        pullAuth: (reference) => pullAuthFor({ registries }, reference),
      }),
    internetless: () => settings.get().internetlessMode,
    // A download that stalls must not hold the refresh for ever (the next one would never start).
    fetch: input.security?.fetch ?? ((url) => fetch(url, { signal: AbortSignal.timeout(600_000) })),
    readFile: input.security?.readFile,
    external,
  });

  // Updates, then the policies that queue them. The action triggers are one array a reload replaces in place.
  const actionTriggers = [...config.actions];
  const updates = createUpdateService(
    {
      now,
      publish,
      fleet,
      agentDescriptions: agentRegistry,
      containers,
      audit,
      settings,
      notifications,
      registries,
      config,
      selfContainerId: input.selfContainerId,
      hookRunner: input.hookRunner,
      runtime: input.runtime,
      composeFiles: input.composeFiles,
      approvals,
      security: security.gate,
      selfUpdates,
    },
    { storage, logger, triggers: actionTriggers, options: input.updates },
  );
  runApproved.bind((containerId) => updates.requestUpdate(containerId, { source: 'api' }));
  installUpdate.bind(async (containerId) => {
    await updates.requestUpdate(containerId, { source: 'mqtt' });
  });
  const rollouts = createRolloutService({
    ...{ storage, logger, now, audit, publish, events, containers, settings, updates },
    schedule: scheduler,
    policies: groupPolicies,
  });
  const autoUpdates = createAutoUpdater({
    ...{ storage, logger, audit, containers, settings, updates, rollouts },
    policyOf: autoUpdatePolicyOf({
      store: groupPolicies,
      settings,
      firstSeenAt: (container) => containers.identityState(containerIdentity(container)).clock?.firstSeenAt,
      now,
    }),
  });
  const dependencyGroups = createDependencyGroupUpdates({ logger, now, containers, audit, events, publish, updates });

  // Watchers, the hub's and its agents', all built alike.
  const newWatcher = createWatcherFactory({
    containers,
    lookups: registries?.lookups,
    tagPolicies: new TagPolicyCache(),
    thresholdDays: config.ui.maturityThresholdDays,
    logger,
    now,
    publish,
    audit,
    writeInventory: inventoryWriter(storage, containers, audit, (entries) => {
      for (const entry of entries) metrics.auditEntries.inc({ action: entry.action });
    }),
    metrics,
    // Approvals first: a new candidate's approval exists before its update-available notification names it.
    notify: async (changes) => {
      maturityLifts.inventoryApplied(changes);
      await approvals.inventoryApplied(changes);
      await notifications.inventoryApplied(changes);
    },
    autoUpdate: (changes) => autoUpdates.inventoryApplied(changes),
    schedule: scheduler,
    labelOverrides: (record) => labelOverrides.resolve(containerIdentity(record), record),
  });
  const edgeTimings = { ...DEFAULT_EDGE_TIMINGS, ...input.edge?.timings };
  const agents = new AgentDirectory({
    registry: agentRegistry,
    logger,
    now,
    containers,
    audit,
    publish,
    agentEvents,
    fleet,
    newWatcher,
    expectations,
    requestTimeoutMs: edgeTimings.requestTimeoutMs,
    // Where edge sockets hibernate, no interval of the directory may keep the object awake.
    scheduledLastSeen: input.edgeSockets && scheduler,
  });
  agents.reserveListenNames(config.agents.map((agent) => agent.name));
  metrics.bindSources({
    agents: () => agentRegistry.all().map(({ name }) => ({ name, connected: agents.isConnected(name) })),
  });
  // DD_EXPERIMENTAL_EDGE=false: no endpoint, no key routes (404), and nothing of the edge runs.
  const edge = config.edge.enabled
    ? new EdgeSessions({
        storage,
        logger,
        now,
        version: input.version,
        directory: agents,
        expectations,
        timings: edgeTimings,
        signInLimits: config.edge.signInLimits,
        setFrameLimit: input.setWebSocketFrameLimit,
        socketsHibernate: input.edgeSockets !== undefined,
        gatewayPort: input.edgeGateways,
        verifyEd25519: input.verifyEd25519,
        nextTurn: input.nextTurn,
        pauseReading: input.pauseWebSocketReading,
      })
    : undefined;
  // Listen-mode agents (DD_AGENT_<NAME>_*) are not the experimental edge: the directory serves them either way.
  const agentsEnabled = config.edge.enabled || config.agents.length > 0;
  let listenAgents: ListenAgents | undefined;

  // GET/PUT /api/v1/config: the file's variables, and a reload re-creating watchers, triggers and registries.
  const configuration = createConfigService({
    source: input.configuration ?? { env: {}, readTextFile: NO_FILES },
    config,
    logger: logger.child('config'),
    prepare: hubReconfiguration({
      config,
      fleet,
      newWatcher,
      dockerHostFor: input.dockerHostFor,
      notifications,
      actionTriggers,
      registries,
      fetch: (request, init) => fetch(request, init),
      now,
      logger: logger.child('config'),
    }),
  });

  // Every route, filled by composeHttp; the key authenticator asks it which routes read their own tokens.
  const routes = new RouteTable();
  const http = composeHttp({
    input,
    config,
    logger,
    now,
    clientAddress,
    bootId,
    startedAt,
    metrics,
    readiness,
    audit,
    settings,
    apiKeys,
    notificationRules,
    containers,
    labelOverrides,
    preferences,
    sessions,
    icons,
    sbom,
    loginVerifier,
    signInLimits,
    events,
    publish,
    connectedClients,
    selfUpdates,
    registries,
    notifications,
    releaseNotes,
    fleet,
    agents,
    expectations,
    edge,
    updates,
    approvals,
    groupPolicies,
    rollouts,
    dependencyGroups,
    configuration,
    security,
    routes,
    apiKeyAuth: createApiKeyAuthenticator({ apiKeys, routes, now, logger, audit, clientAddress }),
    basicAuth: createBasicCredentialAuthenticator({
      verifier: loginVerifier,
      signInLimits,
      now,
      logger,
      audit,
      clientAddress,
    }),
    // OIDC providers are reached with the runtime's fetch (Node's honours NODE_EXTRA_CA_CERTS).
    oidc: createOidcLogin(config.auth.oidc, input.oidcFetch ?? ((request, init) => fetch(request, init)), now),
    webSockets: createWebSocketGate({ upgradeWebSocket: input.upgradeWebSocket, config, now, clientAddress }),
  });
  const parts: HubParts = {
    config,
    storage,
    logger,
    logRing: input.logRing,
    bootId,
    metrics,
    audit,
    containers,
    labelOverrides,
    fleet,
    agents,
    expectations,
    edge,
    agentEvents,
    events,
    publish,
    connectedClients,
    notifications,
    updates,
    approvals,
    groupPolicies,
    rollouts,
    autoUpdates,
    dependencyGroups,
    security,
    routes: http.routes,
    apiKeys,
    notificationRules,
    sbom,
  };

  readiness.add(STORE_GATE);
  let draining: Promise<void> | undefined;
  const drain = (limits?: ShutdownLimits): Promise<void> => {
    draining ??= (async () => {
      readiness.add('stopping');
      // Open UI streams would otherwise hold the server's close open until their clients left.
      events.closeAll();
      // Running updates settle (or roll back once signalled) while the watchers' hosts are still open.
      await dependencyGroups.stop();
      // No rollout requests an update past here: the next start carries each on from storage.
      await rollouts.stop();
      selfUpdates?.stop();
      await updates.drain(limits);
    })();
    return draining;
  };
  return {
    app: http.app,
    parts,
    async start() {
      if (config.anonymous) {
        logger.warn('no authentication is configured: every route is open (anonymous mode)', {
          host: config.server.host,
        });
      }
      if (config.unknownVariables.length > 0) {
        logger.warn('ignoring unknown configuration variables', { variables: config.unknownVariables });
      }
      try {
        await settings.load();
        await notificationRules.load();
        await audit.load();
        await apiKeys.load();
        await containers.load();
        await labelOverrides.load();
        await notifications.load();
        await updates.load();
        await approvals.load();
        await groupPolicies.load();
        await rollouts.load();
        await autoUpdates.load();
        await security.load();
        await scheduler.load();
        if (agentsEnabled) await agents.load();
        await loadEdge(input, edge);
        readiness.markReady(STORE_GATE);
      } catch (error) {
        readiness.markFailed(STORE_GATE, (error as Error).message);
        throw error;
      }
      // Outbox entries left by the previous run are delivered now; agent events are routed from here on.
      notifications.start();
      agentEvents.on((event) => {
        void notifications.agentEvent(event);
      });
      // One Docker watcher per configured endpoint, where the runtime can reach Docker at all.
      const dockerHostFor = input.dockerHostFor;
      if (dockerHostFor) {
        for (const watcherConfig of config.watchers) {
          const watcher = newWatcher(watcherConfig, dockerHostFor(watcherConfig.endpoint));
          fleet.add(watcher);
          watcher.start();
        }
      }
      if (config.agents.length > 0) {
        listenAgents = startListenAgents(
          { logger, now, directory: agents, expectations, registryFetch: input.registryFetch, timings: edgeTimings },
          config.agents,
        );
      }
      maturityLifts.start();
      // The OSV database is imported in the background (a download must not hold the start), and refreshed.
      security.start();
      if (config.security.osv.url !== undefined && config.security.osv.refreshHours > 0)
        scheduler.job('security.osv-refresh', () => security.refreshDatabase(), {
          everyMs: config.security.osv.refreshHours * 3_600_000,
          jitterMs: 60_000,
        });
      // Retention (DD_AUDIT_*) also holds on a hub that writes no audit entries for days.
      scheduler.job('audit.retention', () => audit.prune(), { everyMs: HOUSEKEEPING_EVERY_MS, jitterMs: 60_000 });
      // A session nobody uses again is never resolved, so never found expired on read.
      scheduler.job('sessions.expiry', () => sessions.sweep(), { everyMs: HOUSEKEEPING_EVERY_MS, jitterMs: 60_000 });
      // Hibernating edge sockets have no ticker (it would keep the object awake): their sign-in
      // deadlines have timers, and silence is checked once per silence limit, so a silent agent
      // goes within two limits rather than decisions §6's one: fewer wakes (docs/workers.md "Edge sockets").
      // Where gateways hold the sockets they check them: the hub object is not woken for it.
      if (edge && input.edgeSockets && !input.edgeGateways)
        scheduler.job('edge.liveness', async () => edge.sweep(), { everyMs: edgeTimings.silenceLimitMs });
      // Every job is defined: the wake-up is armed at the earliest (one missed while down runs now).
      scheduler.start();
      // Unfinished updates are settled on the watchers' hosts (in the background: Docker may be slow to answer).
      await updates.start();
      // Rollouts go on after the updates they follow are recovered (docs/group-policies.md "Staged rollouts").
      rollouts.follow();
      await selfUpdates?.load();
    },
    drain,
    async stop() {
      await drain();
      await updates.stop();
      await selfUpdates?.idle();
      // The directory first: links it closes now are the hub going away, not agents leaving.
      await agents.stop();
      edge?.stop();
      await listenAgents?.stop();
      await Promise.all(fleet.all().map((watcher) => watcher.stop()));
      await Promise.all(fleet.all().map((watcher) => watcher.host.close()));
      await security.stop();
      await notifications.stop();
      maturityLifts.stop();
      await scheduler.stop();
      await apiKeys.flush();
    },
  };
}

/** The `<NAME>__FILE` reader of a hub given no configuration source: there is no such variable to read. */
const NO_FILES = (path: string): string => {
  throw new Error(`no file ${path}: this hub was given no configuration source`);
};

/** How often the audit trail is pruned (besides every append) and expired sessions deleted. */
const HOUSEKEEPING_EVERY_MS = 3_600_000;

/** Every writer of the audit trail counted in dd_audit_entries_total without each one remembering. */
function countedAudit(audit: AuditStore, metrics: HubMetrics): AuditStore {
  return {
    ...audit,
    append: async (record) => {
      const entry = await audit.append(record);
      metrics.auditEntries.inc({ action: entry.action });
      return entry;
    },
    appendMany: async (records) => {
      const added = await audit.appendMany(records);
      for (const entry of added) metrics.auditEntries.inc({ action: entry.action });
      return added;
    },
  };
}

/** Stored edge keys, and the keys of DD_EDGE_AUTHORIZED_KEYS as the runtime read them. */
async function loadEdge(input: HubInput, edge: EdgeSessions | undefined): Promise<void> {
  const { config, logger } = input;
  const file = config.edge.authorizedKeysFile;
  if (file !== undefined && !config.edge.enabled)
    logger.warn('DD_EDGE_AUTHORIZED_KEYS is ignored: DD_EXPERIMENTAL_EDGE is false');
  else if (file !== undefined && input.edge?.authorizedKeys === undefined) {
    logger.warn(
      'DD_EDGE_AUTHORIZED_KEYS is ignored: this runtime reads no files; register keys with POST /api/v1/edge/keys',
    );
  }
  await edge?.load(input.edge?.authorizedKeys);
}
