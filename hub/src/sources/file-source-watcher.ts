import type { WatcherConfig } from '../../../shared/docker/watcher-config';
import type { Logger } from '../../../shared/logging/logger';
import type { FileSourceConfig } from '../../../shared/sources/file-source-config';
import type { SourceFiles } from '../../../shared/sources/source-files';
import type { DockerWatcher } from '../watchers/docker-watcher';
import type { WatcherFactory } from '../watchers/watcher-factory';
import { createFileSourceHost } from './file-source-host';

/**
 * A file source as the watcher sees it: every entry listed (nothing runs, so none is "stopped"),
 * its files never rewritten by an update (it has none). The endpoint only names the path.
 */
export function fileSourceWatcherConfig(config: FileSourceConfig): WatcherConfig {
  return {
    name: config.name,
    endpoint: { socketPath: config.path },
    cron: config.cron,
    jitterSeconds: config.jitterSeconds,
    watchByDefault: config.watchByDefault,
    watchAll: true,
    composeFiles: false,
  };
}

/** The watcher of one file source, built like every other (one registry lookup per reference across the fleet). */
export function newFileSourceWatcher(
  newWatcher: WatcherFactory,
  config: FileSourceConfig,
  files: SourceFiles,
  deps: { now: () => number; logger: Logger },
): DockerWatcher {
  const sourceId = `${config.type}.${config.name}`;
  const host = createFileSourceHost({ sourceId, type: config.type, files, now: deps.now, logger: deps.logger });
  // A save touches a file several times; the editor's burst is one re-read.
  return newWatcher(fileSourceWatcherConfig(config), host, { type: config.type, eventDebounceMs: 200 });
}
