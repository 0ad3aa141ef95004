import { envBoolean, envInteger } from '../config/env-readers';
import {
  CronSchema,
  DEFAULT_CRON,
  endpointOf,
  readWatcherKey,
  refuseKeys,
  type WatcherConfig,
  watcherTypeOf,
  watcherVariableGroups,
} from '../docker/watcher-config';

/** A rootful Podman's socket (`podman.socket`); rootless, it is `$XDG_RUNTIME_DIR/podman/podman.sock`. */
export const DEFAULT_PODMAN_SOCKET = '/run/podman/podman.sock';

/**
 * The Podman watchers of `DD_WATCHER_<NAME>_TYPE=podman` (docs/sources.md "Podman"): a Podman
 * service's Docker-compatible socket, watched and updated as a Docker Engine is, with the same keys
 * (SOCKET defaults to the rootful service's); `DOCKER_HOST` is not read.
 */
export function loadPodmanWatcherConfigs(vars: ReadonlyMap<string, string>): WatcherConfig[] {
  const groups = [...watcherVariableGroups(vars)].filter(([, raw]) => watcherTypeOf(raw) === 'podman');
  return groups.map(([name, raw]) => {
    refuseKeys(raw, ['file', 'directory'], 'podman');
    return {
      name,
      endpoint: endpointOf(raw, { socketPath: DEFAULT_PODMAN_SOCKET }),
      cron: readWatcherKey(raw, 'cron', CronSchema, DEFAULT_CRON),
      jitterSeconds: readWatcherKey(raw, 'jitter', envInteger(0, 3600), 60),
      watchByDefault: readWatcherKey(raw, 'watchbydefault', envBoolean, true),
      watchAll: readWatcherKey(raw, 'watchall', envBoolean, false),
      ...(raw.composefiles && { composeFiles: readWatcherKey(raw, 'composefiles', envBoolean, false) }),
    };
  });
}
