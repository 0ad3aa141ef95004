import { Cron } from 'croner';
import * as v from 'valibot';
import { ConfigError } from '../config/config-error';
import { envBoolean, envInteger } from '../config/env-readers';

/** How to reach a Docker Engine: a unix socket, or a TCP host. */
export type DockerEndpoint = { socketPath: string } | { host: string; port: number; protocol: 'http' | 'https' };

export interface WatcherConfig {
  /** Lower-case name; the watcher's id is `docker.<name>`. */
  name: string;
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
const DEFAULT_SOCKET = '/var/run/docker.sock';
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
] as const;
const NAME = /^[a-z0-9][a-z0-9-]*$/;

type Raw = Partial<Record<(typeof WATCHER_KEYS)[number], { variable: string; value: string }>>;

function read<T>(raw: Raw, key: (typeof WATCHER_KEYS)[number], schema: v.GenericSchema<string, T>, fallback: T): T {
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

function endpointOf(raw: Raw, fallback: DockerEndpoint): DockerEndpoint {
  if (raw.socket && raw.host) throw new ConfigError(raw.host.variable, 'give SOCKET or HOST, not both');
  if (raw.port && !raw.host) throw new ConfigError(raw.port.variable, 'PORT goes with HOST');
  if (raw.socket)
    return { socketPath: read(raw, 'socket', v.pipe(v.string(), v.regex(/^\/\S+$/, 'must be an absolute path')), '') };
  if (raw.host) {
    const host = read(
      raw,
      'host',
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/, 'must be a host name or IP')),
      '',
    );
    return { host, port: read(raw, 'port', envInteger(1, 65535), 2375), protocol: 'http' };
  }
  return fallback;
}

const CronSchema = v.pipe(
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
 * The Docker watchers of `DD_WATCHER_<NAME>_<KEY>` (decisions §2). A watcher `local` exists by
 * default on DOCKER_HOST or /var/run/docker.sock unless DD_LOCAL_WATCHER=false; configuring
 * `DD_WATCHER_LOCAL_*` adjusts it. Throws ConfigError naming the variable.
 */
export function loadWatcherConfigs(vars: ReadonlyMap<string, string>): WatcherConfig[] {
  const groups = new Map<string, Raw>();
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
  const localEnabled = v.parse(envBoolean, vars.get('DD_LOCAL_WATCHER') ?? 'true');
  if (localEnabled && !groups.has('local')) groups.set('local', {});
  if (!localEnabled) groups.delete('local');
  const dockerHostFallback = endpointFromDockerHost(vars.get('DOCKER_HOST'));
  return [...groups].map(([name, raw]) => ({
    name,
    endpoint: endpointOf(raw, dockerHostFallback),
    cron: read(raw, 'cron', CronSchema, DEFAULT_CRON),
    jitterSeconds: read(raw, 'jitter', envInteger(0, 3600), 60),
    watchByDefault: read(raw, 'watchbydefault', envBoolean, true),
    watchAll: read(raw, 'watchall', envBoolean, false),
    ...(raw.composefiles && { composeFiles: read(raw, 'composefiles', envBoolean, false) }),
  }));
}

/** The endpoint as configuration output may show it. */
export function describeEndpoint(endpoint: DockerEndpoint): string {
  return 'socketPath' in endpoint
    ? `unix://${endpoint.socketPath}`
    : `${endpoint.protocol}://${endpoint.host}:${endpoint.port}`;
}
