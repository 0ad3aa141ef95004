import { CONTAINER_STATES } from '../../../shared/docker/docker-host';
import type { Container } from '../../../shared/schemas/container';
import { OUTBOX_STATUSES } from '../../../shared/schemas/notification-views';
import { LOCAL_AGENT } from '../../../shared/update/update-clock';
import { updateLevel } from '../notifications/update-threshold';
import { Counter, Gauge, Histogram, MetricsRegistry } from './metrics-registry';

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const CYCLE_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Every level updateLevel gives: the label values of dd_updates_available, always all present. */
const UPDATE_LEVELS = ['major', 'minor', 'patch', 'digest', 'tag'] as const;

/** Where the scrape-time gauges read from; bound by the hub once its stores exist. */
export interface MetricSources {
  containers: () => readonly Container[];
  outboxStatuses: () => readonly string[];
  /** Every agent the hub has registered, and whether a link to it is up now. */
  agents: () => readonly { name: string; connected: boolean }[];
  /** When the hub first saw a container's pending update (its stored update clock), epoch ms. */
  updateFirstSeenAt: (container: Container) => number | undefined;
}

const RESULTS = ['success', 'partial', 'failed'] as const;

/**
 * The hub's own metrics (`dd_*`), portable. Every label has a bounded set of values: route
 * templates, container states, update levels, configured watchers and triggers, registered
 * agents, registry hosts the fleet uses, audit action types, webhook actions.
 */
export function createHubMetrics() {
  const registry = new MetricsRegistry();
  const sources: MetricSources = {
    containers: () => [],
    outboxStatuses: () => [],
    agents: () => [],
    updateFirstSeenAt: () => undefined,
  };
  return {
    registry,
    /** Lets the gauges read the stores created after the metrics. */
    bindSources(bound: Partial<MetricSources>): void {
      Object.assign(sources, bound);
    },
    httpRequests: registry.register(
      new Counter('dd_http_requests_total', 'HTTP requests served, by method, route template and status', [
        'method',
        'route',
        'status',
      ]),
    ),
    httpDuration: registry.register(
      new Histogram(
        'dd_http_request_duration_seconds',
        'HTTP request latency in seconds',
        ['method', 'route'],
        LATENCY_BUCKETS,
      ),
    ),
    auditEntries: registry.register(
      new Counter('dd_audit_entries_total', 'Audit entries written, by action', ['action']),
    ),
    registryRequests: registry.register(
      new Counter('dd_registry_requests_total', 'Registry requests, by registry host and status (or error)', [
        'host',
        'status',
      ]),
    ),
    registryDuration: registry.register(
      new Histogram(
        'dd_registry_request_duration_seconds',
        'Registry request latency in seconds (errors included), by registry host',
        ['host'],
        LATENCY_BUCKETS,
      ),
    ),
    containers: registry.register(
      new Gauge('dd_containers', 'Containers the hub knows, by runtime state', ['state'], (gauge) => {
        const counts = new Map<string, number>(CONTAINER_STATES.map((state) => [state, 0]));
        for (const container of sources.containers())
          counts.set(container.status, (counts.get(container.status) ?? 0) + 1);
        for (const [state, count] of counts) gauge.set({ state }, count);
      }),
    ),
    updatesAvailable: registry.register(
      new Gauge(
        'dd_updates_available',
        'Containers with a pending update, by its kind (major, minor, patch, digest; tag: between non-version tags)',
        ['kind'],
        (gauge) => {
          const counts = new Map<string, number>(UPDATE_LEVELS.map((level) => [level, 0]));
          for (const container of sources.containers()) {
            const level = container.updateAvailable ? updateLevel(container.updateKind) : undefined;
            if (level !== undefined) counts.set(level, (counts.get(level) ?? 0) + 1);
          }
          for (const [kind, count] of counts) gauge.set({ kind }, count);
        },
      ),
    ),
    updateAvailableSince: registry.register(
      new Gauge(
        'dd_update_available_since_timestamp_seconds',
        'When the hub first saw each pending update (Unix time), by container, watcher, agent and kind',
        ['container', 'watcher', 'agent', 'kind'],
        (gauge) => {
          gauge.clear();
          for (const container of sources.containers()) {
            const kind = container.updateAvailable ? updateLevel(container.updateKind) : undefined;
            const firstSeenAt = kind === undefined ? undefined : sources.updateFirstSeenAt(container);
            if (kind === undefined || firstSeenAt === undefined) continue;
            const labels = { container: container.name, watcher: container.watcher, kind };
            gauge.set({ ...labels, agent: container.agent ?? LOCAL_AGENT }, Math.floor(firstSeenAt / 1000));
          }
        },
      ),
    ),
    agentConnected: registry.register(
      new Gauge(
        'dd_agent_connected',
        'Registered agents (edge and listen mode): 1 while a link to the agent is up, 0 while it is away',
        ['agent'],
        (gauge) => {
          gauge.clear();
          for (const agent of sources.agents()) gauge.set({ agent: agent.name }, agent.connected ? 1 : 0);
        },
      ),
    ),
    watcherRuns: registry.register(
      new Counter(
        'dd_watcher_runs_total',
        'Watch cycles, by watcher, agent (__local__ for the hub’s own) and result (success; partial: some containers failed; failed: no listing)',
        ['watcher', 'agent', 'result'],
      ),
    ),
    watcherDuration: registry.register(
      new Histogram(
        'dd_watcher_run_duration_seconds',
        'Watch cycle duration in seconds',
        ['watcher', 'agent'],
        CYCLE_BUCKETS,
      ),
    ),
    triggerDeliveries: registry.register(
      new Counter(
        'dd_trigger_deliveries_total',
        'Notification delivery attempts, by trigger and result (delivered, retrying, dead-letter)',
        ['trigger', 'result'],
      ),
    ),
    outboxEntries: registry.register(
      new Gauge(
        'dd_notification_outbox_entries',
        'Notification outbox entries waiting, by status',
        ['status'],
        (gauge) => {
          const counts = new Map<string, number>(OUTBOX_STATUSES.map((status) => [status, 0]));
          for (const status of sources.outboxStatuses()) counts.set(status, (counts.get(status) ?? 0) + 1);
          for (const [status, count] of counts) gauge.set({ status }, count);
        },
      ),
    ),
    webhooks: registry.register(
      new Counter(
        'dd_webhook_total',
        'Authenticated webhook calls, by action (watch, watch-container, update, registry)',
        ['action'],
      ),
    ),
  };
}

export type HubMetrics = ReturnType<typeof createHubMetrics>;

/** The `onCycle` of a Docker watcher: counts its cycles and records their duration. */
export function watchCycleRecorder(
  metrics: HubMetrics,
  watcher: string,
  agent: string | undefined,
): (outcome: { durationMs: number; result: 'success' | 'partial' | 'failed' }) => void {
  const labels = { watcher, agent: agent ?? LOCAL_AGENT };
  // Every result starts at 0, so the first failure is an increase that alerts can see (a series
  // born at 1 shows no increase() over any window).
  for (const result of RESULTS) metrics.watcherRuns.inc({ ...labels, result }, 0);
  return (outcome) => {
    metrics.watcherRuns.inc({ ...labels, result: outcome.result });
    metrics.watcherDuration.observe(labels, outcome.durationMs / 1000);
  };
}
