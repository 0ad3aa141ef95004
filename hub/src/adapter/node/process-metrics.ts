import type { Registry } from 'prom-client';

/**
 * Node's process metrics for `/metrics` (prom-client's default collectors: CPU, memory, handles,
 * event-loop lag, GC), with prom-client imported and its collectors started at the first scrape: a
 * hub nobody scrapes neither loads it nor samples its event loop (docs/benchmarks.md "Footprint").
 * Counters then count from that scrape on, which rate() does not mind.
 */
export function processMetricsOnDemand(): () => Promise<string> {
  let registry: Promise<Registry> | undefined;
  return async () => {
    registry ??= import('prom-client').then(({ Registry, collectDefaultMetrics }) => {
      const created = new Registry();
      collectDefaultMetrics({ register: created });
      return created;
    });
    return (await registry).metrics();
  };
}
