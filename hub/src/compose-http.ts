import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { ANONYMOUS, UNAUTHENTICATED } from './auth/principal';
import { applySession } from './auth/session-auth';
import { registerEdgeEndpoint } from './edge/edge-endpoint';
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
import { compressResponses, webStreamCompression } from './http/response-compression';
import { createRouteGroup } from './http/route-group';
import type { RouteTable } from './http/route-table';
import { serverRateLimit } from './http/server-rate-limit';
import { createWebSocketGate, type WebSocketGate } from './http/websocket-upgrade';
import type { HubParts } from './hub-capabilities';
import { STORE_GATE } from './readiness';
import { releaseNotesOf } from './release-notes/release-notes-service';
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
import { registerUiRoutes } from './ui/ui-routes';
import { registerActionWebhookRoutes } from './webhooks/action-webhook-routes';
import { registerRegistryWebhookRoute } from './webhooks/registry-webhook-routes';

export const API_BASE = '/api/v1';

export type HubApp = Hono<HubEnv>;
export type HubRoutes = RouteTable;

type RouteGroup = ReturnType<typeof createRouteGroup>;

/**
 * The HTTP half of the composition root: the middleware chain and every route group, mounted on
 * the parts compose-hub.ts built, each route group given exactly what its options type names.
 * Routes are mounted here rather than by each capability because their order is part of the
 * interface: the first match answers (`/containers/backups` before `/containers/{id}`), and the
 * OpenAPI document lists them as mounted.
 */
export function composeHttp(parts: HubParts): { app: HubApp; routes: HubRoutes } {
  const { input, config, now, clientAddress, routes } = parts;
  const app = new Hono<HubEnv>();
  const principals = createPrincipalRelay();
  useMiddleware(app, parts, principals);
  const root = createRouteGroup(routes, '');
  const api = createRouteGroup(routes, API_BASE);
  const webSockets = createWebSocketGate({ upgradeWebSocket: input.upgradeWebSocket, config, now, clientAddress });
  registerServerRoutes(root, api, parts, webSockets);
  registerUpdatePolicyRoutes(api, parts);
  registerFleetRoutes(api, parts, webSockets);
  registerIntegrationRoutes(api, parts);
  app.route('/', root.app);
  app.route(API_BASE, api.app);
  // Last: the page answers only what no route did (a navigation to a client-side route).
  if (input.ui) registerUiRoutes(app, { ui: input.ui });
  app.notFound(notFoundOrMethodNotAllowed(routes));
  app.onError(jsonErrorHandler(parts.logger.child('http')));
  return { app, routes };
}

/** The middleware chain every request passes, outermost first. */
function useMiddleware(app: HubApp, parts: HubParts, principals: ReturnType<typeof createPrincipalRelay>): void {
  const { input, config, now, clientAddress, routes } = parts;
  const { apiKeyAuth, basicAuth, sessions } = parts;
  app.use(requestId());
  // Outermost but one: every JSON answer, errors from the middleware below included (issue 30 item 4).
  app.use(compressResponses(input.responseCompression ?? webStreamCompression));
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
}

/** The hub itself: health, metrics, sign-in, preferences, the server's settings, logs, events, keys and notifications. */
function registerServerRoutes(root: RouteGroup, api: RouteGroup, parts: HubParts, webSockets: WebSocketGate): void {
  const { input, config, logger, now, clientAddress, audit, containers, fleet, agents } = parts;
  const { notifications, updates, registries, sessions } = parts;
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
    selfContainer: () => (input.selfContainerId === undefined ? undefined : containers.get(input.selfContainerId)),
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
  registerLogRoutes(api, { webSockets: webSockets, logRing: input.logRing, logger });
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
}

/** Updates and the policies around them: approvals, group policies, rollouts, previews, bulk and group updates, scans. */
function registerUpdatePolicyRoutes(api: RouteGroup, parts: HubParts): void {
  const { config, now, clientAddress, audit, containers, fleet, updates } = parts;
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
}

/** Containers, watchers and agents: what the fleet runs, and the actions on it. */
function registerFleetRoutes(api: RouteGroup, parts: HubParts, webSockets: WebSocketGate): void {
  const { input, config, logger, now, clientAddress, audit, containers, fleet, agents } = parts;
  const { notifications, updates, registries } = parts;
  const hosts = { fleet, agents };
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
  registerContainerLogRoutes(api, { ...hosts, containers, logger, webSockets: webSockets });
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
      upgradeWebSocket: webSockets.upgradeWebSocket,
      hibernatable: input.edgeSockets,
      clientAddress,
      config,
      now,
      edge: parts.edge,
    });
    registerEdgeKeyRoutes(api, { edge: parts.edge, audit, logger });
  }
}

/** What the hub reaches or is reached by: registries, icons, release notes, webhooks, and the API's own description. */
function registerIntegrationRoutes(api: RouteGroup, parts: HubParts): void {
  const { input, config, logger, now, clientAddress, audit, containers, fleet, agents, updates, registries } = parts;
  const { releaseNotes, routes } = parts;
  const hosts = { fleet, agents };
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
