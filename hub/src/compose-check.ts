import { createStorage } from 'unstorage';
import type { DockerHost } from '../../shared/docker/docker-host';
import type { WatcherConfig, WatcherType } from '../../shared/docker/watcher-config';
import { errorMessage } from '../../shared/error-message';
import type { Logger } from '../../shared/logging/logger';
import type { RegistryFetch } from '../../shared/registry/registry-transport';
import type { Container } from '../../shared/schemas/container';
import type { SourceProblem } from '../../shared/sources/source-entry';
import { FleetLookups } from './checks/fleet-lookups';
import { createHubMetrics } from './metrics/hub-metrics';
import type { LoadedRegistryProviders } from './registries/load-registry-providers';
import type { ProviderConnection } from './registries/registry-provider';
import { RegistryService } from './registries/registry-service';
import { isFileSourceHost } from './sources/file-source-host';
import { createContainerStore } from './store/container-store';
import { TagPolicyCache } from './watchers/container-check';
import type { SyncError } from './watchers/inventory-sync';
import { createWatcherFactory } from './watchers/watcher-factory';

/** One source of a one-shot check: a Docker host, or a file source's host (docs/sources.md). */
export interface OneShotSource {
  type: WatcherType;
  config: WatcherConfig;
  host: DockerHost;
}

export interface SourceOutcome {
  type: string;
  name: string;
  /** The watch cycle's errors (a listing that failed, an inspect, a registry check). */
  errors: SyncError[];
  /** What its files got wrong (file sources), by file and line. */
  problems: SourceProblem[];
}

export interface OneShotResult {
  records: Container[];
  sources: SourceOutcome[];
}

const NO_JOBS = {
  job: () => {
    throw new Error('a one-shot check schedules nothing');
  },
  forget: () => undefined,
};

/**
 * `dockwatch check` (docs/sources.md "One command"), the hub's second composition root: the hub's
 * own watch cycle over each source, with one fleet's registry lookups (one request per reference
 * across every source), in memory storage that is dropped afterwards, with no notification, audit,
 * schedule or automatic update. The records are taken as the cycles write them, by id as the store
 * would keep them, rather than through the store: its storage writes and list indexes, which nothing
 * here reads, were a tenth of the command's time over a thousand containers (issue 29).
 */
export async function runOneShotCheck(
  sources: readonly OneShotSource[],
  deps: {
    registries: LoadedRegistryProviders;
    /** The runtime's fetch per registry connection (Node binds CA files). */
    registryFetch?: ((connection: ProviderConnection) => RegistryFetch) | undefined;
    registryTimeoutMs: number;
    thresholdDays: number;
    logger: Logger;
    now: () => number;
    /** Told of each registry request (the command's progress line). */
    onRegistryRequest?: (() => void) | undefined;
    /** Told as each source's cycle ends. */
    onSourceDone?: (() => void) | undefined;
  },
): Promise<OneShotResult> {
  const service = new RegistryService({
    providers: deps.registries.configured,
    builtIn: deps.registries.builtIn,
    fallback: deps.registries.fallback,
    ...(deps.registryFetch && { fetchFor: deps.registryFetch }),
    timeoutMs: deps.registryTimeoutMs,
    onRequest: () => deps.onRegistryRequest?.(),
    now: deps.now,
  });
  const lookups = new FleetLookups(service, deps.now, () => false);
  const containers = createContainerStore(createStorage(), deps.logger);
  await containers.load();
  const written = new Map<string, Container>();
  const newWatcher = createWatcherFactory({
    containers,
    writeInventory: async (records) => {
      for (const record of records) written.set(record.id, record);
    },
    lookups,
    tagPolicies: new TagPolicyCache(),
    thresholdDays: deps.thresholdDays,
    logger: deps.logger,
    now: deps.now,
    publish: () => undefined,
    audit: { appendMany: async () => [] },
    metrics: createHubMetrics(),
    notify: async () => undefined,
    autoUpdate: async () => undefined,
    schedule: NO_JOBS,
  });
  // One lookup cycle that every source joins: a reference several sources name is asked once.
  lookups.beginCycle();
  const outcomes = await Promise.all(
    sources.map(async (source): Promise<SourceOutcome> => {
      const watcher = newWatcher(source.config, source.host, { type: source.type });
      const outcome: SourceOutcome = { type: source.type, name: source.config.name, errors: [], problems: [] };
      try {
        outcome.errors = (await watcher.watch({ joinCycle: true })).errors;
      } catch (error) {
        outcome.errors = [{ phase: 'list', message: errorMessage(error) }];
      }
      if (isFileSourceHost(source.host)) outcome.problems = source.host.problems();
      await source.host.close().catch(() => undefined);
      deps.onSourceDone?.();
      return outcome;
    }),
  );
  return { records: [...written.values()], sources: outcomes };
}
