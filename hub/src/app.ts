import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { createApiKeyAuthenticator } from './auth/api-key-auth';
import { ANONYMOUS, UNAUTHENTICATED } from './auth/principal';
import { applySession } from './auth/session-auth';
import { createSessionStore } from './auth/session-store';
import { registerUiEventRoutes } from './events/sse-route';
import { jsonErrorHandler, notFoundOrMethodNotAllowed } from './http/error-handlers';
import { errorBody } from './http/http-error';
import { httpMetrics } from './http/http-metrics';
import type { HubEnv } from './http/hub-env';
import { legacyApiGuard } from './http/legacy-api';
import { createRouteGroup } from './http/route-group';
import type { HubDeps } from './hub-deps';
import { createHubServices, type HubServices } from './hub-services';
import { registerApiKeyRoutes } from './routes/api-key-routes';
import { registerAuditRoutes } from './routes/audit-routes';
import { registerAuthSessionRoutes } from './routes/auth-session-routes';
import { registerAuthStatusRoutes } from './routes/auth-status-routes';
import { registerContainerActionRoutes } from './routes/container-action-routes';
import { registerContainerLogRoutes } from './routes/container-log-routes';
import { registerContainerRoutes } from './routes/container-routes';
import { registerContainerStatsRoutes } from './routes/container-stats-routes';
import { registerAppRoutes, registerHealthRoute } from './routes/health-routes';
import { registerLogRoutes } from './routes/log-routes';
import { registerMetricsRoute } from './routes/metrics-routes';
import { registerNotificationRoutes } from './routes/notification-routes';
import { registerOpenApiRoute } from './routes/openapi-routes';
import { registerPreferencesRoutes } from './routes/preferences-routes';
import { registerRegistryRoutes } from './routes/registry-routes';
import { registerSettingsRoutes } from './routes/settings-routes';
import { registerWatcherRoutes } from './routes/watcher-routes';
import { DockerWatcher } from './watchers/docker-watcher';

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
    });
    services.watchers.push(watcher);
    watcher.start();
  }
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
  registerAuthStatusRoutes(api, root, services);
  registerAuthSessionRoutes(api, services, sessions);
  registerPreferencesRoutes(api, services);
  registerAppRoutes(api, services);
  registerSettingsRoutes(api, services);
  registerLogRoutes(api, services);
  registerUiEventRoutes(api, services);
  registerAuditRoutes(api, services);
  registerApiKeyRoutes(api, services);
  registerNotificationRoutes(api, services);
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
  registerContainerRoutes(api, services);
  registerContainerActionRoutes(api, services);
  registerContainerLogRoutes(api, services);
  registerContainerStatsRoutes(api, services);
  registerWatcherRoutes(api, services);
  registerRegistryRoutes(api, services);
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
        readiness.markReady('store');
      } catch (error) {
        readiness.markFailed('store', (error as Error).message);
        throw error;
      }
      startWatchers(services);
    },
    async stop() {
      readiness.add('stopping');
      // Open UI streams would otherwise hold the server's close open until their clients left.
      services.events.closeAll();
      await Promise.all(services.watchers.map((watcher) => watcher.stop()));
      await Promise.all(services.watchers.map((watcher) => watcher.host.close()));
      await services.apiKeys.flush();
    },
  };
}
