import { Cron } from 'croner';
import * as v from 'valibot';
import { ConfigError } from '../config/config-error';
import { envBoolean, envInteger } from '../config/env-readers';
import { WATCHER_TYPES, type WatcherType } from '../sources/watcher-type-names';

/** How to reach a Docker Engine: a unix socket, or a TCP host. */
export type DockerEndpoint = { socketPath: string } | { host: string; port: number; protocol: 'http' | 'https' };

/** The Engine APIs an edge agent can watch (docs/sources.md): Docker's, and Podman's Docker-compatible one. */
export const ENGINE_WATCHER_TYPES = ['docker', 'podman'] as const;
export type EngineWatcherType = (typeof ENGINE_WATCHER_TYPES)[number];

export interface WatcherConfig {
  /** Lower-case name; the watcher's id is `docker.<name>`. */
  name: string;
  /** The Engine behind the endpoint; unset is docker (the hub keeps its Podman watchers in a list of their own). */
  type?: EngineWatcherType;
  endpoint: DockerEndpoint;
  cron: string;
  /** Up to this many seconds are added to each scheduled run, so watchers do not all start at once. */
  jitterSeconds: number;
  /** Containers without a `dd.watch` label are watched. */
  watchByDefault: boolean;
  /** Stopped containers are listed too. */
  watchAll: boolean;
  /**
   * Whether its containers' compose files are on this machine at the paths their labels give, so an
   * update may rewrite them. Unset: yes for a socket, no for a TCP endpoint (another machine's
   * files; a TCP socket proxy on this machine sets it true).
   */
  composeFiles?: boolean;
}

/** See WatcherConfig.composeFiles. */
export function composeFilesAreLocal(config: Pick<WatcherConfig, 'composeFiles' | 'endpoint'>): boolean {
  return config.composeFiles ?? 'socketPath' in config.endpoint;
}

export const DEFAULT_CRON = '0 * * * *';
export const DEFAULT_SOCKET = '/var/run/docker.sock';
const PREFIX = 'DD_WATCHER_';
export const WATCHER_KEYS = [
  'socket',
  'host',
  'port',
  'cron',
  'jitter',
  'watchbydefault',
  'watchall',
  'composefiles',
  // The watcher's type (docker, swarm, file, dockerfile) and where a file source reads (docs/sources.md).
  'type',
  'file',
  'directory',
] as const;
/**
 * What `DD_WATCHER_<NAME>_TYPE` may say: a Docker Engine, a Swarm manager's services, an image list,
 * a directory of Dockerfiles and compose files, a Podman service's Docker-compatible socket.
 */
export { WATCHER_TYPES, type WatcherType } from '../sources/watcher-type-names';

/** The keys only Docker watchers take, refused on a file source (and the file keys on a Docker watcher). */
const DOCKER_ONLY_KEYS = ['socket', 'host', 'port', 'watchall', 'composefiles'] as const;
const FILE_ONLY_KEYS = ['file', 'directory'] as const;
const NAME = /^[a-z0-9][a-z0-9-]*$/;

export type RawWatcherVariables = Partial<Record<(typeof WATCHER_KEYS)[number], { variable: string; value: string }>>;

export function readWatcherKey<T>(
  raw: RawWatcherVariables,
  key: (typeof WATCHER_KEYS)[number],
  schema: v.GenericSchema<string, T>,
  fallback: T,
): T {
  const entry = raw[key];
  if (!entry) return fallback;
  const result = v.safeParse(schema, entry.value);
  if (!result.success) throw new ConfigError(entry.variable, result.issues[0]?.message ?? 'invalid value');
  return result.output;
}

/** `DOCKER_HOST` as the Docker CLI reads it: `unix:///path` or `tcp://host:port`. */
function endpointFromDockerHost(dockerHost: string | undefined): DockerEndpoint {
  if (!dockerHost) return { socketPath: DEFAULT_SOCKET };
  if (dockerHost.startsWith('unix://')) return { socketPath: dockerHost.slice('unix://'.length) };
  const match = /^tcp:\/\/([^:/]+)(?::(\d+))?\/?$/.exec(dockerHost);
  if (!match) throw new ConfigError('DOCKER_HOST', 'must be unix:///path/to/docker.sock or tcp://host:port');
  return { host: match[1] as string, port: Number(match[2] ?? 2375), protocol: 'http' };
}

export function endpointOf(raw: RawWatcherVariables, fallback: DockerEndpoint): DockerEndpoint {
  if (raw.socket && raw.host) throw new ConfigError(raw.host.variable, 'give SOCKET or HOST, not both');
  if (raw.port && !raw.host) throw new ConfigError(raw.port.variable, 'PORT goes with HOST');
  if (raw.socket)
    return {
      socketPath: readWatcherKey(raw, 'socket', v.pipe(v.string(), v.regex(/^\/\S+$/, 'must be an absolute path')), ''),
    };
  if (raw.host) {
    const host = readWatcherKey(
      raw,
      'host',
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/, 'must be a host name or IP')),
      '',
    );
    return { host, port: readWatcherKey(raw, 'port', envInteger(1, 65535), 2375), protocol: 'http' };
  }
  return fallback;
}

export const CronSchema = v.pipe(
  v.string(),
  v.check((expression) => {
    try {
      new Cron(expression, { paused: true }).stop();
      return true;
    } catch {
      return false;
    }
  }, 'must be a cron expression such as "0 * * * *"'),
);

/**
 * The Docker watchers of `DD_WATCHER_<NAME>_<KEY>` (decisions §2), those without a TYPE or with
 * TYPE=docker. A watcher `local` exists by
 * default on DOCKER_HOST or /var/run/docker.sock unless DD_LOCAL_WATCHER=false; configuring
 * `DD_WATCHER_LOCAL_*` adjusts it. Throws ConfigError naming the variable.
 */
export function loadWatcherConfigs(vars: ReadonlyMap<string, string>): WatcherConfig[] {
  const configured = watcherVariableGroups(vars);
  // File sources (TYPE file or dockerfile) are read by shared/sources/file-source-config.ts.
  const groups = new Map([...configured].filter(([, raw]) => watcherTypeOf(raw) === 'docker'));
  for (const raw of groups.values()) refuseKeys(raw, FILE_ONLY_KEYS, 'docker');
  const localEnabled = v.parse(envBoolean, vars.get('DD_LOCAL_WATCHER') ?? 'true');
  if (localEnabled && !configured.has('local')) groups.set('local', {});
  if (!localEnabled) groups.delete('local');
  const dockerHostFallback = endpointFromDockerHost(vars.get('DOCKER_HOST'));
  return [...groups].map(([name, raw]) => ({
    name,
    endpoint: endpointOf(raw, dockerHostFallback),
    cron: readWatcherKey(raw, 'cron', CronSchema, DEFAULT_CRON),
    jitterSeconds: readWatcherKey(raw, 'jitter', envInteger(0, 3600), 60),
    watchByDefault: readWatcherKey(raw, 'watchbydefault', envBoolean, true),
    watchAll: readWatcherKey(raw, 'watchall', envBoolean, false),
    ...(raw.composefiles && { composeFiles: readWatcherKey(raw, 'composefiles', envBoolean, false) }),
  }));
}

/** `DD_WATCHER_<NAME>_TYPE`, docker when unset; an unknown type names the valid ones. */
export function watcherTypeOf(raw: RawWatcherVariables): WatcherType {
  const entry = raw.type;
  if (!entry) return 'docker';
  const type = entry.value.trim().toLowerCase();
  if ((WATCHER_TYPES as readonly string[]).includes(type)) return type as WatcherType;
  throw new ConfigError(
    entry.variable,
    `unknown watcher type ${JSON.stringify(entry.value)}; one of ${WATCHER_TYPES.join(', ')}`,
  );
}

/** Refuses the keys a watcher of `type` does not take, naming the variable. */
export function refuseKeys(
  raw: RawWatcherVariables,
  keys: readonly (typeof WATCHER_KEYS)[number][],
  type: WatcherType,
): void {
  for (const key of keys) {
    const entry = raw[key];
    if (entry) throw new ConfigError(entry.variable, `a ${type} watcher does not take ${key.toUpperCase()}`);
  }
}

/** The Docker-only keys, refused on file sources. */
export { DOCKER_ONLY_KEYS };

/** `DD_WATCHER_<NAME>_<KEY>` grouped by NAME (lower-case, `_` in it read as `-`); a bad name or key is refused. */
export function watcherVariableGroups(vars: ReadonlyMap<string, string>): Map<string, RawWatcherVariables> {
  const groups = new Map<string, RawWatcherVariables>();
  for (const [variable, value] of vars) {
    if (!variable.startsWith(PREFIX)) continue;
    const parts = variable.slice(PREFIX.length).toLowerCase().split('_');
    const key = parts.pop() as string;
    const name = parts.join('-');
    if (!NAME.test(name) || !(WATCHER_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(
        variable,
        `expected DD_WATCHER_<NAME>_<KEY> with KEY one of ${WATCHER_KEYS.join(', ').toUpperCase()}`,
      );
    }
    const raw = groups.get(name) ?? {};
    raw[key as (typeof WATCHER_KEYS)[number]] = { variable, value };
    groups.set(name, raw);
  }
  return groups;
}

/** The endpoint as configuration output may show it. */
export function describeEndpoint(endpoint: DockerEndpoint): string {
  return 'socketPath' in endpoint
    ? `unix://${endpoint.socketPath}`
    : `${endpoint.protocol}://${endpoint.host}:${endpoint.port}`;
}
