import { envBoolean, envInteger } from '../config/env-readers';
import {
  CronSchema,
  DEFAULT_CRON,
  DEFAULT_SOCKET,
  endpointOf,
  readWatcherKey,
  refuseKeys,
  type WatcherConfig,
  watcherTypeOf,
  watcherVariableGroups,
} from './watcher-config';

/**
 * The Swarm watchers of `DD_WATCHER_<NAME>_TYPE=swarm` (docs/sources.md): a manager's Engine API,
 * whose services (not their tasks) are the watched units. Same keys as a Docker watcher, less
 * WATCHALL and COMPOSEFILES (a service is neither stopped nor defined by a compose file here).
 */
export function loadSwarmWatcherConfigs(vars: ReadonlyMap<string, string>): WatcherConfig[] {
  const groups = [...watcherVariableGroups(vars)].filter(([, raw]) => watcherTypeOf(raw) === 'swarm');
  return groups.map(([name, raw]) => {
    refuseKeys(raw, ['file', 'directory', 'watchall', 'composefiles'], 'swarm');
    return {
      name,
      endpoint: endpointOf(raw, { socketPath: DEFAULT_SOCKET }),
      cron: readWatcherKey(raw, 'cron', CronSchema, DEFAULT_CRON),
      jitterSeconds: readWatcherKey(raw, 'jitter', envInteger(0, 3600), 60),
      watchByDefault: readWatcherKey(raw, 'watchbydefault', envBoolean, true),
      watchAll: true,
      composeFiles: false,
    };
  });
}
