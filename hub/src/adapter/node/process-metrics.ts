import type { Registry, RegistryContentType } from 'prom-client';
import { type ExpositionFormat, OPENMETRICS_EOF } from '../../../../shared/metrics/exposition-format';
import { importCommonJs } from './commonjs-import';

/**
 * prom-client's default collectors name three gauges `nodejs_active_{handles,requests,resources}_total`,
 * and a gauge must not end in `_total` (promtool check metrics refuses them; OpenMetrics reserves the
 * suffix for counters). Each is the sum of the gauge of the same name without `_total`, which counts
 * the same handles, requests or resources by type: `sum(nodejs_active_handles)` gives the total, so
 * nothing is lost by dropping them.
 */
const GAUGES_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

type PromClient = typeof import('prom-client');

/** A registry of one format (set before its first render) holding the default collectors. */
function processRegistry<T extends RegistryContentType>(client: PromClient, contentType: T): Registry<T> {
  // prom-client's typings declare no constructor argument; setContentType is the typed way.
  const registry = new client.Registry<T>();
  registry.setContentType(contentType);
  client.collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  return registry;
}

/**
 * Node process metrics (CPU, memory, event loop, GC) in either format, with prom-client imported and
 * its collectors started at the first scrape: a hub nobody scrapes neither loads it nor samples its
 * event loop (docs/benchmarks.md "Footprint"); counters then count from that scrape on, which rate()
 * does not mind. One registry per format: prom-client renames a registry's counters in place when it
 * renders OpenMetrics, so one registry cannot serve both.
 */
export function processMetricsOnDemand(): (format: ExpositionFormat) => Promise<string> {
  let registries: Promise<Record<ExpositionFormat, { metrics(): Promise<string> }>> | undefined;
  return async (format) => {
    registries ??= importCommonJs(() => import('prom-client')).then((client) => ({
      prometheus: processRegistry(client, client.Registry.PROMETHEUS_CONTENT_TYPE),
      openmetrics: processRegistry(client, client.Registry.OPENMETRICS_CONTENT_TYPE),
    }));
    const text = await (await registries)[format].metrics();
    // The route ends the whole exposition (the hub's families come first).
    return format === 'openmetrics' && text.endsWith(OPENMETRICS_EOF) ? text.slice(0, -OPENMETRICS_EOF.length) : text;
  };
}
