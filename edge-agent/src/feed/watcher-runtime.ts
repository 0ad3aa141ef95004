import type { DockerHost } from '../../../shared/docker/docker-host';
import { describeEndpoint, type WatcherConfig } from '../../../shared/docker/watcher-config';
import type { EdgeWatcher } from '../../../shared/edge/protocol';
import type { WatcherFeed } from './watcher-feed';

/** One configured Docker watcher of the agent: its Engine connection and its event feed. */
export interface WatcherRuntime {
  readonly name: string;
  readonly config: WatcherConfig;
  readonly host: DockerHost;
  readonly feed: WatcherFeed;
  /** As `hello` lists it. */
  readonly description: EdgeWatcher;
}

/** How the hub sees the watcher in `hello` (it schedules the cycles: `cron` is the agent's pollInterval). */
export function describeWatcher(config: WatcherConfig): EdgeWatcher {
  return {
    name: config.name,
    endpoint: describeEndpoint(config.endpoint),
    cron: config.cron,
    jitterSeconds: config.jitterSeconds,
    watchAll: config.watchAll,
    watchByDefault: config.watchByDefault,
    type: config.type ?? 'docker',
  };
}
