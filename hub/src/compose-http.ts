import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import type { AgentDirectory } from './agents/agent-directory';
import type { InventoryExpectations } from './agents/inventory-expectations';
import type { ApprovalService } from './approvals/approval-service';
import type { ApiKeyAuthenticator } from './auth/api-key-auth';
import type { BasicCredentialAuthenticator } from './auth/basic-credential-auth';
import type { LoginVerifier } from './auth/login-service';
import type { OidcLogin } from './auth/oidc-login';
import { ANONYMOUS, UNAUTHENTICATED } from './auth/principal';
import { applySession } from './auth/session-auth';
import type { SessionStore } from './auth/session-store';
import type { SignInLimits } from './auth/sign-in-limits';
import type { FleetLookups } from './checks/fleet-lookups';
import type { ConfigService } from './config/config-service';
import type { HubConfig } from './config/hub-config';
import type { RuntimeRefusal } from './config/runtime-capabilities';
import { registerEdgeEndpoint } from './edge/edge-endpoint';
import type { EdgeSessions } from './edge/edge-sessions';
import type { ConnectedClients } from './events/connected-clients';
import type { EventBus, Publish } from './events/event-bus';
import { registerUiEventRoutes } from './events/sse-route';
import { MAX_BODY_BYTES } from './http/body-size';
import { cors } from './http/cors';
import { crossSiteGuard } from './http/cross-site-guard';
import { jsonErrorHandler, notFoundOrMethodNotAllowed } from './http/error-handlers';
import { errorBody } from './http/http-error';
import { httpMetrics } from './http/http-metrics';
import type { HubEnv } from './http/hub-env';
import { compatMethods, compatRouteOf, compatTwinPath, legacyApiGuard } from './http/legacy-api';
import { createPrincipalRelay } from './http/principal-relay';
import { createRouteGroup } from './http/route-group';
import type { RouteTable } from './http/route-table';
import { serverRateLimit } from './http/server-rate-limit';
import type { WebSocketGate } from './http/websocket-upgrade';
import type { HubDeps } from './hub-deps';
import type { IconService } from './icons/icon-service';
import type { HubMetrics } from './metrics/hub-metrics';
import type { NotificationService } from './notifications/notification-service';
import type { GroupPolicyStore } from './policies/group-policy-store';
import { type Readiness, STORE_GATE } from './readiness';
import type { LoadedRegistryProviders } from './registries/load-registry-providers';
import type { RegistryService } from './registries/registry-service';
import { type ReleaseNotesService, releaseNotesOf } from './release-notes/release-notes-service';
import type { RolloutService } from './rollouts/rollout-service';
import { registerAgentRoutes } from './routes/agent-routes';
import { registerApiDocsRoute } from './routes/api-docs-routes';
import { registerApiKeyRoutes } from './routes/api-key-routes';
import { registerApprovalRoutes } from './routes/approval-routes';
import { registerAuditRoutes } from './routes/audit-routes';
import { registerAuthOidcRoutes } from './routes/auth-oidc-routes';
import { registerAuthSessionRoutes } from './routes/auth-session-routes';
import { registerAuthStatusRoutes } from './routes/auth-status-routes';
import { registerBulkUpdateRoutes } from './routes/bulk-update-routes';
import { registerConfigRoutes } from './routes/config-routes';
import { registerContainerActionRoutes } from './routes/container-action-routes';
import { registerContainerLogRoutes } from './routes/container-log-routes';
import { registerContainerRoutes } from './routes/container-routes';
import { registerContainerSbomRoutes } from './routes/container-sbom-routes';
import { registerContainerStatsRoutes } from './routes/container-stats-routes';
import { registerDependencyGroupRoutes } from './routes/dependency-group-routes';
import { registerEdgeKeyRoutes } from './routes/edge-key-routes';
import { registerGroupPolicyRoutes } from './routes/group-policy-routes';
import { registerAppRoutes, registerHealthRoute } from './routes/health-routes';
import { registerIconRoutes } from './routes/icon-routes';
import { registerImageRoutes } from './routes/image-routes';
import { registerLabelOverrideRoutes } from './routes/label-override-routes';
import { registerLogRoutes } from './routes/log-routes';
import { registerMetricsRoute } from './routes/metrics-routes';
import { registerNotificationRoutes } from './routes/notification-routes';
import { registerOpenApiRoute } from './routes/openapi-routes';
import { registerPreferencesRoutes } from './routes/preferences-routes';
import { registerRegistryRoutes } from './routes/registry-routes';
import { registerReleaseNotesRoutes } from './routes/release-notes-routes';
import { registerRolloutRoutes } from './routes/rollout-routes';
import { registerSecurityRoutes } from './routes/security-routes';
import { registerSelfUpdateRoutes } from './routes/self-update-routes';
import { registerSettingsRoutes } from './routes/settings-routes';
import { registerSystemRoutes } from './routes/system-routes';
import { registerTriggerRoutes } from './routes/trigger-routes';
import { registerUpdatePreviewRoutes } from './routes/update-preview-routes';
import { registerUpdateRoutes } from './routes/update-routes';
import { registerWatcherRoutes } from './routes/watcher-routes';
import type { SbomService } from './security/sbom-service';
import type { SecurityService } from './security/security-service';
import type { ApiKeyStore } from './store/api-key-store';
import type { AuditStore } from './store/audit-store';
import type { ContainerStore } from './store/container-store';
import type { LabelOverrideStore } from './store/label-override-store';
import type { NotificationRuleStore } from './store/notification-rule-store';
import type { PreferencesStore } from './store/preferences-store';
import type { SettingsStore } from './store/settings-store';
import type { UiSource } from './ui/ui-bundle';
import { registerUiRoutes } from './ui/ui-routes';
import type { DependencyGroupUpdates } from './updates/dependency-group-updates';
import type { SelfUpdates } from './updates/self-update/self-update-service';
import type { UpdateService } from './updates/update-service';
import type { Fleet } from './watchers/fleet';
import { registerActionWebhookRoutes } from './webhooks/action-webhook-routes';
import { registerRegistryWebhookRoute } from './webhooks/registry-webhook-routes';

export const API_BASE = '/api/v1';

export type HubApp = Hono<HubEnv>;
export type HubRoutes = RouteTable;

/**
 * The HTTP half of the composition root: what compose-hub.ts built, handed on here to mount the
 * middleware and every route group, each given exactly what its options type names.
 */
export interface HttpParts {
  input: Pick<
    HubDeps,
    | 'logRing'
    | 'version'
    | 'runtime'
    | 'storageDriver'
    | 'dropConnection'
    | 'runtimeMetrics'
    | 'edgeSockets'
    | 'hookRunner'
  > & {
    uiEvents?: Parameters<typeof registerUiEventRoutes>[1]['uiEvents'];
    inventoryDeadlineMs?: number | undefined;
    ui?: UiSource | undefined;
    refusedVariables?: readonly RuntimeRefusal[] | undefined;
  };
  config: HubConfig;
  logger: HubDeps['logger'];
  now: () => number;
  clientAddress: (c: Context) => string | undefined;
  bootId: string;
  startedAt: number;
  metrics: HubMetrics;
  readiness: Readiness;
  audit: AuditStore;
  settings: SettingsStore;
  apiKeys: ApiKeyStore;
  notificationRules: NotificationRuleStore;
  containers: ContainerStore;
  labelOverrides: LabelOverrideStore;
  preferences: PreferencesStore;
  sessions: SessionStore;
  icons: IconService;
  sbom: SbomService;
  loginVerifier: LoginVerifier;
  signInLimits: SignInLimits;
  events: EventBus;
  publish: Publish;
  connectedClients: ConnectedClients;
  /** The hub's own container swapped by a helper; undefined where it runs in none (Workers). */
  selfUpdates: SelfUpdates | undefined;
  registries: { providers: LoadedRegistryProviders; service: RegistryService; lookups: FleetLookups } | undefined;
  notifications: NotificationService;
  /** Built with the notifications, whose templates read its cache. */
  releaseNotes: ReleaseNotesService;
  fleet: Fleet;
  agents: AgentDirectory;
  expectations: InventoryExpectations;
  edge: EdgeSessions | undefined;
  updates: UpdateService;
  approvals: ApprovalService;
  groupPolicies: GroupPolicyStore;
  rollouts: RolloutService;
  dependencyGroups: DependencyGroupUpdates;
  configuration: ConfigService;
  security: SecurityService;
  /** Filled here with every route; the authenticator reads it at request time. */
  routes: RouteTable;
  apiKeyAuth: ApiKeyAuthenticator;
  /** HTTP Basic, accepted on the compatibility routes only (DD_COMPAT_WUDCARD). */
  basicAuth: BasicCredentialAuthenticator;
  oidc: OidcLogin;
  webSockets: WebSocketGate;
}

export function composeHttp(parts: HttpParts): { app: HubApp; routes: HubRoutes } {
  const {
    input,
    config,
    logger,
    now,
    clientAddress,
    audit,
    containers,
    fleet,
    agents,
    notifications,
    updates,
    registries,
  } = parts;
  const { apiKeyAuth, basicAuth, sessions } = parts;
  const { routes } = parts;
  const app = new Hono<HubEnv>();
  const hosts = { fleet, agents };
  const principals = createPrincipalRelay();

  app.use(requestId());
  app.use(secureHeaders({ crossOriginResourcePolicy: false }));
  app.use(
    httpMetrics(parts.metrics, {
      routeOf: (path, method) => {
        const twin = compatTwinPath(path, config.compat.wudCard);
        return routes.routeOf(twin ?? path, method)?.fullPath;
      },
    }),
  );
  // Before authentication: a preflight carries no credential (docs/cors.md).
  app.use(
    cors({
      origins: config.server.corsOrigins,
      methodsOf: (path) => [...routes.allowedMethods(path), ...compatMethods(path, config.compat.wudCard)],
    }),
  );
  // The listener opens before the stores load (so /health can say 503). A write taken meanwhile would
  // be dropped from memory by its store's load, and a read would show half the state: the API and
  // its WebSockets wait (spec §2.15: 503 while readiness gates are unmet). Before authentication,
  // which reads the API keys and sessions being loaded.
  app.use('/api/*', async function holdUntilLoaded(c, next) {
    if (parts.readiness.passed(STORE_GATE)) return next();
    c.header('Retry-After', '1');
    return c.json(
      errorBody(503, 'The hub is starting: its stored state is not loaded yet', {
        gates: parts.readiness.snapshot(),
      }),
      503,
    );
  });
  app.use(async function authenticate(c, next) {
    // A compatibility request's /api/v1 twin: its caller was authenticated on the way in.
    const forwarded = principals.take(c.req.raw);
    if (forwarded) {
      c.set('principal', forwarded);
      c.set('compatTwin', true);
      return next();
    }
    c.set('principal', config.anonymous ? ANONYMOUS : UNAUTHENTICATED);
    // A failed key credential ends the request here: it is never retried against a session cookie.
    const keyResult = await apiKeyAuth.authenticate(c);
    if (keyResult instanceof Response) return keyResult;
    // The What's Up Docker clients send a basic user's password with every request (decisions §4 users).
    const basicResult =
      keyResult || config.anonymous || !compatRouteOf(config.compat.wudCard, c.req.method, c.req.path)
        ? undefined
        : await basicAuth.authenticate(c);
    if (basicResult instanceof Response) return basicResult;
    if (keyResult) c.set('principal', keyResult);
    else if (basicResult) c.set('principal', basicResult);
    else if (!config.anonymous) {
      // A session cookie; routes then answer 401 to a caller with neither.
      const refused = await applySession(c, { config }, sessions);
      if (refused) return refused;
    }
    await next();
  });
  app.use(serverRateLimit({ config, now, routes, clientAddress }));
  app.use(crossSiteGuard(config.server.trustProxy, config.server.corsOrigins));
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => {
      // The rest of the body is never read, so the connection cannot carry another request.
      c.header('Connection', 'close');
      return c.json(
        errorBody(413, `The request body exceeds ${MAX_BODY_BYTES} bytes`, { maxBytes: MAX_BODY_BYTES }),
        413,
      );
    },
  });
  app.use(async function limitRequestBody(c, next) {
    // Reading c.req.raw.body on a bodiless GET makes node-server build a full Request with an
    // AbortSignal per call, which under load halved throughput and grew memory (bench finding).
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return limitBody(c, next);
  });
  const legacy = legacyApiGuard({
    compatWudCard: config.compat.wudCard,
    dispatch: async (request, env) => app.fetch(request, env),
    principals,
  });
  app.use('/api', legacy);
  app.use('/api/*', legacy);

  const root = createRouteGroup(routes, '');
  const api = createRouteGroup(routes, API_BASE);
  registerHealthRoute(root, { readiness: parts.readiness, now, startedAt: parts.startedAt });
  registerMetricsRoute(root, { config, metrics: parts.metrics, runtimeMetrics: input.runtimeMetrics });
  registerAuthStatusRoutes(api, root, { config }, parts.oidc);
  registerAuthSessionRoutes(
    api,
    { config, verifier: parts.loginVerifier, signInLimits: parts.signInLimits, logger, clientAddress, audit },
    sessions,
  );
  registerAuthOidcRoutes(api, { config, logger, now, clientAddress, audit }, sessions, parts.oidc);
  registerPreferencesRoutes(api, { preferences: parts.preferences, publish: parts.publish });
  const server = {
    version: input.version,
    runtime: input.runtime,
    storageDriver: input.storageDriver ?? config.store.driver,
    refusedVariables: input.refusedVariables ?? [],
    bootId: parts.bootId,
    startedAt: parts.startedAt,
    now,
    readiness: parts.readiness,
    config,
  };
  registerAppRoutes(api, server);
  registerSystemRoutes(api, {
    server,
    settings: parts.settings,
    containers,
    audit,
    apiKeys: parts.apiKeys,
    icons: parts.icons,
    logRing: input.logRing,
    registries,
    notifications,
    updates,
    fleet,
    agents,
    hooksAvailable: input.hookRunner !== undefined,
    configuration: parts.configuration,
  });
  registerSettingsRoutes(api, { settings: parts.settings, audit, logger });
  registerConfigRoutes(api, { configuration: parts.configuration, runtime: input.runtime });
  registerLogRoutes(api, { webSockets: parts.webSockets, logRing: input.logRing, logger });
  registerUiEventRoutes(api, {
    events: parts.events,
    connectedClients: parts.connectedClients,
    logger,
    runtime: input.runtime,
    clientAddress,
    dropConnection: input.dropConnection,
    uiEvents: input.uiEvents,
  });
  registerSelfUpdateRoutes(api, { selfUpdates: parts.selfUpdates });
  registerAuditRoutes(api, { audit });
  registerApiKeyRoutes(api, { apiKeys: parts.apiKeys, now, audit });
  registerNotificationRoutes(api, { notifications, notificationRules: parts.notificationRules, now });
  registerTriggerRoutes(api, { notifications, updates, containers, now });
  registerRemovedStatsAlias(api);
  // Before the container routes: `/containers/backups` must not be taken for a container id.
  registerUpdateRoutes(api, { updates, containers });
  registerApprovalRoutes(api, { approvals: parts.approvals, separateDuties: config.approvals.separate });
  registerGroupPolicyRoutes(api, {
    ...{ containers, settings: parts.settings, audit, publish: parts.publish, now },
    policies: parts.groupPolicies,
  });
  registerRolloutRoutes(api, { rollouts: parts.rollouts });
  registerImageRoutes(api, { fleet, updates });
  const { releaseNotes } = parts;
  registerUpdatePreviewRoutes(api, { updates, audit, releaseNotes: releaseNotesOf(containers, releaseNotes) });
  registerBulkUpdateRoutes(api, { updates, containers, events: parts.events, publish: parts.publish, now });
  registerDependencyGroupRoutes(api, { config, dependencyGroups: parts.dependencyGroups });
  registerSecurityRoutes(api, { containers, security: parts.security, now, clientAddress });
  registerContainerRoutes(api, {
    ...hosts,
    containers,
    audit,
    registries,
    now,
    publish: parts.publish,
    notifications,
    updates,
    security: parts.security,
  });
  registerLabelOverrideRoutes(api, {
    ...hosts,
    containers,
    approvalLabelNeedsAdmin: config.approvals.separate,
    labelOverrides: parts.labelOverrides,
    audit,
    publish: parts.publish,
    now,
    logger,
  });
  registerContainerActionRoutes(api, {
    ...hosts,
    containers,
    config,
    logger,
    audit,
    publish: parts.publish,
    now,
    clientAddress,
  });
  registerContainerLogRoutes(api, { ...hosts, containers, logger, webSockets: parts.webSockets });
  registerContainerStatsRoutes(api, { ...hosts, containers, logger, now, runtime: input.runtime });
  registerContainerSbomRoutes(api, { ...hosts, containers, logger, sbom: parts.sbom, version: input.version });
  registerWatcherRoutes(api, {
    fleet,
    config,
    agents,
    expectations: parts.expectations,
    inventoryDeadlineMs: input.inventoryDeadlineMs,
  });
  registerAgentRoutes(api, { agents });
  if (parts.edge) {
    registerEdgeEndpoint(api, {
      upgradeWebSocket: parts.webSockets.upgradeWebSocket,
      hibernatable: input.edgeSockets,
      clientAddress,
      config,
      now,
      edge: parts.edge,
    });
    registerEdgeKeyRoutes(api, { edge: parts.edge, audit, logger });
  }
  registerRegistryRoutes(api, { registries });
  registerIconRoutes(api, { icons: parts.icons, audit, logger });
  registerReleaseNotesRoutes(api, { containers, releaseNotes });
  const webhookGuard = { config, now, clientAddress };
  registerActionWebhookRoutes(api, {
    ...webhookGuard,
    ...hosts,
    logger,
    metrics: parts.metrics,
    audit,
    containers,
    registries,
    updates,
  });
  registerRegistryWebhookRoute(api, {
    ...webhookGuard,
    ...hosts,
    logger,
    metrics: parts.metrics,
    containers,
    registries,
  });
  registerOpenApiRoute(api, { routes, version: input.version });
  registerApiDocsRoute(api, { ui: input.ui });
  app.route('/', root.app);
  app.route(API_BASE, api.app);
  // Last: the page answers only what no route did (a navigation to a client-side route).
  if (input.ui) registerUiRoutes(app, { ui: input.ui });
  app.notFound(notFoundOrMethodNotAllowed(routes));
  app.onError(jsonErrorHandler(logger.child('http')));
  return { app, routes };
}

/** GET /api/v1/containers/stats: the legacy aggregate path, gone for good (410 with its replacement). */
function registerRemovedStatsAlias(api: ReturnType<typeof createRouteGroup>): void {
  api.add(
    {
      method: 'get',
      path: '/containers/stats',
      access: 'public',
      tag: 'containers',
      summary: 'Removed: the legacy aggregate stats path; use /api/v1/stats/summary',
      deprecated: true,
      removed: true,
      statuses: { 410: 'Always: the path was removed; details.replacement names its successor' },
    },
    (c) =>
      c.json(
        errorBody(410, 'This aggregate stats path was removed. Use /api/v1/stats/summary.', {
          replacement: '/api/v1/stats/summary',
        }),
        410,
      ),
  );
}
