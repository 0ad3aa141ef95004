import * as v from 'valibot';
import { ConfigError } from '../config/config-error';
import { envBoolean, envInteger } from '../config/env-readers';
import {
  CronSchema,
  DEFAULT_CRON,
  DOCKER_ONLY_KEYS,
  readWatcherKey,
  refuseKeys,
  watcherTypeOf,
  watcherVariableGroups,
} from '../docker/watcher-config';

/**
 * A watcher over files (docs/sources.md): `file` reads one image list, `dockerfile` every Dockerfile
 * and compose file under a directory. Its id is `<type>.<name>`; names are shared with the Docker
 * watchers (one DD_WATCHER_<NAME>_* family), so a name is never two watchers.
 */
export interface FileSourceConfig {
  type: 'file' | 'dockerfile';
  name: string;
  /** The image list (`file`) or the directory (`dockerfile`), as configured. */
  path: string;
  cron: string;
  jitterSeconds: number;
  /** Entries without `dd.watch` are watched. */
  watchByDefault: boolean;
}

const PathSchema = v.pipe(v.string(), v.trim(), v.minLength(1, 'must be a path'));

/** The file sources of `DD_WATCHER_<NAME>_TYPE=file|dockerfile`. Throws ConfigError naming the variable. */
export function loadFileSourceConfigs(vars: ReadonlyMap<string, string>): FileSourceConfig[] {
  const configs: FileSourceConfig[] = [];
  for (const [name, raw] of watcherVariableGroups(vars)) {
    const type = watcherTypeOf(raw);
    if (type === 'docker' || type === 'swarm' || type === 'podman') continue;
    refuseKeys(raw, DOCKER_ONLY_KEYS, type);
    const pathKey = type === 'file' ? 'file' : 'directory';
    refuseKeys(raw, [type === 'file' ? 'directory' : 'file'], type);
    if (!raw[pathKey])
      throw new ConfigError(
        `DD_WATCHER_${name.toUpperCase().replaceAll('-', '_')}_${pathKey.toUpperCase()}`,
        `a ${type} watcher needs it: the ${type === 'file' ? 'image list' : 'directory of Dockerfiles and compose files'} to read`,
      );
    configs.push({
      type,
      name,
      path: readWatcherKey(raw, pathKey, PathSchema, ''),
      cron: readWatcherKey(raw, 'cron', CronSchema, DEFAULT_CRON),
      jitterSeconds: readWatcherKey(raw, 'jitter', envInteger(0, 3600), 60),
      watchByDefault: readWatcherKey(raw, 'watchbydefault', envBoolean, true),
    });
  }
  return configs;
}
