import { LOG_LEVELS, type LogLevel } from '../../../shared/schemas/log-entry';
import { type AuthProviders, loadAuthProviders } from '../auth/basic-users';
import { loadWatcherConfigs, type WatcherConfig } from '../watchers/watcher-config';
import { ConfigError } from './config-error';
import { EnvReaderContext, envBoolean, envChoice, envInteger, envText } from './env-readers';
import { type Environment, type ReadTextFile, resolveFileVariables } from './env-source';

export const STORE_DRIVERS = ['fs', 'memory', 'redis'] as const;
export type StoreDriver = (typeof STORE_DRIVERS)[number];

export interface HubConfig {
  server: {
    port: number;
    host: string;
    trustProxy: number;
    cookieSameSite: 'lax' | 'strict' | 'none';
    metricsAuth: boolean;
    metricsToken: string | undefined;
    featureContainerActions: boolean;
    featureDelete: boolean;
  };
  store: { driver: StoreDriver; path: string; url: string | undefined };
  log: { level: LogLevel; format: 'json' | 'pretty'; bufferEnabled: boolean };
  audit: { retentionDays: number; maxEntries: number };
  ui: { maturityThresholdDays: number };
  compat: { wudCard: boolean };
  edge: { enabled: boolean };
  /** Deadline of one registry request, redirects included (DD_REGISTRY_TIMEOUT, seconds). */
  registry: { timeoutMs: number };
  /** Docker watchers (DD_WATCHER_*), the default `local` one included unless DD_LOCAL_WATCHER=false. */
  watchers: WatcherConfig[];
  /** True when no DD_AUTH_* provider is configured (decisions §4). */
  anonymous: boolean;
  /** Basic users (DD_AUTH_BASIC_*); OIDC ids are recognised but not served yet. */
  auth: AuthProviders;
  /** DD_* variables that no part of the hub reads: reported at start so typos are visible. */
  unknownVariables: string[];
}

/**
 * Families whose variables are read by the providers that own them (watchers, registries,
 * triggers, agents, authentication, webhooks, hooks); they are not "unknown" here.
 */
const PROVIDER_PREFIXES = [
  'DD_WATCHER_',
  'DD_REGISTRY_',
  'DD_NOTIFICATION_',
  'DD_ACTION_',
  'DD_AGENT_',
  'DD_AUTH_',
  'DD_SERVER_WEBHOOK_',
  'DD_HOOKS_',
  'DD_SECURITY_',
  'DD_EDGE_',
  'DD_LOCAL_WATCHER',
];

const KNOWN_VARIABLES = new Set([
  'DD_SERVER_PORT',
  'DD_SERVER_HOST',
  'DD_SERVER_TRUSTPROXY',
  'DD_SERVER_COOKIE_SAMESITE',
  'DD_SERVER_METRICS_AUTH',
  'DD_SERVER_METRICS_TOKEN',
  'DD_SERVER_FEATURE_CONTAINERACTIONS',
  'DD_SERVER_FEATURE_DELETE',
  'DD_STORE_DRIVER',
  'DD_STORE_PATH',
  'DD_STORE_URL',
  'DD_LOG_LEVEL',
  'DD_LOG_FORMAT',
  'DD_LOG_BUFFER_ENABLED',
  'DD_AUDIT_RETENTION_DAYS',
  'DD_AUDIT_MAX_ENTRIES',
  'DD_UI_MATURITY_THRESHOLD_DAYS',
  'DD_COMPAT_WUDCARD',
  'DD_EXPERIMENTAL_EDGE',
]);

/**
 * Parses and validates the whole configuration once, at start-up. Throws a ConfigError whose
 * message names the offending variable; nothing here has side effects.
 */
export function loadHubConfig(env: Environment, readTextFile: ReadTextFile): HubConfig {
  const resolved = resolveFileVariables(env, readTextFile);
  const vars = new EnvReaderContext(resolved);
  rejectRemovedVariables(vars);

  const anonymous = ![...vars.names()].some((name) => name.startsWith('DD_AUTH_'));
  const driver = vars.get('DD_STORE_DRIVER', envChoice(STORE_DRIVERS), 'fs');
  const storeUrl = vars.secret('DD_STORE_URL');
  if (driver === 'redis' && storeUrl === undefined) {
    throw new ConfigError('DD_STORE_URL', 'is required when DD_STORE_DRIVER is redis (for example redis://127.0.0.1:6379)');
  }
  if (storeUrl !== undefined && driver === 'redis' && !/^(rediss?:\/\/|unix:\/\/\/)/.test(storeUrl)) {
    throw new ConfigError('DD_STORE_URL', 'must be a redis://, rediss:// or unix:///path/to/redis.sock URL');
  }

  return {
    server: {
      port: vars.get('DD_SERVER_PORT', envInteger(0, 65535), 3000),
      // Anonymous mode listens on loopback only unless told otherwise (decisions §4).
      host: vars.get('DD_SERVER_HOST', envText, anonymous ? '127.0.0.1' : '0.0.0.0'),
      trustProxy: vars.get('DD_SERVER_TRUSTPROXY', envInteger(0, 10), 0),
      cookieSameSite: vars.get('DD_SERVER_COOKIE_SAMESITE', envChoice(['lax', 'strict', 'none']), 'lax'),
      metricsAuth: vars.get('DD_SERVER_METRICS_AUTH', envBoolean, true),
      metricsToken: vars.secret('DD_SERVER_METRICS_TOKEN'),
      featureContainerActions: vars.get('DD_SERVER_FEATURE_CONTAINERACTIONS', envBoolean, true),
      featureDelete: vars.get('DD_SERVER_FEATURE_DELETE', envBoolean, false),
    },
    store: { driver, path: vars.get('DD_STORE_PATH', envText, './data'), url: storeUrl },
    log: {
      level: vars.get('DD_LOG_LEVEL', envChoice(LOG_LEVELS), 'info'),
      format: vars.get('DD_LOG_FORMAT', envChoice(['json', 'pretty']), 'json'),
      bufferEnabled: vars.get('DD_LOG_BUFFER_ENABLED', envBoolean, true),
    },
    audit: {
      retentionDays: vars.get('DD_AUDIT_RETENTION_DAYS', envInteger(1, 3650), 90),
      maxEntries: vars.get('DD_AUDIT_MAX_ENTRIES', envInteger(100, 1_000_000), 10_000),
    },
    ui: { maturityThresholdDays: vars.get('DD_UI_MATURITY_THRESHOLD_DAYS', envInteger(1, 3650), 7) },
    compat: { wudCard: vars.get('DD_COMPAT_WUDCARD', envBoolean, false) },
    edge: { enabled: vars.get('DD_EXPERIMENTAL_EDGE', envBoolean, true) },
    registry: { timeoutMs: vars.get('DD_REGISTRY_TIMEOUT', envInteger(1, 300), 15) * 1000 },
    watchers: loadWatcherConfigs(new Map([...resolved, ...(env.DOCKER_HOST ? [['DOCKER_HOST', env.DOCKER_HOST] as const] : [])])),
    anonymous,
    auth: loadAuthProviders(resolved),
    unknownVariables: [...vars.names()].filter(
      (name) => !KNOWN_VARIABLES.has(name) && !PROVIDER_PREFIXES.some((prefix) => name.startsWith(prefix)),
    ),
  };
}

/** Spec 9.8: the DD_TRIGGER_* prefix was removed; starting with it set must fail, not ignore it. */
function rejectRemovedVariables(vars: EnvReaderContext): void {
  for (const name of vars.names()) {
    if (name.startsWith('DD_TRIGGER_')) {
      throw new ConfigError(name, 'the DD_TRIGGER_* prefix was removed; use DD_ACTION_* or DD_NOTIFICATION_*');
    }
  }
}

/** The configuration as the API may show it: secrets replaced, never echoed. */
export function maskHubConfig(config: HubConfig): Record<string, unknown> {
  const { unknownVariables: _unknown, auth, ...shown } = config;
  return {
    ...shown,
    auth: { basic: auth.basic.map((user) => ({ id: user.id, username: user.username })), unsupported: auth.unsupported },
    server: { ...config.server, metricsToken: config.server.metricsToken === undefined ? undefined : '***' },
    store: { ...config.store, url: config.store.url === undefined ? undefined : '***' },
  };
}
