import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { createApiKeyAuthenticator } from './auth/api-key-auth';
import { createOidcLogin } from './auth/oidc-login';
import { ANONYMOUS, UNAUTHENTICATED } from './auth/principal';
import { applySession } from './auth/session-auth';
import { createSessionStore } from './auth/session-store';
import { registerEdgeEndpoint } from './edge/edge-endpoint';
import { EdgeHub } from './edge/edge-hub';
import { type ListenAgents, startListenAgents } from './edge/listen-agents';
import { registerUiEventRoutes } from './events/sse-route';
import { crossSiteGuard } from './http/cross-site-guard';
import { jsonErrorHandler, notFoundOrMethodNotAllowed } from './http/error-handlers';
import { errorBody } from './http/http-error';
import { httpMetrics } from './http/http-metrics';
import type { HubEnv } from './http/hub-env';
import { legacyApiGuard } from './http/legacy-api';
import { createRouteGroup } from './http/route-group';
import { serverRateLimit } from './http/server-rate-limit';
import type { HubDeps } from './hub-deps';
import { createHubServices, type HubServices } from './hub-services';
import { watchCycleRecorder } from './metrics/hub-metrics';
import { registerAgentRoutes } from './routes/agent-routes';
import { registerApiKeyRoutes } from './routes/api-key-routes';
import { registerAuditRoutes } from './routes/audit-routes';
import { registerAuthOidcRoutes } from './routes/auth-oidc-routes';
import { registerAuthSessionRoutes } from './routes/auth-session-routes';
import { registerAuthStatusRoutes } from './routes/auth-status-routes';
import { registerBulkUpdateRoutes } from './routes/bulk-update-routes';
import { registerContainerActionRoutes } from './routes/container-action-routes';
import { registerContainerLogRoutes } from './routes/container-log-routes';
import { registerContainerRoutes } from './routes/container-routes';
import { registerContainerStatsRoutes } from './routes/container-stats-routes';
import { registerDependencyGroupRoutes } from './routes/dependency-group-routes';
import { registerEdgeKeyRoutes } from './routes/edge-key-routes';
import { registerAppRoutes, registerHealthRoute } from './routes/health-routes';
import { registerImageRoutes } from './routes/image-routes';
import { registerLogRoutes } from './routes/log-routes';
import { registerMetricsRoute } from './routes/metrics-routes';
import { registerNotificationRoutes } from './routes/notification-routes';
import { registerOpenApiRoute } from './routes/openapi-routes';
import { registerPreferencesRoutes } from './routes/preferences-routes';
import { registerRegistryRoutes } from './routes/registry-routes';
import { registerSettingsRoutes } from './routes/settings-routes';
import { registerTriggerRoutes } from './routes/trigger-routes';
import { registerUpdatePreviewRoutes } from './routes/update-preview-routes';
import { registerUpdateRoutes } from './routes/update-routes';
import { registerWatcherRoutes } from './routes/watcher-routes';
import { DockerWatcher } from './watchers/docker-watcher';
import { registerActionWebhookRoutes } from './webhooks/action-webhook-routes';
import { registerRegistryWebhookRoute } from './webhooks/registry-webhook-routes';

export const API_BASE = '/api/v1';

/** One Docker watcher per configured endpoint, where the runtime can reach Docker at all. */
function startWatchers(services: HubServices): void {
  const { deps, config } = services;
  if (!deps.dockerHostFor) return;
  for (const watcherConfig of config.watchers) {
    const watcher = new DockerWatcher({
      config: watcherConfig,
      host: deps.dockerHostFor(watcherConfig.endpoint),
      store: services.containers,
      lookups: services.registries?.lookups,
      policies: services.tagPolicies,
      thresholdDays: config.ui.maturityThresholdDays,
      logger: services.logger.child(`watcher.docker.${watcherConfig.name}`),
      now: services.now,
      publish: (type, data) => services.publish(type, data),
      audit: (record) => services.audit.append(record),
      notify: (changes) => services.notifications.inventoryApplied(changes),
      autoUpdate: (changes) => services.autoUpdates.inventoryApplied(changes),
      onCycle: watchCycleRecorder(services.metrics, watcherConfig.name, undefined),
    });
    services.watchers.push(watcher);
    watcher.start();
  }
}

/** Stored edge keys and agents, and the keys of DD_EDGE_AUTHORIZED_KEYS as the runtime read them. */
async function loadEdge(services: HubServices): Promise<void> {
  const { config, deps, logger } = services;
  const file = config.edge.authorizedKeysFile;
  if (file !== undefined && !config.edge.enabled) logger.warn('DD_EDGE_AUTHORIZED_KEYS is ignored: DD_EXPERIMENTAL_EDGE is false');
  else if (file !== undefined && deps.edge?.authorizedKeys === undefined) {
    logger.warn('DD_EDGE_AUTHORIZED_KEYS is ignored: this runtime reads no files; register keys with POST /api/v1/edge/keys');
  }
  await services.edge?.load(deps.edge?.authorizedKeys);
}

export const MAX_BODY_BYTES = 1024 * 1024;

export interface Hub {
  app: Hono<HubEnv>;
  services: HubServices;
  /** Loads stored state; /health reports 503 until it has finished. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The portable hub: every route, on any runtime. It performs no I/O until start() is called;
 * the runtime entry provides storage, logging, the clock and WebSocket upgrades.
 */
export function createHubApp(deps: HubDeps): Hub {
  const services = createHubServices(deps);
  const { config, logger, routes, readiness } = services;
  const app = new Hono<HubEnv>();

  app.use(requestId());
  app.use(secureHeaders({ crossOriginResourcePolicy: false }));
  app.use(httpMetrics(services.metrics));
  const apiKeyAuth = createApiKeyAuthenticator(services);
  const sessions = createSessionStore(deps.storage, services.now);
  app.use(async function authenticate(c, next) {
    c.set('principal', config.anonymous ? ANONYMOUS : UNAUTHENTICATED);
    // A failed key credential ends the request here: it is never retried against a session cookie (spec 5.4).
    const keyResult = await apiKeyAuth.authenticate(c);
    if (keyResult instanceof Response) return keyResult;
    if (keyResult) c.set('principal', keyResult);
    else if (!config.anonymous) {
      // A session cookie (decisions §4); routes then answer 401 to a caller with neither.
      const refused = await applySession(c, services, sessions);
      if (refused) return refused;
    }
    await next();
  });
  app.use(serverRateLimit(services));
  app.use(crossSiteGuard(config.server.trustProxy));
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => {
      // The rest of the body is never read, so the connection cannot carry another request.
      c.header('Connection', 'close');
      return c.json(errorBody(413, `The request body exceeds ${MAX_BODY_BYTES} bytes`, { maxBytes: MAX_BODY_BYTES }), 413);
    },
  });
  app.use(async function limitRequestBody(c, next) {
    // Reading c.req.raw.body on a bodiless GET makes node-server build a full Request with an
    // AbortSignal per call, which under load halved throughput and grew memory (bench finding).
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return limitBody(c, next);
  });
  const legacy = legacyApiGuard({ compatWudCard: config.compat.wudCard, dispatch: async (request, env) => app.fetch(request, env) });
  app.use('/api', legacy);
  app.use('/api/*', legacy);

  const root = createRouteGroup(routes, '');
  const api = createRouteGroup(routes, API_BASE);
  registerHealthRoute(root, services);
  registerMetricsRoute(root, services);
  // OIDC providers reach out with the runtime's fetch (Node's honours NODE_EXTRA_CA_CERTS).
  const oidc = createOidcLogin(config.auth.oidc, deps.oidcFetch ?? ((input, init) => fetch(input, init)), services.now);
  registerAuthStatusRoutes(api, root, services, oidc);
  registerAuthSessionRoutes(api, services, sessions);
  registerAuthOidcRoutes(api, services, sessions, oidc);
  registerPreferencesRoutes(api, services);
  registerAppRoutes(api, services);
  registerSettingsRoutes(api, services);
  registerLogRoutes(api, services);
  registerUiEventRoutes(api, services);
  registerAuditRoutes(api, services);
  registerApiKeyRoutes(api, services);
  registerNotificationRoutes(api, services);
  registerTriggerRoutes(api, services);
  api.add(
    {
      method: 'get',
      path: '/containers/stats',
      access: 'public',
      tag: 'containers',
      summary: 'Removed: the legacy aggregate stats path; use /api/v1/stats/summary',
      deprecated: true,
      statuses: { 410: 'Always' },
    },
    (c) =>
      c.json(
        errorBody(410, 'This aggregate stats path was removed. Use /api/v1/stats/summary.', { replacement: '/api/v1/stats/summary' }),
        410,
      ),
  );
  // Before the container routes: `/containers/backups` must not be taken for a container id.
  registerUpdateRoutes(api, services);
  registerImageRoutes(api, services);
  registerUpdatePreviewRoutes(api, services);
  registerBulkUpdateRoutes(api, services);
  registerDependencyGroupRoutes(api, services);
  registerContainerRoutes(api, services);
  registerContainerActionRoutes(api, services);
  registerContainerLogRoutes(api, services);
  registerContainerStatsRoutes(api, services);
  registerWatcherRoutes(api, services);
  registerAgentRoutes(api, services);
  // DD_EXPERIMENTAL_EDGE=false: no endpoint, no key routes (404), and nothing of the edge runs.
  // Listen-mode agents (DD_AGENT_<NAME>_*) are not the experimental edge: they keep the agents' hub.
  if (config.edge.enabled || config.agents.length > 0) {
    services.edge = new EdgeHub(services, deps.edge?.timings);
    services.edge.reserveListenNames(config.agents.map((agent) => agent.name));
  }
  if (config.edge.enabled && services.edge) {
    registerEdgeEndpoint(api, services, services.edge);
    registerEdgeKeyRoutes(api, services, services.edge);
  }
  let listenAgents: ListenAgents | undefined;
  registerRegistryRoutes(api, services);
  registerActionWebhookRoutes(api, services);
  registerRegistryWebhookRoute(api, services);
  registerOpenApiRoute(api, services);
  app.route('/', root.app);
  app.route(API_BASE, api.app);
  app.notFound(notFoundOrMethodNotAllowed(routes));
  app.onError(jsonErrorHandler(logger.child('http')));

  readiness.add('store');
  return {
    app,
    services,
    async start() {
      if (config.anonymous) {
        logger.warn('no authentication is configured: every route is open (anonymous mode)', { host: config.server.host });
      }
      if (config.unknownVariables.length > 0) {
        logger.warn('ignoring unknown configuration variables', { variables: config.unknownVariables });
      }
      try {
        await services.settings.load();
        await services.notificationRules.load();
        await services.audit.load();
        await services.apiKeys.load();
        await services.containers.load();
        await services.notifications.load();
        await services.updates.load();
        await services.autoUpdates.load();
        await loadEdge(services);
        readiness.markReady('store');
      } catch (error) {
        readiness.markFailed('store', (error as Error).message);
        throw error;
      }
      // Outbox entries left by the previous run are delivered now; agent events are routed from here on.
      services.notifications.start();
      services.agentEvents.on((event) => {
        void services.notifications.agentEvent(event);
      });
      startWatchers(services);
      if (services.edge && config.agents.length > 0) listenAgents = startListenAgents(services, services.edge, config.agents);
      // Unfinished updates are settled on the watchers' hosts (in the background: Docker may be slow to answer).
      await services.updates.start();
    },
    async stop() {
      readiness.add('stopping');
      // Open UI streams would otherwise hold the server's close open until their clients left.
      services.events.closeAll();
      // Running updates roll back at their next phase boundary while the watchers' hosts are still open.
      await services.dependencyGroups.stop();
      await services.updates.stop();
      await services.edge?.stop();
      // After the edge hub: an agent whose stream ends now is not reported as gone (the hub is).
      await listenAgents?.stop();
      await Promise.all(services.watchers.map((watcher) => watcher.stop()));
      await Promise.all(services.watchers.map((watcher) => watcher.host.close()));
      await services.notifications.stop();
      await services.apiKeys.flush();
    },
  };
}
