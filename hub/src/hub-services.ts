import type { Context } from 'hono';
import type { LogRing } from '../../shared/logging/log-ring';
import type { Logger } from '../../shared/logging/logger';
import { type AgentEvents, createAgentEvents } from './agents/agent-events';
import { FleetLookups } from './checks/fleet-lookups';
import type { HubConfig } from './config/hub-config';
import type { EdgeHub } from './edge/edge-hub';
import { type ConnectedClients, createConnectedClients } from './events/connected-clients';
import { createEventBus, type EventBus, type Publish } from './events/event-bus';
import { RouteTable } from './http/route-table';
import type { HubDeps } from './hub-deps';
import { createHubMetrics, type HubMetrics } from './metrics/hub-metrics';
import { createNotifications } from './notifications/create-notifications';
import type { NotificationService } from './notifications/notification-service';
import { createReadiness, type Readiness } from './readiness';
import type { LoadedRegistryProviders } from './registries/load-registry-providers';
import { RegistryService } from './registries/registry-service';
import type { AgentPresence } from './routes/container-target';
import { type ApiKeyStore, createApiKeyStore } from './store/api-key-store';
import { type AuditStore, createAuditStore } from './store/audit-store';
import { type ContainerStore, createContainerStore } from './store/container-store';
import { createNotificationRuleStore, type NotificationRuleStore } from './store/notification-rule-store';
import { createSettingsStore, type SettingsStore } from './store/settings-store';
import { type AutoUpdater, createAutoUpdater } from './updates/auto-update';
import { createDependencyGroupUpdates, type DependencyGroupUpdates } from './updates/dependency-group-updates';
import { createUpdateService, type UpdateService } from './updates/update-service';
import { TagPolicyCache } from './watchers/container-check';
import type { DockerWatcher } from './watchers/docker-watcher';
import { createFleet, type Fleet } from './watchers/fleet';

/** The hub's long-lived parts, shared by every route module. */
export interface HubServices {
  deps: HubDeps;
  config: HubConfig;
  logger: Logger;
  logRing: LogRing;
  now: () => number;
  bootId: string;
  startedAt: number;
  readiness: Readiness;
  metrics: HubMetrics;
  routes: RouteTable;
  settings: SettingsStore;
  audit: AuditStore;
  /** API keys (spec 2.1): digests only, lastUsedAt flushed lazily. */
  apiKeys: ApiKeyStore;
  notificationRules: NotificationRuleStore;
  containers: ContainerStore;
  tagPolicies: TagPolicyCache;
  /** Where container events go; the UI stream subscribes to it. */
  publish: Publish;
  /** Every watcher, the hub's and its agents'. */
  fleet: Fleet;
  agents: AgentPresence;
  // Transitional: the runtime's parts, flattened, while modules move to explicit inputs.
  storage: HubDeps['storage'];
  version: string;
  runtime: HubDeps['runtime'];
  clientAddress: (c: Context) => string | undefined;
  upgradeWebSocket: HubDeps['upgradeWebSocket'];
  dropConnection: HubDeps['dropConnection'];
  runtimeMetrics: HubDeps['runtimeMetrics'];
  inventoryDeadlineMs: number | undefined;
  selfContainerId: string | undefined;
  /** Registry access for update checks, shared by the whole fleet; absent without providers. */
  registries: { providers: LoadedRegistryProviders; service: RegistryService; lookups: FleetLookups } | undefined;
  /** The UI event stream's bus (spec 6.1): capabilities publish here, every open stream receives. */
  events: EventBus;
  /** Clients with an open UI stream and their dd:connected tokens, for the self-update ack. */
  connectedClients: ConnectedClients;
  /** Edge agents (decisions §6); undefined with DD_EXPERIMENTAL_EDGE=false. Set by createHubApp. */
  edge: EdgeHub | undefined;
  /** agent-disconnect / agent-reconnect (spec 6.3), for the notification capability to deliver. */
  agentEvents: AgentEvents;
  /** Notification triggers, rules routing, the outbox, the bell, and the entry points of the eight events (spec 6.3). */
  notifications: NotificationService;
  /** Container updates (issue 7): docker action triggers, operations, backups, rollback. */
  updates: UpdateService;
  /** Automatic updates after detection (settings updateMode, dd.action.auto, the trigger's AUTO). */
  autoUpdates: AutoUpdater;
  /** Updates of a container and what depends on it, in waves (dd.depends_on, compose depends_on). */
  dependencyGroups: DependencyGroupUpdates;
}

function createRegistries(deps: HubDeps, metrics: HubMetrics, now: () => number): HubServices['registries'] {
  if (!deps.registries) return undefined;
  const service = new RegistryService({
    providers: deps.registries.configured,
    builtIn: deps.registries.builtIn,
    fallback: deps.registries.fallback,
    ...(deps.registryFetch && { fetchFor: deps.registryFetch }),
    onRequest: (event) => metrics.registryRequests.inc({ host: event.host, status: String(event.status) }),
    timeoutMs: deps.config.registry.timeoutMs,
    now,
  });
  return { providers: deps.registries, service, lookups: new FleetLookups(service, now) };
}

function createUiEventBus(deps: HubDeps, now: () => number, bootId: string, logger: Logger): EventBus {
  const tuning = deps.uiEvents;
  return createEventBus({
    now,
    bootId,
    ...(tuning?.replayWindowMs !== undefined && { replayWindowMs: tuning.replayWindowMs }),
    ...(tuning?.maxBuffered !== undefined && { maxBuffered: tuning.maxBuffered }),
    onListenerError: (error, event) => logger.warn('a UI event listener failed', { type: event.type, error: String(error) }),
  });
}

export function createHubServices(deps: HubDeps): HubServices {
  const now = deps.now ?? Date.now;
  const logger = deps.logger;
  const storeLogger = logger.child('store');
  const metrics = createHubMetrics();
  const audit = createAuditStore(deps.storage, deps.config.audit, now, storeLogger.child('audit'));
  const bootId = crypto.randomUUID().slice(0, 8);
  const events = createUiEventBus(deps, now, bootId, logger.child('events'));
  const countedAudit: AuditStore = {
    ...audit,
    // Counting here keeps every writer of the trail in the metric without each one remembering.
    append: async (record) => {
      const entry = await audit.append(record);
      metrics.auditEntries.inc({ action: entry.action });
      return entry;
    },
  };
  const notificationRules = createNotificationRuleStore(deps.storage, storeLogger);
  const containers = createContainerStore(deps.storage, storeLogger.child('containers'));
  const notifications = createNotifications(deps, {
    audit: countedAudit,
    rules: notificationRules,
    containers,
    logger,
    now,
    onDeliveryAttempt: (trigger, result) => metrics.triggerDeliveries.inc({ trigger, result }),
    // Home Assistant's Install button (mqtt) queues the same update as the API; services exist by then.
    onInstall: async (containerId) => {
      await services.updates.requestUpdate(containerId, { source: 'mqtt' });
    },
  });
  metrics.bindSources({
    containers: () => containers.all(),
    outboxStatuses: () => notifications.outbox.list().map((entry) => entry.status),
  });
  const services: HubServices = {
    deps,
    config: deps.config,
    logger,
    logRing: deps.logRing,
    now,
    bootId,
    startedAt: now(),
    readiness: createReadiness(),
    metrics,
    routes: new RouteTable(),
    settings: createSettingsStore(deps.storage, storeLogger),
    audit: countedAudit,
    apiKeys: createApiKeyStore(deps.storage, now, storeLogger.child('api-keys')),
    notificationRules,
    registries: createRegistries(deps, metrics, now),
    containers,
    tagPolicies: new TagPolicyCache(),
    publish: (type, data) => {
      events.publish(type, data);
    },
    fleet: createFleet(),
    agents: { isConnected: (name) => services.edge?.isConnected(name) ?? false },
    storage: deps.storage,
    version: deps.version,
    runtime: deps.runtime,
    clientAddress: (c) => deps.clientAddress?.(c),
    upgradeWebSocket: deps.upgradeWebSocket,
    dropConnection: deps.dropConnection,
    runtimeMetrics: deps.runtimeMetrics,
    inventoryDeadlineMs: deps.inventoryDeadlineMs,
    selfContainerId: deps.selfContainerId,
    events,
    connectedClients: createConnectedClients(),
    edge: undefined,
    agentEvents: createAgentEvents((error, event) =>
      logger.child('edge').warn('an agent event listener failed', { event: event.event, error: String(error) }),
    ),
    notifications,
    // Built with a reference to the finished services: its requests reach watchers and notifications.
    updates: createUpdateService(() => services, {
      storage: deps.storage,
      logger,
      triggers: deps.config.actions,
      options: deps.updates,
    }),
    autoUpdates: createAutoUpdater(() => services, { storage: deps.storage, logger }),
    dependencyGroups: createDependencyGroupUpdates(() => services, logger),
  };
  return services;
}
