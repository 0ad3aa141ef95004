import type { DockerHost } from '../../../shared/docker/docker-host';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';

/** One container's resource use (http-interface §4.14). */
export interface StatsSample {
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  /** ISO 8601: when the sample was taken. */
  at: string;
}

/** The fleet's resource use over its running containers (http-interface §4.14). */
export interface StatsSummary {
  /** Running containers in the inventory. */
  containers: number;
  /** Of those, how many answered this round (a host may be down; the others still count). */
  sampled: number;
  cpuPercent: number;
  memoryBytes: number;
  /** Per host the largest container limit (an unlimited container's is the host's memory), summed over hosts. */
  memoryLimitBytes: number;
  at: string;
}

export interface StatsTarget {
  id: string;
  host: Pick<DockerHost, 'stats'>;
  /** Which Docker host it runs on, so host memory is counted once. */
  hostKey: string;
}

export interface StatsSamplerOptions {
  now: () => number;
  /** Whether a container is still in the inventory; histories of others are dropped. */
  isKnown: (id: string) => boolean;
  /** Samples kept per container. */
  historySize?: number;
  /** A sample younger than this is served again instead of asking Docker (which takes about a second). */
  freshMs?: number;
  /** How long a summary is shared by every caller. */
  summaryTtlMs?: number;
  /** Docker calls in flight for one summary. */
  concurrency?: number;
  /** Containers with a history, at most. */
  maxTracked?: number;
}

export interface StatsSampler {
  /** A current sample: fresh, shared with concurrent callers, and added to the history. Throws what DockerHost.stats throws. */
  sample(id: string, host: Pick<DockerHost, 'stats'>): Promise<StatsSample>;
  /** The kept samples, oldest first. */
  history(id: string): StatsSample[];
  /** The fleet aggregate; failures of single containers leave them out of the sums. */
  summary(load: () => { running: number; targets: StatsTarget[] }): Promise<StatsSummary>;
}

interface Kept {
  samples: StatsSample[];
  /** When the latest sample was asked for. */
  askedAt: number;
}

/**
 * Samples taken on demand by the stats routes and streams, never in the background: a hub nobody
 * looks at asks Docker nothing. Concurrent and repeated requests share samples, so many clients of
 * one container (or of the summary) cost Docker one call per freshness period.
 */
export function createStatsSampler(options: StatsSamplerOptions): StatsSampler {
  const historySize = options.historySize ?? 60;
  const freshMs = options.freshMs ?? 1_000;
  const summaryTtlMs = options.summaryTtlMs ?? 2_000;
  const maxTracked = options.maxTracked ?? 1_000;
  const limiter = createConcurrencyLimiter(options.concurrency ?? 8);
  const kept = new Map<string, Kept>();
  const inFlight = new Map<string, Promise<StatsSample>>();
  let summary: { value: StatsSummary; askedAt: number } | undefined;
  let summaryInFlight: Promise<StatsSummary> | undefined;

  const record = (id: string, sample: StatsSample, askedAt: number) => {
    const entry = kept.get(id) ?? { samples: [], askedAt };
    entry.samples.push(sample);
    if (entry.samples.length > historySize) entry.samples.splice(0, entry.samples.length - historySize);
    entry.askedAt = askedAt;
    kept.set(id, entry);
    if (kept.size <= maxTracked) return;
    for (const key of kept.keys()) if (!options.isKnown(key)) kept.delete(key);
    for (const key of kept.keys()) {
      if (kept.size <= maxTracked) break;
      kept.delete(key);
    }
  };

  const sample: StatsSampler['sample'] = (id, host) => {
    const entry = kept.get(id);
    const latest = entry?.samples.at(-1);
    if (entry && latest && options.now() - entry.askedAt < freshMs) return Promise.resolve(latest);
    let pending = inFlight.get(id);
    if (!pending) {
      // Freshness counts from the request: Docker's answer covers the second since it was asked.
      const askedAt = options.now();
      pending = host
        .stats(id)
        .then((stats) => {
          const taken: StatsSample = {
            cpuPercent: stats.cpuPercent,
            memoryBytes: stats.memoryBytes,
            memoryLimitBytes: stats.memoryLimitBytes,
            at: new Date(options.now()).toISOString(),
          };
          record(id, taken, askedAt);
          return taken;
        })
        .finally(() => inFlight.delete(id));
      inFlight.set(id, pending);
    }
    return pending;
  };

  async function aggregate(load: () => { running: number; targets: StatsTarget[] }): Promise<StatsSummary> {
    const { running, targets } = load();
    const results = await Promise.all(
      targets.map((target) =>
        limiter.run(() =>
          sample(target.id, target.host).then(
            (taken) => ({ target, taken }),
            () => undefined,
          ),
        ),
      ),
    );
    const limits = new Map<string, number>();
    const totals = { sampled: 0, cpuPercent: 0, memoryBytes: 0 };
    for (const result of results) {
      if (!result) continue;
      totals.sampled++;
      totals.cpuPercent += result.taken.cpuPercent;
      totals.memoryBytes += result.taken.memoryBytes;
      limits.set(
        result.target.hostKey,
        Math.max(limits.get(result.target.hostKey) ?? 0, result.taken.memoryLimitBytes),
      );
    }
    const memoryLimitBytes = [...limits.values()].reduce((sum, limit) => sum + limit, 0);
    const cpuPercent = Math.round(totals.cpuPercent * 100) / 100;
    return { containers: running, ...totals, cpuPercent, memoryLimitBytes, at: new Date(options.now()).toISOString() };
  }

  return {
    sample,
    history: (id) => [...(kept.get(id)?.samples ?? [])],
    summary(load) {
      if (summary && options.now() - summary.askedAt < summaryTtlMs) return Promise.resolve(summary.value);
      const askedAt = options.now();
      summaryInFlight ??= aggregate(load)
        .then((value) => {
          summary = { value, askedAt };
          return value;
        })
        .finally(() => {
          summaryInFlight = undefined;
        });
      return summaryInFlight;
    },
  };
}
