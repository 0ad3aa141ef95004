import { Counter, Histogram, MetricsRegistry } from './metrics-registry';

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The hub's own metrics. Route labels are path templates, so their count is bounded. */
export function createHubMetrics() {
  const registry = new MetricsRegistry();
  return {
    registry,
    httpRequests: registry.register(
      new Counter('dd_http_requests_total', 'HTTP requests served, by method, route template and status', ['method', 'route', 'status']),
    ),
    httpDuration: registry.register(
      new Histogram('dd_http_request_duration_seconds', 'HTTP request latency in seconds', ['method', 'route'], LATENCY_BUCKETS),
    ),
    auditEntries: registry.register(new Counter('dd_audit_entries_total', 'Audit entries written, by action', ['action'])),
    registryRequests: registry.register(
      new Counter('dd_registry_requests_total', 'Registry requests, by registry host and status (or error)', ['host', 'status']),
    ),
  };
}

export type HubMetrics = ReturnType<typeof createHubMetrics>;
