import { ConfigError } from '../../../shared/config/config-error';
import { EnvReaderContext, envBoolean, envChoice, envInteger, envText } from '../../../shared/config/env-readers';
import { type Environment, type ReadTextFile, resolveFileVariables } from '../../../shared/config/env-source';
import {
  loadWatcherConfigs,
  type WatcherConfig,
  watcherTypeOf,
  watcherVariableGroups,
} from '../../../shared/docker/watcher-config';
import { errorMessage } from '../../../shared/error-message';
import { loadPodmanWatcherConfigs } from '../../../shared/podman/podman-watcher-config';
import { LOG_LEVELS, type LogLevel } from '../../../shared/schemas/log-entry';
import { type HookConfig, loadHookConfig } from '../../../shared/update/hook-config';
import { DEFAULT_BACKOFF } from '../link/backoff';

export interface AgentEnvironment {
  watchers: WatcherConfig[];
  logLevel: LogLevel;
  /** Reconnect backoff bounds; shortened by tests through DD_EDGE_RECONNECT_MIN_MS / _MAX_MS. */
  reconnect: { minMs: number; maxMs: number };
  /** Listen mode's variables (http-interface §4.5, §5.7); read in edge mode too, where they are ignored. */
  listen: ListenEnvironment;
  /**
   * DD_HOOKS_ENABLED (default false) and DD_HOOKS_TIMEOUT (seconds, default 60): dd.hook.pre /
   * dd.hook.post of this host's containers run here only when this host's owner turns them on; the
   * hub's own DD_HOOKS_ENABLED does not (a label would otherwise become a command on this host).
   */
  hooks: HookConfig;
  /** DD_* variables the agent does not know (reported in a warning, as the hub does). */
  unknown: string[];
}

export interface ListenEnvironment {
  /** DD_AGENT_SECRET, DD_AGENT_SECRET__FILE or (http-interface §5.7) DD_AGENT_SECRET_FILE: the file's content. */
  secret: { value: string; variable: string } | undefined;
  /** DD_AGENT_LISTEN_HOST: the address to bind instead of 127.0.0.1. */
  host: string | undefined;
  /** DD_SERVER_FEATURE_DELETE (default false): DELETE /api/containers/{id}. */
  featureDelete: boolean;
  /** DD_SERVER_FEATURE_CONTAINERACTIONS (default true): start, stop and restart. */
  featureContainerActions: boolean;
  /**
   * DD_AGENT_UPDATE_JOURNAL: the file the updates the hub asks for are journalled in (an edge agent's
   * is beside its key), so a restart settles one cut short; unset, they are kept in memory only.
   */
  updateJournal: string | undefined;
}

const KNOWN = new Set([
  'DD_LOG_LEVEL',
  'DD_LOCAL_WATCHER',
  'DD_EDGE_RECONNECT_MIN_MS',
  'DD_EDGE_RECONNECT_MAX_MS',
  'DD_AGENT_SECRET',
  'DD_AGENT_SECRET_FILE',
  'DD_AGENT_LISTEN_HOST',
  'DD_SERVER_FEATURE_DELETE',
  'DD_SERVER_FEATURE_CONTAINERACTIONS',
  'DD_AGENT_UPDATE_JOURNAL',
  'DD_HOOKS_ENABLED',
  'DD_HOOKS_TIMEOUT',
]);
/**
 * Swarm services and file sources are watched by the hub itself (docs/sources.md): an agent given
 * one would otherwise ignore it without a word.
 */
function refuseHubOnlyWatchers(vars: ReadonlyMap<string, string>): void {
  for (const [name, raw] of watcherVariableGroups(vars)) {
    const type = watcherTypeOf(raw);
    if (type !== 'docker' && type !== 'podman')
      throw new ConfigError(
        raw.type?.variable ?? `DD_WATCHER_${name.toUpperCase()}_TYPE`,
        `an edge agent watches docker and podman Engines; ${type} watchers run on the hub`,
      );
  }
}

/** hello lists at most this many watchers (shared/edge/protocol.ts). */
const MAX_WATCHERS = 32;

/**
 * The agent's variables: its Docker and Podman watchers exactly as the hub reads them
 * (`DD_WATCHER_<NAME>_*`, TYPE podman for a Podman socket; the default `local` on DOCKER_HOST or
 * /var/run/docker.sock, DD_LOCAL_WATCHER), DD_LOG_LEVEL and
 * the reconnect bounds, the hooks; `<NAME>__FILE` works as on the hub. Throws ConfigError naming the variable.
 */
export function loadAgentEnvironment(env: Environment, readTextFile: ReadTextFile): AgentEnvironment {
  const resolved = resolveFileVariables(env, readTextFile);
  const vars = new EnvReaderContext(resolved);
  const watcherVars = new Map([...resolved, ...(env.DOCKER_HOST ? [['DOCKER_HOST', env.DOCKER_HOST] as const] : [])]);
  refuseHubOnlyWatchers(watcherVars);
  const watchers = [
    ...loadWatcherConfigs(watcherVars),
    ...loadPodmanWatcherConfigs(watcherVars).map((config) => ({ ...config, type: 'podman' as const })),
  ];
  if (watchers.length > MAX_WATCHERS)
    throw new ConfigError('DD_WATCHER_*', `at most ${MAX_WATCHERS} watchers per agent (got ${watchers.length})`);
  const minMs = vars.get('DD_EDGE_RECONNECT_MIN_MS', envInteger(10, 3_600_000), DEFAULT_BACKOFF.minMs);
  const maxMs = vars.get('DD_EDGE_RECONNECT_MAX_MS', envInteger(10, 3_600_000), Math.max(minMs, DEFAULT_BACKOFF.maxMs));
  if (maxMs < minMs)
    throw new ConfigError('DD_EDGE_RECONNECT_MAX_MS', `must be at least DD_EDGE_RECONNECT_MIN_MS (${minMs})`);
  return {
    watchers,
    logLevel: vars.get('DD_LOG_LEVEL', envChoice(LOG_LEVELS), 'info'),
    reconnect: { minMs, maxMs },
    listen: {
      secret: readSecret(vars, readTextFile),
      host: vars.optional('DD_AGENT_LISTEN_HOST', envText),
      featureDelete: vars.get('DD_SERVER_FEATURE_DELETE', envBoolean, false),
      featureContainerActions: vars.get('DD_SERVER_FEATURE_CONTAINERACTIONS', envBoolean, true),
      updateJournal: vars.optional('DD_AGENT_UPDATE_JOURNAL', envText),
    },
    hooks: loadHookConfig(vars),
    unknown: [...resolved.keys()].filter((name) => !KNOWN.has(name) && !name.startsWith('DD_WATCHER_')).sort(),
  };
}

/**
 * The listen-mode secret: DD_AGENT_SECRET (or its DD_AGENT_SECRET__FILE form, resolved before),
 * or the file DD_AGENT_SECRET_FILE names (http-interface §5.7's spelling). Never echoed in an error.
 */
function readSecret(vars: EnvReaderContext, readTextFile: ReadTextFile): ListenEnvironment['secret'] {
  const direct = vars.secret('DD_AGENT_SECRET');
  const path = vars.optional('DD_AGENT_SECRET_FILE', envText);
  if (direct !== undefined && path !== undefined)
    throw new ConfigError('DD_AGENT_SECRET_FILE', 'cannot be set together with DD_AGENT_SECRET');
  if (direct !== undefined) return { value: direct, variable: 'DD_AGENT_SECRET' };
  if (path === undefined) return undefined;
  let content: string;
  try {
    content = readTextFile(path);
  } catch (error) {
    throw new ConfigError('DD_AGENT_SECRET_FILE', `cannot read ${path}: ${errorMessage(error)}`);
  }
  const value = content.replace(/\r?\n$/, '');
  if (value === '') throw new ConfigError('DD_AGENT_SECRET_FILE', `${path} is empty`);
  return { value, variable: 'DD_AGENT_SECRET_FILE' };
}
