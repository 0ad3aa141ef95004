import type { FileSourceConfig } from '../../../shared/sources/file-source-config';
import type { DockerWatcher } from '../watchers/docker-watcher';
import { isFileSourceHost } from './file-source-host';

/** A file source (docs/sources.md): where it reads, and what its files got wrong, by file and line. */
export function describeFileSource(watcher: DockerWatcher, fileSources: readonly FileSourceConfig[]) {
  const config = fileSources.find((source) => source.name === watcher.name && source.type === watcher.type);
  const host = isFileSourceHost(watcher.host) ? watcher.host : undefined;
  const problems = host?.problems() ?? [];
  return {
    id: watcher.id,
    type: watcher.type,
    name: watcher.name,
    configuration: config && {
      [config.type === 'file' ? 'file' : 'directory']: config.path,
      cron: config.cron,
      jitter: config.jitterSeconds,
      watchbydefault: config.watchByDefault,
    },
    metadata: {
      ...(watcher.lastRunAt !== undefined && { lastRunAt: new Date(watcher.lastRunAt).toISOString() }),
      ...(watcher.nextRunAt !== undefined && { nextRunAt: new Date(watcher.nextRunAt).toISOString() }),
      inventoryRefreshSupported: true,
      problems: problems.slice(0, 200),
      problemCount: problems.length,
      // Files read since start: a change to one file adds one (bench/sources.ts watches it).
      fileReads: host?.reads ?? 0,
    },
  };
}
